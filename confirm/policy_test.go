package confirm

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

func ptr(b bool) *bool { return &b }

// answering returns a confirmer that answers a (or fails with err) and
// counts its calls.
func answering(a Answer, err error, calls *atomic.Int32) Confirmer {
	return ConfirmerFunc(func(ctx context.Context, req Request) (Answer, error) {
		calls.Add(1)
		return a, err
	})
}

var errBoom = errors.New("terminal closed")

func TestDecide(t *testing.T) {
	req := Request{Server: "files", ServerTool: "delete", Name: "delete", Args: map[string]any{"path": "/tmp/x"}}
	readOnly := req
	readOnly.Annotations = Annotations{ReadOnlyHint: ptr(true)}
	trusted := req
	trusted.Trusted = true
	// keys that a joined "server.tool" string would confuse
	ab := Request{Server: "a.b", ServerTool: "c"}
	a := Request{Server: "a", ServerTool: "b.c"}

	tests := []struct {
		name      string
		setup     func(p *Policy)
		noAsker   bool   // leave Confirmer nil
		answer    Answer // the confirmer's answer
		answerErr error
		req       Request
		want      Decision
		wantErr   error // errors.Is target
		wantCalls int32
		wantAllow []Key
	}{
		{name: "zero policy without confirmer refuses", noAsker: true, req: req,
			want: Decision{}, wantErr: ErrNoConfirmer},
		{name: "proceed once", answer: ProceedOnce, req: req,
			want: Decision{Proceed: true, Asked: true, Reason: Approved, Answer: ProceedOnce}, wantCalls: 1},
		{name: "always this tool", answer: AlwaysTool, req: req,
			want:      Decision{Proceed: true, Asked: true, Reason: Approved, Answer: AlwaysTool},
			wantCalls: 1, wantAllow: []Key{{"files", "delete"}}},
		{name: "always this server", answer: AlwaysServer, req: req,
			want:      Decision{Proceed: true, Asked: true, Reason: Approved, Answer: AlwaysServer},
			wantCalls: 1, wantAllow: []Key{{Server: "files"}}},
		{name: "cancel", answer: Cancel, req: req,
			want: Decision{Asked: true, Reason: Declined, Answer: Cancel}, wantCalls: 1},
		{name: "unknown answer counts as cancel", answer: Answer(42), req: req,
			want: Decision{Asked: true, Reason: Declined, Answer: Cancel}, wantCalls: 1},
		{name: "confirmer error", answer: AlwaysTool, answerErr: errBoom, req: req,
			want: Decision{Asked: true}, wantErr: errBoom, wantCalls: 1},
		{name: "trusted server", answer: Cancel, req: trusted,
			want: Decision{Proceed: true, Reason: Trusted}},
		{name: "trusted server without confirmer", noAsker: true, req: trusted,
			want: Decision{Proceed: true, Reason: Trusted}},
		{name: "denied server beats trust", setup: func(p *Policy) { p.Deny(Key{Server: "files"}) },
			answer: ProceedOnce, req: trusted, want: Decision{Reason: Denied}},
		{name: "denied tool beats allowed server", answer: ProceedOnce, req: req,
			setup: func(p *Policy) { p.Allow(Key{Server: "files"}); p.Deny(Key{"files", "delete"}) },
			want:  Decision{Reason: Denied}, wantAllow: []Key{{Server: "files"}}},
		{name: "denied tool beats read-only", answer: ProceedOnce, req: readOnly,
			setup: func(p *Policy) { p.AutoAllowReadOnly = true; p.Deny(Key{"files", "delete"}) },
			want:  Decision{Reason: Denied}},
		{name: "deny of another tool does not apply", answer: ProceedOnce, req: req,
			setup: func(p *Policy) { p.Deny(Key{"files", "read"}) },
			want:  Decision{Proceed: true, Asked: true, Reason: Approved, Answer: ProceedOnce}, wantCalls: 1},
		{name: "allowed server", setup: func(p *Policy) { p.Allow(Key{Server: "files"}) }, answer: Cancel, req: req,
			want: Decision{Proceed: true, Reason: ServerAllowed}, wantAllow: []Key{{Server: "files"}}},
		{name: "allowed tool", setup: func(p *Policy) { p.Allow(Key{"files", "delete"}) }, answer: Cancel, req: req,
			want: Decision{Proceed: true, Reason: ToolAllowed}, wantAllow: []Key{{"files", "delete"}}},
		{name: "allowed other tool asks", setup: func(p *Policy) { p.Allow(Key{"files", "read"}) }, answer: Cancel, req: req,
			want: Decision{Asked: true, Reason: Declined}, wantCalls: 1, wantAllow: []Key{{"files", "read"}}},
		{name: "revoked tool asks", setup: func(p *Policy) { p.Allow(Key{"files", "delete"}); p.Revoke(Key{"files", "delete"}) },
			answer: Cancel, req: req, want: Decision{Asked: true, Reason: Declined}, wantCalls: 1, wantAllow: []Key{}},
		{name: "read-only auto-allowed", setup: func(p *Policy) { p.AutoAllowReadOnly = true }, answer: Cancel, req: readOnly,
			want: Decision{Proceed: true, Reason: ReadOnly}},
		{name: "read-only without the option asks", answer: Cancel, req: readOnly,
			want: Decision{Asked: true, Reason: Declined}, wantCalls: 1},
		{name: "readOnlyHint false asks", setup: func(p *Policy) { p.AutoAllowReadOnly = true }, answer: Cancel,
			req:  Request{Server: "files", ServerTool: "delete", Annotations: Annotations{ReadOnlyHint: ptr(false)}},
			want: Decision{Asked: true, Reason: Declined}, wantCalls: 1},
		{name: "readOnlyHint unset asks", setup: func(p *Policy) { p.AutoAllowReadOnly = true }, answer: Cancel, req: req,
			want: Decision{Asked: true, Reason: Declined}, wantCalls: 1},
		{name: "read-only and destructive asks", setup: func(p *Policy) { p.AutoAllowReadOnly = true }, answer: Cancel,
			req:  Request{Server: "files", ServerTool: "delete", Annotations: Annotations{ReadOnlyHint: ptr(true), DestructiveHint: ptr(true)}},
			want: Decision{Asked: true, Reason: Declined}, wantCalls: 1},
		{name: "read-only and explicitly not destructive", setup: func(p *Policy) { p.AutoAllowReadOnly = true }, answer: Cancel,
			req:  Request{Server: "files", ServerTool: "delete", Annotations: Annotations{ReadOnlyHint: ptr(true), DestructiveHint: ptr(false)}},
			want: Decision{Proceed: true, Reason: ReadOnly}},
		{name: "allowed a/b.c does not allow a.b/c", setup: func(p *Policy) { p.Allow(Key{"a", "b.c"}) }, answer: Cancel, req: ab,
			want: Decision{Asked: true, Reason: Declined}, wantCalls: 1, wantAllow: []Key{{"a", "b.c"}}},
		{name: "allowed a.b/c does not allow a/b.c", setup: func(p *Policy) { p.Allow(Key{"a.b", "c"}) }, answer: Cancel, req: a,
			want: Decision{Asked: true, Reason: Declined}, wantCalls: 1, wantAllow: []Key{{"a.b", "c"}}},
		{name: "denied a.b/c does not deny a/b.c", setup: func(p *Policy) { p.Deny(Key{"a.b", "c"}) }, answer: ProceedOnce, req: a,
			want: Decision{Proceed: true, Asked: true, Reason: Approved, Answer: ProceedOnce}, wantCalls: 1},
		{name: "allowed a/b.c", setup: func(p *Policy) { p.Allow(Key{"a", "b.c"}) }, answer: Cancel, req: a,
			want: Decision{Proceed: true, Reason: ToolAllowed}, wantAllow: []Key{{"a", "b.c"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var calls atomic.Int32
			p := &Policy{}
			if !tt.noAsker {
				p.Confirmer = answering(tt.answer, tt.answerErr, &calls)
			}
			if tt.setup != nil {
				tt.setup(p)
			}
			got, err := p.Decide(context.Background(), tt.req)
			if !errors.Is(err, tt.wantErr) || (err == nil) != (tt.wantErr == nil) {
				t.Errorf("Decide(%s) error = %v, want %v", Key{tt.req.Server, tt.req.ServerTool}, err, tt.wantErr)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Decide(%s) mismatch (-want +got):\n%s", Key{tt.req.Server, tt.req.ServerTool}, diff)
			}
			if n := calls.Load(); n != tt.wantCalls {
				t.Errorf("confirmer called %d times, want %d", n, tt.wantCalls)
			}
			want := tt.wantAllow
			if want == nil {
				want = []Key{}
			}
			if diff := cmp.Diff(want, p.AllowList()); diff != "" {
				t.Errorf("AllowList() mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestAlwaysToolThenNoQuestion(t *testing.T) {
	var calls atomic.Int32
	p := &Policy{Confirmer: answering(AlwaysTool, nil, &calls)}
	req := Request{Server: "s", ServerTool: "t"}
	first, _ := p.Decide(context.Background(), req)
	second, _ := p.Decide(context.Background(), req)
	other, _ := p.Decide(context.Background(), Request{Server: "s", ServerTool: "u"})
	got := []Decision{first, second, other}
	want := []Decision{
		{Proceed: true, Asked: true, Reason: Approved, Answer: AlwaysTool},
		{Proceed: true, Reason: ToolAllowed},
		{Proceed: true, Asked: true, Reason: Approved, Answer: AlwaysTool},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("decisions mismatch (-want +got):\n%s", diff)
	}
}

func TestConfirmerSeesRequest(t *testing.T) {
	req := Request{
		Server: "files", Trusted: false, ServerTool: "write file", Name: "write_file",
		Args:        map[string]any{"path": "a.txt", "n": 1.0},
		Description: "Writes a file.",
		Annotations: Annotations{Title: "Write", DestructiveHint: ptr(true), OpenWorldHint: ptr(false)},
	}
	var seen Request
	p := &Policy{Confirmer: ConfirmerFunc(func(ctx context.Context, r Request) (Answer, error) {
		seen = r
		return ProceedOnce, nil
	})}
	if _, err := p.Decide(context.Background(), req); err != nil {
		t.Fatalf("Decide: %v", err)
	}
	if diff := cmp.Diff(req, seen); diff != "" {
		t.Errorf("confirmer request mismatch (-want +got):\n%s", diff)
	}
}

func TestCancelledBeforeAsking(t *testing.T) {
	var calls atomic.Int32
	p := &Policy{Confirmer: answering(ProceedOnce, nil, &calls)}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	d, err := p.Decide(ctx, Request{Server: "s", ServerTool: "t"})
	if !errors.Is(err, context.Canceled) || d != (Decision{}) {
		t.Errorf("Decide(cancelled ctx) = %+v, %v, want zero Decision, context.Canceled", d, err)
	}
	if calls.Load() != 0 {
		t.Errorf("confirmer called %d times with a cancelled context, want 0", calls.Load())
	}
	// A call that needs no asking still gets its decision.
	d, err = p.Decide(ctx, Request{Server: "s", ServerTool: "t", Trusted: true})
	if err != nil || d.Reason != Trusted {
		t.Errorf("Decide(cancelled ctx, trusted) = %+v, %v, want Trusted, nil", d, err)
	}
}

// TestOneAtATime runs many decisions at once, with list changes beside
// them, and checks the confirmer never runs twice at the same time.
func TestOneAtATime(t *testing.T) {
	var active, maxActive, calls atomic.Int32
	p := &Policy{Confirmer: ConfirmerFunc(func(ctx context.Context, req Request) (Answer, error) {
		n := active.Add(1)
		defer active.Add(-1)
		for {
			m := maxActive.Load()
			if n <= m || maxActive.CompareAndSwap(m, n) {
				break
			}
		}
		calls.Add(1)
		time.Sleep(50 * time.Microsecond)
		return ProceedOnce, nil
	})}
	const n = 64
	var wg sync.WaitGroup
	var proceeded atomic.Int32
	for i := range n {
		wg.Go(func() {
			d, err := p.Decide(context.Background(), Request{Server: "s", ServerTool: fmt.Sprint("t", i)})
			if err != nil {
				t.Errorf("Decide(t%d): %v", i, err)
			}
			if d.Proceed {
				proceeded.Add(1)
			}
		})
		wg.Go(func() {
			k := Key{"other", fmt.Sprint("t", i)}
			p.Allow(k)
			p.AllowList()
			p.Revoke(k)
			p.Deny(Key{Server: fmt.Sprint("denied", i)})
			p.DenyList()
		})
	}
	wg.Wait()
	if got := maxActive.Load(); got != 1 {
		t.Errorf("at most %d confirmers ran at once, want 1", got)
	}
	if calls.Load() != n || proceeded.Load() != n {
		t.Errorf("confirmer called %d times, %d proceeded, want %d and %d", calls.Load(), proceeded.Load(), n, n)
	}
}

func TestQueuedRequestsAfterAlwaysTool(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var calls atomic.Int32
		answer := make(chan Answer)
		p := &Policy{Confirmer: ConfirmerFunc(func(ctx context.Context, req Request) (Answer, error) {
			calls.Add(1)
			return <-answer, nil
		})}
		const n = 20
		got := make([]Decision, n)
		var wg sync.WaitGroup
		for i := range n {
			wg.Go(func() { got[i], _ = p.Decide(context.Background(), Request{Server: "s", ServerTool: "t"}) })
		}
		synctest.Wait() // one asking, the others queued for the turn
		if calls.Load() != 1 {
			t.Fatalf("confirmer called %d times while the first question is open, want 1", calls.Load())
		}
		answer <- AlwaysTool
		wg.Wait()
		if calls.Load() != 1 {
			t.Errorf("confirmer called %d times, want 1", calls.Load())
		}
		counts := map[Reason]int{}
		for _, d := range got {
			counts[d.Reason]++
		}
		if diff := cmp.Diff(map[Reason]int{Approved: 1, ToolAllowed: n - 1}, counts); diff != "" {
			t.Errorf("reasons mismatch (-want +got):\n%s", diff)
		}
	})
}

func TestCancelWhileWaitingForTurn(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		answer := make(chan Answer)
		p := &Policy{Confirmer: ConfirmerFunc(func(ctx context.Context, req Request) (Answer, error) {
			return <-answer, nil
		})}
		var wg sync.WaitGroup
		var first Decision
		wg.Go(func() { first, _ = p.Decide(context.Background(), Request{Server: "s", ServerTool: "first"}) })
		synctest.Wait()

		ctx, cancel := context.WithCancel(context.Background())
		var second Decision
		var secondErr error
		wg.Go(func() { second, secondErr = p.Decide(ctx, Request{Server: "s", ServerTool: "second"}) })
		synctest.Wait() // second is waiting for the turn
		cancel()
		synctest.Wait()
		if !errors.Is(secondErr, context.Canceled) || second != (Decision{}) {
			t.Errorf("Decide(second) = %+v, %v, want zero Decision, context.Canceled", second, secondErr)
		}
		answer <- ProceedOnce
		wg.Wait()
		if !first.Proceed {
			t.Errorf("Decide(first) = %+v, want Proceed", first)
		}
	})
}

func TestCancelPendingQuestion(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var calls atomic.Int32
		answer := make(chan Answer)
		// This confirmer ignores ctx, the worst case.
		p := &Policy{Confirmer: ConfirmerFunc(func(ctx context.Context, req Request) (Answer, error) {
			calls.Add(1)
			return <-answer, nil
		})}
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		d, err := p.Decide(ctx, Request{Server: "s", ServerTool: "t"}) // returns after the fake minute
		if !errors.Is(err, context.DeadlineExceeded) || d != (Decision{Asked: true}) {
			t.Errorf("Decide(timed out) = %+v, %v, want {Asked: true}, context.DeadlineExceeded", d, err)
		}

		// The abandoned question still holds the turn: the next request waits.
		var next Decision
		var wg sync.WaitGroup
		wg.Go(func() { next, _ = p.Decide(context.Background(), Request{Server: "s", ServerTool: "t"}) })
		synctest.Wait()
		if calls.Load() != 1 {
			t.Fatalf("confirmer called %d times while an abandoned question is open, want 1", calls.Load())
		}
		answer <- AlwaysTool // late answer to the abandoned question: dropped
		synctest.Wait()
		if calls.Load() != 2 {
			t.Fatalf("confirmer called %d times, want 2 (the late AlwaysTool must not allow-list)", calls.Load())
		}
		answer <- Cancel
		wg.Wait()
		if next.Reason != Declined {
			t.Errorf("Decide(next) = %+v, want Declined", next)
		}
		if got := p.AllowList(); len(got) != 0 {
			t.Errorf("AllowList() = %v, want empty", got)
		}
	})
}

func TestConfirmerHonouringContext(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := &Policy{Confirmer: ConfirmerFunc(func(ctx context.Context, req Request) (Answer, error) {
			<-ctx.Done()
			return AlwaysServer, ctx.Err()
		})}
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		d, err := p.Decide(ctx, Request{Server: "s", ServerTool: "t"})
		if !errors.Is(err, context.DeadlineExceeded) || d.Proceed {
			t.Errorf("Decide = %+v, %v, want no proceed, context.DeadlineExceeded", d, err)
		}
		synctest.Wait()
		if got := p.AllowList(); len(got) != 0 {
			t.Errorf("AllowList() = %v, want empty", got)
		}
	})
}
