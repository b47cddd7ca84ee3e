package mcpbridge

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"testing"

	"github.com/mcpgenai/bridge/mcpbridge/elicit"
	"github.com/mcpgenai/bridge/mcpbridge/internal/testserver"
	"github.com/mcpgenai/bridge/mcpbridge/sampling"
)

// The host's own credentials of the tests: a Gemini API key given in code
// (Options.Secrets), one in the host's environment, and a token another
// server is configured with.
const (
	codeKey    = "AIzaSyTEST-code-key-0123456789abcdefgh"
	envKey     = "AIzaSyTEST-env-key-9876543210zyxwvuts"
	otherToken = "other-server-token-5f2c9a7e1b"
)

// answering is a host whose person and model both answer with text.
type answering struct{ text string }

func (a answering) elicit(context.Context, elicit.Request) (elicit.Response, error) {
	return elicit.Response{Action: elicit.Accept, Content: map[string]any{"value": a.text}}, nil
}
func (a answering) ChooseModel(*sampling.Request) string { return "m" }
func (a answering) Sample(context.Context, *sampling.Request) (*sampling.Result, error) {
	return &sampling.Result{Content: []sampling.Content{{Type: "text", Text: a.text}}, Model: "m", StopReason: "endTurn"}, nil
}

// TestHostCredentialsNeverSent: the host's credentials (in code, in its
// environment) and another server's token never reach a server, whatever
// carries them there: a model's call arguments, a person's answer to a
// form, the host model's answer to a sampling request. Over stdio and
// streamable HTTP in both eras; the server reports what it received.
func TestHostCredentialsNeverSent(t *testing.T) {
	t.Setenv("GEMINI_API_KEY", envKey)
	text := "keys " + codeKey + " " + envKey + " " + otherToken
	want := testserver.Reverse("keys *** *** ***")
	other := stdioServer("other")
	other.Env = map[string]string{"OTHER_API_TOKEN": otherToken}
	for _, srv := range hostileServers(t) {
		t.Run(srv.Name, func(t *testing.T) {
			a := answering{text}
			b := newBridge(t, &Options{Secrets: []string{codeKey}, Client: &ClientFeatures{
				Elicit: a.elicit, Sampling: &Sampling{Sampler: a},
			}}, srv, other)
			discover(t, b)
			for _, tc := range []struct {
				tool string
				args map[string]any
			}{
				{"mirror", map[string]any{"text": text}},
				{"mirror_answer", map[string]any{"kind": "form"}},
				{"mirror_answer", map[string]any{"kind": "sample"}},
			} {
				if got := execText(t, b, srv.Name, tc.tool, tc.args); got != want {
					t.Errorf("%s %v: the server got %q, want %q", tc.tool, tc.args, testserver.Reverse(got), "keys *** *** ***")
				}
			}
		})
	}
}

// TestReviewErrorFixed: a Review that fails with a reason of the host's
// (a local path) fails the sampling request; the server reads a fixed
// message, and the reason reaches only the host's log.
func TestReviewErrorFixed(t *testing.T) {
	const reason = "open /home/ada/.review.sock: permission denied"
	for _, srv := range hostileServers(t) {
		t.Run(srv.Name, func(t *testing.T) {
			logs := &records{}
			review := func(context.Context, *sampling.Request, *sampling.Result) error { return errors.New(reason) }
			b := newBridge(t, &Options{Logger: slog.New(logs), Client: &ClientFeatures{
				Sampling: &Sampling{Sampler: answering{"hi"}, Review: review},
			}}, srv)
			discover(t, b)
			r := runTool(t, b, srv.Name, "mirror_answer", map[string]any{"kind": "sample"})
			if r.Err == nil || strings.Contains(r.Err.Error(), "/home/ada") || !strings.Contains(r.Err.Error(), "the client could not review the sampling request") {
				t.Errorf("mirror_answer(sample) = %q, %v; want the fixed message, not the reason", r.ReturnDisplay, r.Err)
			}
			if len(logs.find(srv.Name, "not approved by the review")) == 0 {
				t.Errorf("the host's log has no record of the review's failure")
			}
			found := false
			logs.mu.Lock()
			for _, rec := range logs.recs {
				rec.Attrs(func(a slog.Attr) bool {
					found = found || strings.Contains(a.Value.String(), reason)
					return true
				})
			}
			logs.mu.Unlock()
			if !found {
				t.Errorf("the host's log does not hold the review's reason %q", reason)
			}
		})
	}
}

// TestReviewSeesCleanText: the review, where a person sees a sampling
// request and its answer, gets the server's prompt and the model's answer
// cleaned for a terminal, and the server gets the answer as approved.
func TestReviewSeesCleanText(t *testing.T) {
	for _, srv := range hostileServers(t) {
		t.Run(srv.Name, func(t *testing.T) {
			var seen []string
			review := func(_ context.Context, req *sampling.Request, res *sampling.Result) error {
				if res == nil {
					seen = append(seen, req.Messages[0].Content[0].Text)
				} else {
					seen = append(seen, res.Content[0].Text)
				}
				return nil
			}
			b := newBridge(t, &Options{Client: &ClientFeatures{
				Sampling: &Sampling{Sampler: answering{testserver.Dirty}, Review: review},
			}}, srv)
			discover(t, b)
			got := execText(t, b, srv.Name, "mirror_answer", map[string]any{"kind": "sample", "prompt": testserver.Dirty})
			if got != testserver.Reverse(testserver.DirtyClean) {
				t.Errorf("the server got %q, want the approved %q", testserver.Reverse(got), testserver.DirtyClean)
			}
			if len(seen) != 2 || seen[0] != testserver.DirtyClean || seen[1] != testserver.DirtyClean {
				t.Errorf("the review saw %q, want the prompt and the answer cleaned", seen)
			}
		})
	}
}
