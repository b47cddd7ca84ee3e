package mcpbridge

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpgenai/bridge/mcpbridge/internal/mcpconn"
)

// TestPromptListReads: when the list is read, and what is kept.
func TestPromptListReads(t *testing.T) {
	ctx := context.Background()
	connA, connB := &mcpconn.Conn{}, &mcpconn.Conn{}
	one := []Prompt{{Server: "s", Name: "one", Arguments: []PromptArgument{{Name: "a"}}}}
	errRead := errors.New("read failed")
	tests := []struct {
		name      string
		steps     func(p *promptList, get func(*mcpconn.Conn) ([]Prompt, error))
		wantReads int
	}{
		{"kept after the first read", func(p *promptList, get func(*mcpconn.Conn) ([]Prompt, error)) {
			_, _ = get(connA)
			_, _ = get(connA)
		}, 1},
		{"read again after a change", func(p *promptList, get func(*mcpconn.Conn) ([]Prompt, error)) {
			_, _ = get(connA)
			p.changed()
			_, _ = get(connA)
			_, _ = get(connA)
		}, 2},
		{"read again on a new connection", func(p *promptList, get func(*mcpconn.Conn) ([]Prompt, error)) {
			_, _ = get(connA)
			_, _ = get(connB)
			_, _ = get(connB)
		}, 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var p promptList
			reads := 0
			tc.steps(&p, func(c *mcpconn.Conn) ([]Prompt, error) {
				return p.get(ctx, c, func(context.Context) ([]Prompt, error) {
					reads++
					return one, nil
				})
			})
			if reads != tc.wantReads {
				t.Errorf("reads = %d, want %d", reads, tc.wantReads)
			}
		})
	}

	t.Run("failed read not kept", func(t *testing.T) {
		var p promptList
		reads := 0
		read := func(context.Context) ([]Prompt, error) {
			reads++
			if reads == 1 {
				return nil, errRead
			}
			return one, nil
		}
		if _, err := p.get(ctx, connA, read); !errors.Is(err, errRead) {
			t.Fatalf("first get() = %v, want %v", err, errRead)
		}
		got, err := p.get(ctx, connA, read)
		if err != nil || reads != 2 {
			t.Fatalf("second get() = %v, %v after %d reads; want the list from a second read", got, err, reads)
		}
		if diff := cmp.Diff(one, got); diff != "" {
			t.Errorf("second get() (-want +got):\n%s", diff)
		}
	})

	t.Run("change during a read discards it", func(t *testing.T) {
		var p promptList
		reads := 0
		read := func(context.Context) ([]Prompt, error) {
			reads++
			if reads == 1 {
				p.changed() // the notification arrives while the first read is under way
			}
			return one, nil
		}
		_, _ = p.get(ctx, connA, read)
		_, _ = p.get(ctx, connA, read)
		_, _ = p.get(ctx, connA, read)
		if reads != 2 {
			t.Errorf("reads = %d, want 2 (the first one's list was not kept)", reads)
		}
	})

	t.Run("copies handed out", func(t *testing.T) {
		var p promptList
		read := func(context.Context) ([]Prompt, error) { return clonePrompts(one), nil }
		got, _ := p.get(ctx, connA, read)
		got[0].Name = "edited"
		got[0].Arguments[0].Name = "edited"
		again, _ := p.get(ctx, connA, read)
		if diff := cmp.Diff(one, again); diff != "" {
			t.Errorf("get() after editing an earlier result (-want +got):\n%s", diff)
		}
	})

	t.Run("concurrent gets share one read", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			var p promptList
			release := make(chan struct{})
			reads := 0 // only the first get reads; the race detector checks that
			read := func(context.Context) ([]Prompt, error) {
				reads++
				<-release
				return one, nil
			}
			const gets = 5
			errs := make(chan error, gets)
			for range gets {
				go func() {
					got, err := p.get(ctx, connA, read)
					if err == nil && len(got) != 1 {
						err = errors.New("wrong list")
					}
					errs <- err
				}()
			}
			synctest.Wait() // every get is reading or waiting for the read
			close(release)
			for range gets {
				if err := <-errs; err != nil {
					t.Errorf("get() = %v", err)
				}
			}
			if reads != 1 {
				t.Errorf("reads = %d, want 1", reads)
			}
		})
	})

	t.Run("waiting ends with ctx", func(t *testing.T) {
		var p promptList
		release := make(chan struct{})
		started := make(chan struct{})
		done := make(chan struct{})
		go func() {
			defer close(done)
			_, _ = p.get(ctx, connA, func(context.Context) ([]Prompt, error) {
				close(started)
				<-release
				return one, nil
			})
		}()
		<-started
		cctx, cancel := context.WithCancel(ctx)
		cancel()
		_, err := p.get(cctx, connA, func(context.Context) ([]Prompt, error) {
			t.Error("second read started while the first was under way")
			return one, nil
		})
		if !errors.Is(err, context.Canceled) {
			t.Errorf("get(cancelled ctx) = %v, want context.Canceled", err)
		}
		close(release)
		<-done
	})
}
