package registry

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestQualifiedName(t *testing.T) {
	long := strings.Repeat("abcdefghij", 8)
	for _, tc := range []struct{ server, tool, want string }{
		{"github", "create_issue", "mcp_github_create_issue"},
		{"my server", "read/file", "mcp_my_server_read_file"},
		{"mcp_tools", "x", "mcp_tools_x"}, // already starts with mcp_, as in Gemini CLI
		{"a:b", "c.d-e", "mcp_a_b_c.d-e"},
		{"日本", "ツール", "mcp_" + "______"}, // one "_" per character, the separator included
		{"s", long, "mcp_s_" + long[:24] + "..." + long[len(long)-30:]},
		{"", "", "mcp__"},
	} {
		got := QualifiedName(tc.server, tc.tool)
		if got != tc.want {
			t.Errorf("QualifiedName(%q, %q) = %q, want %q", tc.server, tc.tool, got, tc.want)
		}
		if !ValidName(got) || len(got) > MaxNameLen {
			t.Errorf("QualifiedName(%q, %q) = %q: not a valid name of at most 63 characters", tc.server, tc.tool, got)
		}
	}
}

// TestQualifiedScheme: every tool is named mcp_<server>_<tool>, so no
// server's tool is prefixed for another's; names that still coincide
// ("a_b"/"c" against "a"/"b_c") get a stable hash, whatever the arrival
// order.
func TestQualifiedScheme(t *testing.T) {
	in := servers{
		{"a", []string{"fetch", "b_c"}},
		{"b", []string{"fetch"}},
		{"a_b", []string{"c"}},
	}
	order := []string{"a", "b", "a_b"}
	r := registerScheme(order, in, QualifiedNames)
	var got []string
	for _, e := range r.Entries() {
		got = append(got, e.Name+" "+e.Reason.String())
	}
	want := []string{
		"mcp_a_b_c qualified",
		"mcp_a_b_c_" + hex8("a_b", "c") + " hashed",
		"mcp_a_fetch qualified",
		"mcp_b_fetch qualified",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("entries (-want +got):\n%s", diff)
	}
	reversed := servers{in[2], in[1], in[0]}
	if diff := cmp.Diff(r.Entries(), registerScheme(order, reversed, QualifiedNames).Entries()); diff != "" {
		t.Errorf("entries depend on arrival order (-want +got):\n%s", diff)
	}
	if e, ok := r.Lookup("mcp_b_fetch"); !ok || e.Server != "b" || e.ServerTool != "fetch" || !e.Renamed() {
		t.Errorf("Lookup(mcp_b_fetch) = %v, %v", e, ok)
	}
}
