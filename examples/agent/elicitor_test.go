package main

import (
	"context"
	"encoding/json"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpgenai/bridge/mcpbridge/elicit"
)

// elicitWith answers e with the console lines input and returns the
// response and what was shown.
func elicitWith(t *testing.T, input string, e elicit.Request) (elicit.Response, string, error) {
	t.Helper()
	lines := newLineReader(strings.NewReader(input))
	defer lines.stop()
	var out strings.Builder
	el := &terminalElicitor{lines: lines, out: &out, mu: &sync.Mutex{}}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	r, err := el.Elicit(ctx, e)
	return r, out.String(), err
}

const profileSchema = `{"type":"object","properties":{
	"name":{"type":"string","title":"Your name"},
	"age":{"type":"integer","default":30},
	"plan":{"type":"string","enum":["free","pro"]},
	"news":{"type":"boolean"},
	"tags":{"type":"array","items":{"enum":["a","b","c"]}}},
	"required":["name"]}`

func TestTerminalElicitorForm(t *testing.T) {
	e := elicit.Request{Server: "shop", ServerTool: "signup", Message: "Tell us about you", Schema: json.RawMessage(profileSchema)}
	// Fields come required first, then by name: name, age, news, plan, tags.
	// age is left to its default; plan is answered wrongly once.
	r, shown, err := elicitWith(t, "a\nAda\n\nyes\nenterprise\npro\na, c\n", e)
	if err != nil {
		t.Fatalf("Elicit() = %v\n%s", err, shown)
	}
	want := elicit.Response{Action: elicit.Accept, Content: map[string]any{
		"name": "Ada", "news": true, "plan": "pro", "tags": []string{"a", "c"},
	}}
	if diff := cmp.Diff(want, r); diff != "" {
		t.Errorf("Elicit() (-want +got):\n%s\nshown:\n%s", diff, shown)
	}
	for _, s := range []string{`MCP server "shop" (tool signup) asks: Tell us about you`, "name – Your name (string, required)", "default 30", `"enterprise" is not one of free | pro`} {
		if !strings.Contains(shown, s) {
			t.Errorf("shown text lacks %q:\n%s", s, shown)
		}
	}
}

// TestTerminalElicitorTitledChoices: the titled selects of the 2025-11-25
// elicitation schema (oneOf/anyOf of const and title, and the legacy
// enumNames) show each value with its title, and take either.
func TestTerminalElicitorTitledChoices(t *testing.T) {
	schema := `{"type":"object","properties":{
		"hero":{"type":"string","oneOf":[{"const":"hero-1","title":"Superman"},{"const":"hero-2","title":"Wonder Woman"}]},
		"fish":{"type":"array","items":{"anyOf":[{"const":"fish-1","title":"Tuna"},{"const":"fish-2","title":"Salmon"}]}},
		"pet":{"type":"string","enum":["pet-1","pet-2"],"enumNames":["Cat","Dog"]}},
		"required":["hero","fish","pet"]}`
	e := elicit.Request{Server: "s", Message: "pick", Schema: json.RawMessage(schema)}
	// Fields by name: fish, hero, pet. hero is answered wrongly once.
	r, shown, err := elicitWith(t, "a\nsalmon, fish-1\nBatman\nwonder woman\npet-2\n", e)
	if err != nil {
		t.Fatalf("Elicit() = %v\n%s", err, shown)
	}
	want := elicit.Response{Action: elicit.Accept, Content: map[string]any{
		"fish": []string{"fish-2", "fish-1"}, "hero": "hero-2", "pet": "pet-2",
	}}
	if diff := cmp.Diff(want, r); diff != "" {
		t.Errorf("Elicit() (-want +got):\n%s\nshown:\n%s", diff, shown)
	}
	for _, s := range []string{
		"one of fish-1 = Tuna, fish-2 = Salmon",
		"one of hero-1 = Superman | hero-2 = Wonder Woman",
		`"Batman" is not one of hero-1 = Superman | hero-2 = Wonder Woman`,
		"one of pet-1 = Cat | pet-2 = Dog",
	} {
		if !strings.Contains(shown, s) {
			t.Errorf("shown text lacks %q:\n%s", s, shown)
		}
	}
}

func TestTerminalElicitorRefusals(t *testing.T) {
	form := elicit.Request{Server: "s", Message: "?", Schema: json.RawMessage(profileSchema)}
	for _, tc := range []struct {
		name, input string
		want        elicit.Action
	}{
		{"decline", "d\n", elicit.Decline},
		{"cancel", "c\n", elicit.Cancel},
		{"end of input", "", elicit.Cancel},
		{"url declined", "decline\n", elicit.Decline},
	} {
		e := form
		if strings.HasPrefix(tc.name, "url") {
			e = elicit.Request{Server: "s", Message: "log in", URL: "https://example.com/login", ID: "1"}
		}
		r, shown, err := elicitWith(t, tc.input, e)
		if err != nil || r.Action != tc.want || r.Content != nil {
			t.Errorf("%s: Elicit() = %+v, %v; want %v\n%s", tc.name, r, err, tc.want, shown)
		}
	}
}

func TestTerminalElicitorURL(t *testing.T) {
	e := elicit.Request{Server: "auth", Message: "Log in", URL: "https://example.com/login", ID: "x"}
	r, shown, err := elicitWith(t, "o\n\n", e)
	if err != nil || r.Action != elicit.Accept {
		t.Fatalf("Elicit(url) = %+v, %v; want accept", r, err)
	}
	if !strings.Contains(shown, "https://example.com/login") || !strings.Contains(shown, "Press Enter") {
		t.Errorf("shown text lacks the URL or the wait:\n%s", shown)
	}

	// The server saying the visit is complete ends the wait without Enter
	// (the input stays open, as a terminal's does).
	pr, pw := io.Pipe()
	defer pw.Close()
	lines := newLineReader(pr)
	defer lines.stop()
	var out strings.Builder
	el := &terminalElicitor{lines: lines, out: &out, mu: &sync.Mutex{}}
	done := make(chan struct{})
	e.Completed = done
	go func() {
		_, _ = pw.Write([]byte("o\n"))
		close(done)
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	r, err = el.Elicit(ctx, e)
	if err != nil || r.Action != elicit.Accept || !strings.Contains(out.String(), "the server says the page is done") {
		t.Errorf("Elicit(url, completed) = %+v, %v; want accept once the server says so\n%s", r, err, out.String())
	}
}
