package live

import (
	"context"
	"errors"
	"testing"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

var (
	errCancelled = errors.New("cancelled by the test")
	errClosed    = errors.New("closed by the test")
)

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
	if n := c.Cancel([]string{"zzz", "", "a", "a"}, errCancelled); n != 1 {
		t.Errorf("Cancel() = %d, want 1", n)
	}
	if err := <-got; !errors.Is(err, errCancelled) {
		t.Errorf("cause = %v, want the cause given to Cancel", err)
	}
	c.Close(errClosed)
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
	if c.Cancel([]string{"a"}, errCancelled) != 0 || ctx.Err() == nil {
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
	c.Close(errClosed)
	if !errors.Is(cause, errClosed) {
		t.Errorf("cause = %v, want the cause given to Close", cause)
	}
	if c.Go(func() { t.Error("ran after Close") }) {
		t.Error("Go() = true after Close")
	}
	ctx, end := c.Start(context.Background(), "b")
	if !errors.Is(context.Cause(ctx), errClosed) || !end() {
		t.Error("Start after Close gave a live context")
	}
	c.Close(errCancelled)
	if _, end := c.Start(context.Background(), "c"); !end() {
		t.Error("Start after a second Close gave a live context")
	}
	if ctx, _ := c.Start(context.Background(), "d"); !errors.Is(context.Cause(ctx), errClosed) {
		t.Errorf("after a second Close the cause = %v, want the first", context.Cause(ctx))
	}
}
