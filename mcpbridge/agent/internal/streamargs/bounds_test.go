package streamargs

import (
	"testing"

	"github.com/mcpgenai/bridge/mcpbridge/internal/args"
)

// TestBoundsAgree: arguments streamed in pieces are bounded as those of a
// call that comes whole (mcpbridge's Execute), counted the same way.
func TestBoundsAgree(t *testing.T) {
	if DefaultMaxBytes != args.MaxBytes {
		t.Errorf("DefaultMaxBytes = %d, want Execute's bound %d", DefaultMaxBytes, args.MaxBytes)
	}
}
