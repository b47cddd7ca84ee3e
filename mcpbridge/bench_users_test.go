package mcpbridge

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	mcpserver "github.com/mark3labs/mcp-go/server"
	"google.golang.org/genai"

	"github.com/mcpgenai/bridge/internal/testauth"
	"github.com/mcpgenai/bridge/mcpbridge/auth"
	"github.com/mcpgenai/bridge/registry"
)

// usersBench is the setting of the many-users benchmarks: two stdio
// servers (the mcptest program, "a" and "b") and two streamable-HTTP
// servers ("web1", "web2", mcp-go's, which speak both protocol eras) that
// an authorization server (internal/testauth) protects with per-user
// OAuth, each checking every call's token against the user it claims
// (testauth.WhoAmI). Every user is logged in beforehand: their tokens
// are in store, as a service's users' tokens are in its store.
type usersBench struct {
	as      *testauth.Server
	remotes []*testauth.Protected
	calls   testauth.Calls
	store   *auth.MemoryStore
	cfgs    []ServerConfig
}

func newUsersBench(b *testing.B, users []string, scope mcp.CacheScope) *usersBench {
	b.Helper()
	// The authorization server (zitadel's example) logs each request it
	// serves to slog.Default, one write to stderr under one lock: not
	// what is measured, and a service's authorization server is elsewhere.
	prev := slog.Default()
	slog.SetDefault(slog.New(slog.DiscardHandler))
	b.Cleanup(func() { slog.SetDefault(prev) })
	ub := &usersBench{as: testauth.Start(b), store: auth.NewMemoryStore()}
	ub.as.RegisterNative("service", "http://127.0.0.1/oauth/callback")
	for _, name := range []string{"a", "b"} {
		cfg := stdioServer(name, "-name="+name, "-tools=1")
		cfg.Trust = true
		ub.cfgs = append(ub.cfgs, cfg)
	}
	for _, name := range []string{"web1", "web2"} {
		p := ub.as.ServeMCP(b, testauth.WhoAmI(name, &ub.calls, mcpserver.WithMethodCacheHints(mcp.MethodToolsList, 60_000, scope)), false, "")
		ub.remotes = append(ub.remotes, p)
		ub.cfgs = append(ub.cfgs, ServerConfig{Name: name, HTTPURL: p.URL, Trust: true, Timeout: time.Minute,
			OAuth: &OAuthConfig{Enabled: true, ClientID: "service"}})
	}
	// Log every user in once, at web1, through a Bridge; the token is
	// one of the authorization server's, good at web2 too, and is stored
	// for both.
	setup, err := New(&Config{Servers: ub.cfgs[2:3]}, &Options{MaxUsers: len(users), TokenStore: ub.store, LoginURL: loginURL(b), Logger: quiet()})
	if err != nil {
		b.Fatal(err)
	}
	defer setup.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	if err := setup.Discover(ctx); err != nil { // the server's challenge names the scopes
		b.Fatal(err)
	}
	var wg sync.WaitGroup
	sem := make(chan struct{}, 8)
	for _, u := range users {
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			uctx := WithUser(ctx, u)
			if err := setup.Login(uctx, "web1"); err != nil {
				b.Errorf("Login(%s) = %v", u, err)
				return
			}
			t, err := ub.store.Load(ctx, auth.Key{User: u, Server: ub.remotes[0].URL, Issuer: ub.as.Issuer})
			if err != nil || t == nil {
				b.Errorf("token of %s: %v, %v", u, t, err)
				return
			}
			if err := ub.store.Save(ctx, auth.Key{User: u, Server: ub.remotes[1].URL, Issuer: ub.as.Issuer}, t); err != nil {
				b.Error(err)
			}
		})
	}
	wg.Wait()
	if b.Failed() {
		b.FailNow()
	}
	return ub
}

// firstCalls are a user's first calls: one tool of each server.
func firstCalls(user string) []*genai.FunctionCall {
	return []*genai.FunctionCall{
		{ID: "1", Name: "mcp_a_echo", Args: map[string]any{"text": user}},
		{ID: "2", Name: "mcp_b_echo", Args: map[string]any{"text": user}},
		{ID: "3", Name: "mcp_web1_whoami", Args: map[string]any{"user": user, "seq": 1}},
		{ID: "4", Name: "mcp_web2_whoami", Args: map[string]any{"user": user, "seq": 2}},
	}
}

// answer makes a user's first request: Declare, then its calls at once;
// it returns the first failure.
func answer(ctx context.Context, br *Bridge, user string) error {
	d, err := br.Declare(ctx, nil, nil)
	if err != nil {
		return fmt.Errorf("%s: Declare: %w", user, err)
	}
	calls := firstCalls(user)
	if len(d.Tools) == 0 || len(d.Tools[0].FunctionDeclarations) < len(calls) {
		return fmt.Errorf("%s: %d tools declared", user, len(d.Tools))
	}
	for i, r := range d.ExecuteAll(ctx, calls) {
		if r.Err != nil {
			return fmt.Errorf("%s: %s: %w", user, calls[i].Name, r.Err)
		}
		if want := user; i >= 2 && !strings.Contains(r.ReturnDisplay, ": "+want+" #") {
			return fmt.Errorf("%s: %s answered %q", user, calls[i].Name, r.ReturnDisplay)
		}
	}
	return nil
}

// asUser is a token store that keeps the tokens of the user "" as
// user's: a Bridge of one user in a service that keeps a Bridge per user.
type asUser struct {
	store *auth.MemoryStore
	user  string
}

func (s asUser) key(k auth.Key) auth.Key { k.User = s.user; return k }
func (s asUser) Load(ctx context.Context, k auth.Key) (*auth.Token, error) {
	return s.store.Load(ctx, s.key(k))
}
func (s asUser) Save(ctx context.Context, k auth.Key, t *auth.Token) error {
	return s.store.Save(ctx, s.key(k), t)
}
func (s asUser) Delete(ctx context.Context, k auth.Key) error { return s.store.Delete(ctx, s.key(k)) }

// footprint is what the test process and its children hold: the live Go
// heap (after a collection), the children's resident memory, the
// children, and the open files of all.
type footprint struct {
	heap, rss    uint64
	procs, files int
	// cpu is the processor time a side used (see cpuNow), set by the
	// benchmark, not by measure.
	cpu time.Duration
}

// cpuNow returns the processor time (user and system) used so far by the
// test process and by its children that have ended: on a machine shared
// with other work, a side's time to answer rises with the load, the
// processor time it needs does not.
func cpuNow() (self, children time.Duration) {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) == nil {
		self = time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	if syscall.Getrusage(syscall.RUSAGE_CHILDREN, &ru) == nil {
		children = time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	return self, children
}

func measure() footprint {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	f := footprint{heap: ms.HeapAlloc, files: countDir("/proc/self/fd")}
	self := strconv.Itoa(os.Getpid())
	dirs, _ := filepath.Glob("/proc/[0-9]*/stat")
	for _, stat := range dirs {
		data, err := os.ReadFile(stat)
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...: comm may hold spaces, so split after it.
		rest := string(data)
		if i := strings.LastIndexByte(rest, ')'); i >= 0 {
			rest = rest[i+1:]
		}
		if fields := strings.Fields(rest); len(fields) < 2 || fields[1] != self {
			continue
		}
		dir := filepath.Dir(stat)
		f.procs++
		f.files += countDir(dir + "/fd")
		status, _ := os.ReadFile(dir + "/status")
		for line := range strings.Lines(string(status)) {
			if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
				kb, _ := strconv.ParseUint(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
				f.rss += kb << 10
			}
		}
	}
	return f
}

// settle collects the garbage the previous side left before a side
// starts, so that each side starts under the heap goal of what is live
// then. The previous side's memory was measured while its Bridges were
// alive: without this, a side that followed the 100 Bridges ran under a
// goal raised by their heap (the one Bridge then ran with no collection
// at all, against 3 when it followed itself, and took 270–300 ms against
// 340–370).
func settle() {
	runtime.GC()
}

func countDir(dir string) int {
	es, _ := os.ReadDir(dir)
	return len(es)
}

// bytes is the memory f holds beyond base: heap and children.
func (f footprint) bytes(base footprint) float64 {
	return float64(f.heap) - float64(base.heap) + float64(f.rss) - float64(base.rss)
}

// BenchmarkUsers compares, for 100 users logged in to the servers of
// usersBench, one Bridge serving them all (Options.MaxUsers, each
// operation WithUser) against a Bridge per user (each with the user's
// tokens as its own): from New until every user's first calls (Declare,
// then one tool of each of the four servers, at once) are answered, all
// users at once; and the memory held then (the live heap beyond what it
// was before, and the resident memory of the stdio servers' processes).
// The two sides run alternately in one loop. Reported: each side's
// median time ("one-ms", "bridges-ms") and memory ("one-MB",
// "bridges-MB") with their ratios ("time-ratio", "memory-ratio": one
// Bridge's share of the Bridges'), the processor time each side used
// until then, its stdio processes' included ("one-cpu-ms",
// "bridges-cpu-ms", "cpu-ratio": what the time would be without other
// work on the machine), and the processes and open files of each side.
func BenchmarkUsers(b *testing.B) { eachScope(b, benchUsers) }

// eachScope runs bench as a sub-benchmark for the HTTP servers' tools
// lists marked public (every user's list is the same: it is listed once)
// and private (each user's is listed with the user's token).
func eachScope(b *testing.B, bench func(*testing.B, mcp.CacheScope)) {
	for _, scope := range []mcp.CacheScope{mcp.CacheScopePublic, mcp.CacheScopePrivate} {
		b.Run(string(scope), func(b *testing.B) { bench(b, scope) })
	}
}

func benchUsers(b *testing.B, scope mcp.CacheScope) {
	const n = 100
	users := userNames(n)
	ub := newUsersBench(b, users, scope)
	ctx := context.Background()
	base := measure()
	one := func() (time.Duration, footprint) {
		settle()
		t0 := time.Now()
		self0, children0 := cpuNow()
		br, err := New(&Config{Servers: ub.cfgs}, &Options{MaxUsers: n, TokenStore: ub.store, Logger: quiet(), ToolNames: registry.QualifiedNames})
		if err != nil {
			b.Fatal(err)
		}
		defer br.Close()
		if err := br.Discover(ctx); err != nil {
			b.Fatal(err)
		}
		var wg sync.WaitGroup
		errs := make(chan error, n)
		for _, u := range users {
			wg.Go(func() { errs <- answer(WithUser(ctx, u), br, u) })
		}
		wg.Wait()
		d := time.Since(t0)
		self1, _ := cpuNow()
		close(errs)
		for err := range errs {
			if err != nil {
				b.Fatal(err)
			}
		}
		f := measure()
		_ = br.Close()
		_, children1 := cpuNow()
		f.cpu = self1 - self0 + children1 - children0
		return d, f
	}
	bridges := func() (time.Duration, footprint) {
		settle()
		t0 := time.Now()
		self0, children0 := cpuNow()
		brs := make([]*Bridge, n)
		var wg sync.WaitGroup
		errs := make(chan error, n)
		for i, u := range users {
			wg.Go(func() {
				br, err := New(&Config{Servers: ub.cfgs}, &Options{TokenStore: asUser{ub.store, u}, Logger: quiet(), ToolNames: registry.QualifiedNames})
				if err != nil {
					errs <- err
					return
				}
				brs[i] = br
				if err := br.Discover(ctx); err != nil {
					errs <- err
					return
				}
				errs <- answer(ctx, br, u)
			})
		}
		wg.Wait()
		d := time.Since(t0)
		self1, _ := cpuNow()
		f := measure()
		close(errs)
		var wc sync.WaitGroup
		for _, br := range brs {
			if br != nil {
				wc.Go(func() { _ = br.Close() })
			}
		}
		wc.Wait()
		_, children1 := cpuNow()
		f.cpu = self1 - self0 + children1 - children0
		for err := range errs {
			if err != nil {
				b.Fatal(err)
			}
		}
		return d, f
	}
	if os.Getenv("USERS_ONE_ONLY") != "" { // profiling one side
		var t1, c1 []time.Duration
		for b.Loop() {
			d, f := one()
			t1, c1 = append(t1, d), append(c1, f.cpu)
		}
		b.ReportMetric(float64(median(t1))/1e6, "one-ms")
		b.ReportMetric(float64(median(c1))/1e6, "one-cpu-ms")
		return
	}
	var t1, tn, c1, cn []time.Duration
	var m1, mn []float64
	var f1, fn footprint
	i := 0
	for b.Loop() {
		if i%2 == 0 {
			d, f := one()
			t1, m1, c1, f1 = append(t1, d), append(m1, f.bytes(base)), append(c1, f.cpu), f
			d, f = bridges()
			tn, mn, cn, fn = append(tn, d), append(mn, f.bytes(base)), append(cn, f.cpu), f
		} else {
			d, f := bridges()
			tn, mn, cn, fn = append(tn, d), append(mn, f.bytes(base)), append(cn, f.cpu), f
			d, f = one()
			t1, m1, c1, f1 = append(t1, d), append(m1, f.bytes(base)), append(c1, f.cpu), f
		}
		i++
	}
	st1, stn := median(t1), median(tn)
	b.ReportMetric(float64(st1)/1e6, "one-ms")
	b.ReportMetric(float64(stn)/1e6, "bridges-ms")
	b.ReportMetric(float64(st1)/float64(stn), "time-ratio")
	sc1, scn := median(c1), median(cn)
	b.ReportMetric(float64(sc1)/1e6, "one-cpu-ms")
	b.ReportMetric(float64(scn)/1e6, "bridges-cpu-ms")
	b.ReportMetric(float64(sc1)/float64(scn), "cpu-ratio")
	mm1, mmn := medianFloat(m1), medianFloat(mn)
	b.ReportMetric(mm1/(1<<20), "one-MB")
	b.ReportMetric(mmn/(1<<20), "bridges-MB")
	b.ReportMetric(mm1/mmn, "memory-ratio")
	b.ReportMetric(float64(f1.procs), "one-procs")
	b.ReportMetric(float64(fn.procs), "bridges-procs")
	b.ReportMetric(float64(f1.files-base.files), "one-files")
	b.ReportMetric(float64(fn.files-base.files), "bridges-files")
	if n := ub.calls.Crossings.Load(); n != 0 {
		b.Fatalf("%d crossings", n)
	}
}

// BenchmarkThousandUsers serves 1,000 users logged in to the servers of
// usersBench from one Bridge: one user's first calls first, then the 999
// others' all at once. Every first call must be answered, by one process
// per stdio server, with every connection in the protocol found for its
// server by the first (2026-07-28, found once: each HTTP server is asked
// server/discover by one connection). Reported: the time until the 999
// were answered ("ms"), the memory each user beyond the first holds
// ("KB/user": live heap and the processes' resident memory, after the
// 1,000 against after the first), the processes and open files, and the
// server/discover requests each HTTP server got ("discovers").
func BenchmarkThousandUsers(b *testing.B) { eachScope(b, benchThousandUsers) }

func benchThousandUsers(b *testing.B, scope mcp.CacheScope) {
	const n = 1000
	users := userNames(n)
	ub := newUsersBench(b, users, scope)
	ctx := context.Background()
	var per, ms []float64
	var f footprint
	var discovers int64
	for b.Loop() {
		counted := countDiscovers(ub.remotes)
		br, err := New(&Config{Servers: ub.cfgs}, &Options{MaxUsers: n, TokenStore: ub.store, Logger: quiet(), ToolNames: registry.QualifiedNames})
		if err != nil {
			b.Fatal(err)
		}
		if err := br.Discover(ctx); err != nil {
			b.Fatal(err)
		}
		if err := answer(WithUser(ctx, users[0]), br, users[0]); err != nil {
			b.Fatal(err)
		}
		first := measure()
		t0 := time.Now()
		var wg sync.WaitGroup
		errs := make(chan error, n)
		for _, u := range users[1:] {
			wg.Go(func() { errs <- answer(WithUser(ctx, u), br, u) })
		}
		wg.Wait()
		ms = append(ms, float64(time.Since(t0))/1e6)
		f = measure()
		close(errs)
		for err := range errs {
			if err != nil {
				b.Fatal(err)
			}
		}
		per = append(per, f.bytes(first)/float64(n-1))
		if f.procs != 2 {
			b.Fatalf("%d processes for the two stdio servers", f.procs)
		}
		br.mu.Lock()
		for _, s := range br.servers {
			for _, u := range br.users {
				if in := u.inst[s]; in != nil && (in.link == nil || in.link.conn.ProtocolVersion() != mcp.LATEST_PROTOCOL_VERSION) {
					b.Errorf("%s at %s: not connected in 2026-07-28", u.id, s.cfg.Name)
				}
			}
		}
		br.mu.Unlock()
		discovers = countDiscovers(ub.remotes) - counted
		_ = br.Close()
	}
	b.ReportMetric(medianFloat(ms), "ms")
	b.ReportMetric(medianFloat(per)/1024, "KB/user")
	b.ReportMetric(float64(f.procs), "procs")
	b.ReportMetric(float64(f.files), "files")
	b.ReportMetric(float64(discovers)/float64(len(ub.remotes)), "discovers")
	if n := ub.calls.Crossings.Load(); n != 0 {
		b.Fatalf("%d crossings", n)
	}
}

// countDiscovers is how many server/discover requests ps were sent.
func countDiscovers(ps []*testauth.Protected) int64 {
	var n int64
	for _, p := range ps {
		n += p.Discovers.Load()
	}
	return n
}

func medianFloat(xs []float64) float64 {
	ds := make([]time.Duration, len(xs))
	for i, x := range xs {
		ds[i] = time.Duration(x)
	}
	return float64(median(ds))
}
