package live

import (
	"context"
	"errors"
	"testing"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestCancelByID(t *testing.T) {
	var c Calls
	started := make(chan struct{})
	got := make(chan error, 1)
	var cancelled bool
	if !c.Go(func() {
		ctx, end := c.Start(context.Background(), "a")
		close(started)
		<-ctx.Done()
		got <- context.Cause(ctx)
		cancelled = end()
	}) {
		t.Fatal("Go() = false before Close")
	}
	<-started
	if n := c.Cancel([]string{"zzz", "", "a", "a"}); n != 1 {
		t.Errorf("Cancel() = %d, want 1", n)
	}
	if err := <-got; !errors.Is(err, ErrCancelled) {
		t.Errorf("cause = %v, want ErrCancelled", err)
	}
	c.Close()
	if !cancelled {
		t.Error("end() = false for a cancelled call")
	}
	if c.Running() != 0 {
		t.Errorf("Running() = %d after the call ended", c.Running())
	}
}

func TestEndedCallIsNotCancelled(t *testing.T) {
	var c Calls
	ctx, end := c.Start(context.Background(), "a")
	if end() {
		t.Error("end() = true, want false")
	}
	if c.Cancel([]string{"a"}) != 0 || ctx.Err() == nil {
		t.Error("an ended call was cancelled, or its context still lives")
	}
}

func TestClose(t *testing.T) {
	var c Calls
	started := make(chan struct{})
	var cause error
	c.Go(func() {
		ctx, end := c.Start(context.Background(), "")
		close(started)
		<-ctx.Done()
		cause = context.Cause(ctx)
		if !end() {
			t.Error("end() = false after Close, want true: its result is not wanted")
		}
	})
	<-started
	c.Close()
	if !errors.Is(cause, ErrClosed) {
		t.Errorf("cause = %v, want ErrClosed", cause)
	}
	if c.Go(func() { t.Error("ran after Close") }) {
		t.Error("Go() = true after Close")
	}
	ctx, end := c.Start(context.Background(), "b")
	if !errors.Is(context.Cause(ctx), ErrClosed) || !end() {
		t.Error("Start after Close gave a live context")
	}
	c.Close()
}
