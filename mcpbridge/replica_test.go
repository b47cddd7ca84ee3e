package mcpbridge

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"google.golang.org/genai"

	"github.com/mcpgenai/bridge/internal/testpg"
	"github.com/mcpgenai/bridge/mcpbridge/store/postgres"
)

// The tests here run replicas of a service in processes of their own:
// this test binary, started again with replicaEnv set, runs replicaMain
// instead of the tests. A replica builds a Bridge on the PostgreSQL store
// the parent names, discovers, and executes one call; it says "ready"
// before discovering (and, with Wait, then waits for a line on stdin) and
// "result" with the call's outcome.

// replicaEnv holds a replica's replicaSpec, as JSON.
const replicaEnv = "MCPBRIDGE_TEST_REPLICA"

type replicaSpec struct {
	DSN, Prefix string
	Key         []byte
	// Server is the one server: its name, streamable-HTTP URL, and
	// whether it wants OAuth.
	Server, URL string
	OAuth       bool
	// Call is executed once discovered: Tool is the server's name of the
	// tool, ID the call's id.
	Tool, ID string
	Args     map[string]any
	// Wait makes the replica wait for a line on stdin before it
	// discovers.
	Wait bool
}

// replicaOutcome is what a replica says of its call.
type replicaOutcome struct {
	Text, Err string
}

// replicaMain runs a replica (see replicaSpec) and returns its exit code.
func replicaMain(raw string) int {
	var spec replicaSpec
	if err := json.Unmarshal([]byte(raw), &spec); err != nil {
		fmt.Fprintln(os.Stderr, "replica:", err)
		return 2
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	st, err := postgres.Open(ctx, spec.DSN, postgres.Options{Keys: []postgres.Key{{ID: "test", Secret: spec.Key}}, TablePrefix: spec.Prefix})
	if err != nil {
		fmt.Fprintln(os.Stderr, "replica:", err)
		return 2
	}
	defer st.Close()
	cfg := ServerConfig{Name: spec.Server, HTTPURL: spec.URL, Trust: true, Timeout: 30 * time.Second}
	if spec.OAuth {
		cfg.OAuth = &OAuthConfig{Enabled: true}
	}
	b, err := New(&Config{Servers: []ServerConfig{cfg}}, &Options{Store: st, Logger: quiet()})
	if err != nil {
		fmt.Fprintln(os.Stderr, "replica:", err)
		return 2
	}
	defer b.Close()
	fmt.Println("ready")
	if spec.Wait {
		if _, err := bufio.NewReader(os.Stdin).ReadString('\n'); err != nil {
			return 2
		}
	}
	if err := b.Discover(ctx); err != nil {
		fmt.Fprintln(os.Stderr, "replica: discover:", err)
	}
	name := spec.Tool
	for _, tl := range b.Tools() {
		if tl.ServerTool == spec.Tool {
			name = tl.Name
		}
	}
	r := b.Execute(ctx, &genai.FunctionCall{ID: spec.ID, Name: name, Args: spec.Args})
	out := replicaOutcome{Text: r.ReturnDisplay}
	if r.Err != nil {
		out.Err = r.Err.Error()
	}
	line, _ := json.Marshal(out)
	fmt.Printf("result %s\n", line)
	return 0
}

// replica is a replica process.
type replica struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	lines  chan string
	stderr *syncBuffer
}

// startReplica starts a replica with spec and waits for its "ready".
func startReplica(t *testing.T, spec replicaSpec) *replica {
	t.Helper()
	raw, err := json.Marshal(spec)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), replicaEnv+"="+string(raw))
	r := &replica{cmd: cmd, lines: make(chan string, 8), stderr: &syncBuffer{}}
	cmd.Stderr = r.stderr
	if r.stdin, err = cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			r.lines <- sc.Text()
		}
		close(r.lines)
	}()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		<-done
	})
	if line := r.next(t); line != "ready" {
		t.Fatalf("replica said %q, want ready", line)
	}
	return r
}

// next returns the replica's next line of stdout.
func (r *replica) next(t *testing.T) string {
	t.Helper()
	select {
	case line, ok := <-r.lines:
		if !ok {
			t.Fatalf("replica ended; stderr:\n%s", r.stderr.String())
		}
		return line
	case <-time.After(time.Minute):
		t.Fatalf("replica silent for a minute; stderr:\n%s", r.stderr.String())
	}
	return ""
}

// outcome returns what the replica says of its call.
func (r *replica) outcome(t *testing.T) replicaOutcome {
	t.Helper()
	line := r.next(t)
	raw, ok := strings.CutPrefix(line, "result ")
	var out replicaOutcome
	if !ok || json.Unmarshal([]byte(raw), &out) != nil {
		t.Fatalf("replica said %q, want its result", line)
	}
	return out
}

// kill kills the replica at once (SIGKILL: no Close, no cancellation).
func (r *replica) kill(t *testing.T) {
	t.Helper()
	if err := r.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = r.cmd.Wait()
}

// sharedStore opens a PostgreSQL store with tables of the test's own and
// returns it with the spec its replicas share it with.
func sharedStore(t *testing.T) (*postgres.Store, replicaSpec) {
	t.Helper()
	dsn := testpg.DSN(t)
	spec := replicaSpec{DSN: dsn, Prefix: testpg.Prefix(t, dsn), Key: make([]byte, 32)}
	_, _ = rand.Read(spec.Key)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	st, err := postgres.Open(ctx, dsn, postgres.Options{Keys: []postgres.Key{{ID: "test", Secret: spec.Key}}, TablePrefix: spec.Prefix})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(st.Close)
	return st, spec
}
