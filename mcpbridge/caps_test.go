package mcpbridge

import (
	"context"
	"strings"
	"testing"
	"unicode/utf8"

	"google.golang.org/genai"

	"github.com/mcpgenai/bridge/mcpbridge/internal/secrets"
)

// TestResultCaps: inline data past BinaryLimit is replaced by a note, and
// a huge display is cut at displayLimit.
func TestResultCaps(t *testing.T) {
	main := stdioServer("main", "-exec")
	main.Trust = true
	b := newBridge(t, &Options{BinaryLimit: 4}, main)
	discover(t, b)
	r := b.Execute(context.Background(), &genai.FunctionCall{Name: "image"})
	if r.Err != nil {
		t.Fatalf("Execute(image) = %v", r.Err)
	}
	var note string
	for _, p := range r.LLMContent {
		if p.InlineData != nil {
			t.Errorf("Execute(image) kept %d bytes of inline data past a 4-byte limit", len(p.InlineData.Data))
		}
		if strings.Contains(p.Text, "left out") {
			note = p.Text
		}
	}
	if note != "[image/png content of 8 bytes left out: the result's binary content is limited to 4 bytes]" {
		t.Errorf("Execute(image) note = %q", note)
	}

}

// TestCapDisplay: ReturnDisplay leaves the Bridge within its limit, cut
// at a character boundary with a note saying how much was cut.
func TestCapDisplay(t *testing.T) {
	r := &CallResult{ReturnDisplay: strings.Repeat("é", displayLimit)} // 2 MiB of two-byte runes
	redactor{secrets.NewKeyring(secrets.New(secrets.Config{}))}.redactResult(r)
	d := r.ReturnDisplay
	if n := len(d); n > displayLimit || !strings.HasSuffix(d, " more bytes not shown]") || !utf8.ValidString(d) {
		t.Errorf("redactResult display = %d bytes ending %q, want the limit, valid UTF-8 and a note", n, d[max(0, len(d)-40):])
	}
}
