package mcpbridge

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestStatusToolDescriptions checks that the status of a real server
// carries its tools' descriptions, whole, under their registered names.
func TestStatusToolDescriptions(t *testing.T) {
	b := newBridge(t, nil, stdioServer("first", "-tools=1"), stdioServer("second", "-tools=1"))
	discover(t, b)
	st := b.Status()
	for i, prefix := range []string{"", "second__"} {
		want := map[string]string{
			prefix + "tool_00": "numbered tool tool_00",
			prefix + "echo":    "echoes its arguments",
			prefix + "raw":     "tool with a raw schema",
		}
		got := st.Servers[i].ToolDescriptions
		for name := range got {
			if _, ok := want[name]; !ok {
				delete(got, name) // tools the test does not look at
			}
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("server %s ToolDescriptions (-want +got):\n%s", st.Servers[i].Name, diff)
		}
		for name := range st.Servers[i].ToolDescriptions {
			if !strings.HasPrefix(name, prefix) {
				t.Errorf("server %s: description under %q, not a registered name", st.Servers[i].Name, name)
			}
		}
	}
	text := new(strings.Builder)
	if err := st.WriteText(text, &TextOptions{Descriptions: true}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(text.String(), "    - second__echo: echoes its arguments\n") {
		t.Errorf("WriteText(Descriptions) lacks second__echo's line:\n%s", text)
	}
}
