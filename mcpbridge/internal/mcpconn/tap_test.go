package mcpconn

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
)

// TestTapKeepsWhatClientLoses shows why the tap exists: on the same
// connection, mcp-go's decoded tools/list drops the raw schema's top-level
// anyOf and $schema, while ListTools keeps them.
func TestTapKeepsWhatClientLoses(t *testing.T) {
	c := dialT(t, stdioSpec())
	ctx := context.Background()
	res, err := c.client.ListTools(ctx, mcp.ListToolsRequest{})
	if err != nil {
		t.Fatalf("client.ListTools() = %v", err)
	}
	var lossy string
	for _, tool := range res.Tools {
		if tool.Name == "raw" {
			b, err := json.Marshal(tool.InputSchema)
			if err != nil {
				t.Fatal(err)
			}
			lossy = string(b)
		}
	}
	if strings.Contains(lossy, "anyOf") {
		t.Logf("mcp-go kept anyOf (%s); the tap is still needed for exact bytes", lossy)
	}
	tools, err := c.ListTools(ctx)
	if err != nil {
		t.Fatalf("ListTools() = %v", err)
	}
	for _, tool := range tools {
		if tool.Name == "raw" {
			for _, k := range []string{`"anyOf"`, `"$schema"`, `"description"`} {
				if !strings.Contains(string(tool.InputSchema), k) {
					t.Errorf("ListTools() raw schema = %s, want %s", tool.InputSchema, k)
				}
			}
			t.Logf("mcp-go decoded: %s\nraw: %s", lossy, tool.InputSchema)
			return
		}
	}
	t.Fatalf("no raw tool")
}

func TestCaptureMatchesMethod(t *testing.T) {
	ctx, cp := withCapture(context.Background(), "tools/list")
	if _, ok := cp.result(); ok {
		t.Fatalf("new capture has a result")
	}
	if got := ctx.Value(captureKey{}); got != cp {
		t.Errorf("ctx.Value(captureKey{}) = %v, want the capture", got)
	}
}
