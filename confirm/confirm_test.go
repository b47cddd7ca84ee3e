package confirm

import (
	"context"
	"testing"
)

func TestStrings(t *testing.T) {
	tests := []struct {
		name string
		v    interface{ String() string }
		want string
	}{
		{"server key", Key{Server: "a.b"}, `server "a.b"`},
		{"tool key", Key{"a", "b.c"}, `server "a" tool "b.c"`},
		{"cancel", Cancel, "cancel"},
		{"proceed once", ProceedOnce, "proceed_once"},
		{"always tool", AlwaysTool, "always_tool"},
		{"always server", AlwaysServer, "always_server"},
		{"unknown answer", Answer(9), "Answer(9)"},
		{"unanswered", Unanswered, "not confirmed"},
		{"denied", Denied, "denied by policy"},
		{"trusted", Trusted, "server is trusted"},
		{"server allowed", ServerAllowed, "server is on the allow-list"},
		{"tool allowed", ToolAllowed, "tool is on the allow-list"},
		{"read-only", ReadOnly, "tool is annotated read-only"},
		{"approved", Approved, "approved by the user"},
		{"declined", Declined, "cancelled by the user"},
		{"unknown reason", Reason(-1), "Reason(-1)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.v.String(); got != tt.want {
				t.Errorf("%#v.String() = %q, want %q", tt.v, got, tt.want)
			}
		})
	}
}

func TestZeroValuesAreSafe(t *testing.T) {
	var a Answer
	if a != Cancel {
		t.Errorf("zero Answer = %v, want %v", a, Cancel)
	}
	var d Decision
	if d.Proceed || d.Reason != Unanswered {
		t.Errorf("zero Decision = %+v, want no proceed, Unanswered", d)
	}
}

func TestConfirmerFunc(t *testing.T) {
	var c Confirmer = ConfirmerFunc(func(ctx context.Context, req Request) (Answer, error) {
		if req.ServerTool == "ok" {
			return AlwaysServer, nil
		}
		return Cancel, nil
	})
	if got, err := c.Confirm(context.Background(), Request{ServerTool: "ok"}); got != AlwaysServer || err != nil {
		t.Errorf("Confirm(ok) = %v, %v, want %v, nil", got, err, AlwaysServer)
	}
}
