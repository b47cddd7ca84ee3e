package mcpbridge

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/mcpgenai/bridge/mcpbridge/elicit"
	"github.com/mcpgenai/bridge/mcpbridge/internal/result"
	"github.com/mcpgenai/bridge/mcpbridge/internal/testserver"
	"github.com/mcpgenai/bridge/mcpbridge/sampling"
)

// hostileServers are the hostile test server over stdio and streamable
// HTTP, in both protocol eras, with the sampling tools (and task tools
// before 2026-07-28).
func hostileServers(t *testing.T) []ServerConfig {
	return eachWay(t, testserver.Options{Hostile: true, Sample: true, Tasks: testserver.Tasks{On: true}}, "-hostile", "-sample", "-tasks")
}

// eachWay is the test server with o over stdio (flags) and streamable
// HTTP, each in both protocol eras, trusted: "stdio-legacy",
// "stdio-modern", "http-legacy", "http-modern".
func eachWay(t *testing.T, o testserver.Options, flags ...string) []ServerConfig {
	t.Helper()
	var out []ServerConfig
	for _, era := range []testserver.Era{testserver.EraLegacy, testserver.EraModern} {
		out = append(out, stdioServer("stdio-"+era.String(), append(slices.Clip(flags), "-era="+era.String())...))
	}
	for _, era := range []testserver.Era{testserver.EraLegacy, testserver.EraModern} {
		o.Era = era
		s, _ := httpServer(t, "http-"+era.String(), TransportHTTP, o)
		out = append(out, s)
	}
	for i := range out {
		out[i].Trust = true
	}
	return out
}

// askedForms records the questions put to the host and answers each
// with answer.
type askedForms struct {
	mu     sync.Mutex
	asked  []elicit.Request
	answer elicit.Response
}

func (a *askedForms) elicit(_ context.Context, e elicit.Request) (elicit.Response, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.asked = append(a.asked, e)
	return a.answer, nil
}

// take returns the questions asked so far and forgets them.
func (a *askedForms) take() []elicit.Request {
	a.mu.Lock()
	defer a.mu.Unlock()
	out := a.asked
	a.asked = nil
	return out
}

// askCounter is a host that answers every question and counts them by
// kind: forms, pages to visit, sampling requests.
type askCounter struct {
	forms, pages, samples atomic.Int32
}

func (a *askCounter) elicit(_ context.Context, e elicit.Request) (elicit.Response, error) {
	if e.URL != "" {
		a.pages.Add(1)
		return elicit.Response{Action: elicit.Accept}, nil
	}
	a.forms.Add(1)
	return elicit.Response{Action: elicit.Accept, Content: map[string]any{"value": "x"}}, nil
}

func (a *askCounter) ChooseModel(*sampling.Request) string { return "counter-1" }
func (a *askCounter) Sample(context.Context, *sampling.Request) (*sampling.Result, error) {
	a.samples.Add(1)
	return &sampling.Result{Content: []sampling.Content{{Type: "text", Text: "ok"}}, Model: "counter-1", StopReason: "endTurn"}, nil
}

// features returns the client features of a, with limits.
func (a *askCounter) features(limits QuestionLimits) *ClientFeatures {
	return &ClientFeatures{
		Elicit:   a.elicit,
		Sampling: &Sampling{Sampler: a, PerMinute: 1000},
		Roots:    []Root{{URI: "file:///tmp/work"}},
		Limits:   limits,
	}
}

// count returns how many questions of kind the host answered; roots are
// answered without the host, so -1.
func (a *askCounter) count(kind string) int32 {
	switch kind {
	case "form":
		return a.forms.Load()
	case "url":
		return a.pages.Load()
	case "sample":
		return a.samples.Load()
	}
	return -1
}

// stillUsable fails t unless the server s of b still answers a call.
func stillUsable(t *testing.T, b *Bridge, s string) {
	t.Helper()
	if got := execText(t, b, s, "shout", map[string]any{"text": "still here"}); got != "still here" {
		t.Errorf("after the refusal, shout = %q, want the connection usable", got)
	}
}

// TestQuestionBounds: every kind of question a server may ask (form, URL,
// sampling, roots) is bounded per tool call, over stdio and streamable
// HTTP in both eras: within the bound the call goes through; past it the
// host is asked no more, the call fails with ErrTooManyQuestions saying
// which bound, and the connection stays usable.
//
// Before 2026-07-28, questions the server sent all at once arrive even
// after the call they flooded has ended, and over stdio they count for
// whatever call is in flight then: each flood gets a Bridge of its own,
// and the connection is shown usable after a flood of questions sent one
// after the other, which stops at the refusal.
func TestQuestionBounds(t *testing.T) {
	for _, srv := range hostileServers(t) {
		legacy := strings.HasSuffix(srv.Name, "legacy")
		t.Run(srv.Name, func(t *testing.T) {
			for _, kind := range []string{"form", "url", "sample", "roots"} {
				t.Run(kind, func(t *testing.T) {
					var a askCounter
					b := newBridge(t, &Options{Client: a.features(QuestionLimits{PerCall: 3, PerMinute: -1})}, srv)
					discover(t, b)
					if got := execText(t, b, srv.Name, "ask_many", map[string]any{"kind": kind, "n": 3}); got != "answered 3" {
						t.Errorf("ask_many(%s, 3) = %q, want answered 3", kind, got)
					}
					before := a.count(kind)
					r := runTool(t, b, srv.Name, "ask_many", map[string]any{"kind": kind, "n": 8})
					if !errors.Is(r.Err, ErrTooManyQuestions) || !strings.Contains(r.Err.Error(), "more than 3") {
						t.Errorf("ask_many(%s, 8) = %q, %v; want ErrTooManyQuestions naming the bound of 3", kind, r.ReturnDisplay, r.Err)
					}
					if n := a.count(kind) - before; n > 3 {
						t.Errorf("ask_many(%s, 8): the host answered %d, want at most 3", kind, n)
					}
					if !legacy {
						stillUsable(t, b, srv.Name)
					}
				})
			}
			if !legacy {
				return
			}
			t.Run("one after the other", func(t *testing.T) {
				var a askCounter
				b := newBridge(t, &Options{Client: a.features(QuestionLimits{PerCall: 3, PerMinute: -1})}, srv)
				discover(t, b)
				r := runTool(t, b, srv.Name, "ask_loop", map[string]any{"kind": "form", "n": 50})
				if !errors.Is(r.Err, ErrTooManyQuestions) {
					t.Errorf("ask_loop(50) = %q, %v; want ErrTooManyQuestions", r.ReturnDisplay, r.Err)
				}
				if n := a.forms.Load(); n != 3 {
					t.Errorf("ask_loop(50): the host answered %d, want 3", n)
				}
				stillUsable(t, b, srv.Name)
			})
			t.Run("pages named by a refusal", func(t *testing.T) {
				var a askCounter
				b := newBridge(t, &Options{Client: a.features(QuestionLimits{PerCall: 3, PerMinute: -1})}, srv)
				discover(t, b)
				r := runTool(t, b, srv.Name, "url_pages", map[string]any{"n": 50})
				if !errors.Is(r.Err, ErrTooManyQuestions) || !errors.Is(r.Err, ErrURLElicitation) || a.pages.Load() != 0 {
					t.Errorf("url_pages(50) = %v, host asked %d times; want ErrTooManyQuestions and nobody asked", r.Err, a.pages.Load())
				}
				stillUsable(t, b, srv.Name)
			})
		})
	}
}

// TestQuestionsPerMinute: past the bound per minute the server's
// questions are refused whatever call they come with, and the call says
// so.
func TestQuestionsPerMinute(t *testing.T) {
	for _, srv := range hostileServers(t) {
		t.Run(srv.Name, func(t *testing.T) {
			var a askCounter
			b := newBridge(t, &Options{Client: a.features(QuestionLimits{PerCall: -1, PerMinute: 4})}, srv)
			discover(t, b)
			r := runTool(t, b, srv.Name, "ask_many", map[string]any{"kind": "form", "n": 6})
			if !errors.Is(r.Err, ErrTooManyQuestions) || !strings.Contains(r.Err.Error(), "in a minute") {
				t.Errorf("ask_many(6) = %q, %v; want ErrTooManyQuestions per minute", r.ReturnDisplay, r.Err)
			}
			if n := a.forms.Load(); n > 4 {
				t.Errorf("the host answered %d forms, want at most 4", n)
			}
			if !strings.HasSuffix(srv.Name, "legacy") { // see TestQuestionBounds
				r = runTool(t, b, srv.Name, "ask_many", map[string]any{"kind": "form", "n": 1})
				if !errors.Is(r.Err, ErrTooManyQuestions) {
					t.Errorf("ask_many(1) in the same minute = %q, %v; want ErrTooManyQuestions", r.ReturnDisplay, r.Err)
				}
				stillUsable(t, b, srv.Name)
			}
		})
	}
}

// TestFormsChecked: a form outside the specification's restricted schema,
// or past its bounds, never reaches the host: the server is refused, the
// call fails, the connection stays usable. A form's text reaches the host
// cleaned, and its defaults apply cleaned.
func TestFormsChecked(t *testing.T) {
	for _, srv := range hostileServers(t) {
		t.Run(srv.Name, func(t *testing.T) {
			a := &askedForms{answer: elicit.Response{Action: elicit.Accept, Content: map[string]any{}}}
			b := newBridge(t, &Options{Client: &ClientFeatures{Elicit: a.elicit}}, srv)
			discover(t, b)
			for _, which := range []string{"huge_message", "huge_schema", "many_fields", "nested", "bad_name"} {
				r := runTool(t, b, srv.Name, "bad_form", map[string]any{"which": which})
				if r.Err == nil {
					t.Errorf("bad_form(%s) = %q, want the call to fail", which, r.ReturnDisplay)
				}
			}
			if asked := a.take(); len(asked) > 0 {
				t.Errorf("the host was shown %d bad forms, want none", len(asked))
			}

			got := execText(t, b, srv.Name, "dirty_form", nil)
			if got != `got {"name":"`+testserver.DirtyClean+`"}` {
				t.Errorf("dirty_form = %q, want the cleaned default", got)
			}
			asked := a.take()
			if len(asked) != 1 {
				t.Fatalf("dirty_form asked %d times, want once", len(asked))
			}
			q := asked[0]
			if q.Message != testserver.DirtyClean {
				t.Errorf("elicit.Request.Message = %q, want %q", q.Message, testserver.DirtyClean)
			}
			var form any
			if err := json.Unmarshal(q.Schema, &form); err != nil {
				t.Fatal(err)
			}
			n := 0
			walkStrings(form, func(s string) {
				if result.CleanText(s, -1) != s {
					t.Errorf("elicit.Request.Schema holds %q", s)
				}
				if s == testserver.DirtyClean {
					n++
				}
			})
			if n != 5 { // title, description, default, a choice's title, an enumName
				t.Errorf("elicit.Request.Schema = %s: %d cleaned texts, want 5", q.Schema, n)
			}
			stillUsable(t, b, srv.Name)
		})
	}
}

// walkStrings calls fn with every string and key in v.
func walkStrings(v any, fn func(string)) {
	switch v := v.(type) {
	case string:
		fn(v)
	case map[string]any:
		for k, e := range v {
			fn(k)
			walkStrings(e, fn)
		}
	case []any:
		for _, e := range v {
			walkStrings(e, fn)
		}
	}
}

// TestShownTextCleaned: what a person sees of a server's text (a result's
// display, a call's error, progress messages, a task's status messages
// and its result or error) reaches the host without escape sequences or
// bidirectional overrides, over stdio and streamable HTTP in both eras.
func TestShownTextCleaned(t *testing.T) {
	servers := hostileServers(t)
	servers = append(servers,
		ServerConfig{Name: "t26-stdio", Command: mcptest, Args: []string{"-tasks26"}, Trust: true},
		ServerConfig{Name: "t26-http", HTTPURL: testserver.ServeTasks26HTTP(t, testserver.NewTasks26()), Trust: true})
	dirty := func(s string) bool { return strings.ContainsAny(s, "\x1b\u202e\a") }
	for _, srv := range servers {
		t.Run(srv.Name, func(t *testing.T) {
			var mu sync.Mutex
			var notes []string
			b := newBridge(t, &Options{OnProgress: func(p Progress) {
				mu.Lock()
				notes = append(notes, p.Message)
				mu.Unlock()
			}}, srv)
			discover(t, b)
			check := func(tool string, wantErr bool) {
				t.Helper()
				r := runTool(t, b, srv.Name, tool, nil)
				if (r.Err != nil) != wantErr {
					t.Errorf("%s: Err = %v, want an error: %v", tool, r.Err, wantErr)
				}
				if dirty(r.ReturnDisplay) || r.Err != nil && dirty(r.Err.Error()) {
					t.Errorf("%s: display %q, error %v: escape sequences left", tool, r.ReturnDisplay, r.Err)
				}
				if !strings.Contains(r.ReturnDisplay, testserver.DirtyClean) && (r.Err == nil || !strings.Contains(r.Err.Error(), testserver.DirtyClean)) {
					t.Errorf("%s: display %q, error %v: want the cleaned text %q", tool, r.ReturnDisplay, r.Err, testserver.DirtyClean)
				}
			}
			if strings.HasPrefix(srv.Name, "t26") {
				check("shout", false)
				check("shout_fail", true)
			} else {
				check("shout", false)
				check("shout_error", true)
				if strings.HasSuffix(srv.Name, "legacy") {
					check("shout_task", true)
				}
			}
			mu.Lock()
			defer mu.Unlock()
			saw := false
			for _, m := range notes {
				if dirty(m) {
					t.Errorf("Progress.Message = %q: escape sequences left", m)
				}
				saw = saw || m == testserver.DirtyClean
			}
			if !saw {
				t.Errorf("progress messages %q, want the cleaned text among them", notes)
			}
		})
	}
}

// TestHugeQuestionsRefused: a server's form or sampling request past its
// size bound is refused before it is decoded, whichever era and
// transport; the host is not asked, the call fails saying so, and the
// connection stays usable.
func TestHugeQuestionsRefused(t *testing.T) {
	for _, srv := range hostileServers(t) {
		t.Run(srv.Name, func(t *testing.T) {
			var a askCounter
			b := newBridge(t, &Options{Client: a.features(QuestionLimits{})}, srv)
			discover(t, b)
			for _, tc := range []struct {
				tool string
				args map[string]any
			}{
				{"bad_form", map[string]any{"which": "huge_message", "bytes": 1 << 20}},
				{"sample", map[string]any{"prompt": "big", "pad": 5 << 20}},
			} {
				r := runTool(t, b, srv.Name, tc.tool, tc.args)
				// Past the bound of its own method, or on 2026-07-28 within
				// the bound of a whole result but past a form's.
				if r.Err == nil || !strings.Contains(r.Err.Error(), "bytes") || !strings.Contains(r.Err.Error(), "limit of") && !strings.Contains(r.Err.Error(), "at most") {
					t.Errorf("%s = %q, %v; want a refusal naming the size and the limit", tc.tool, r.ReturnDisplay, r.Err)
				}
			}
			if n := a.forms.Load() + a.samples.Load(); n != 0 {
				t.Errorf("the host was asked %d times, want never", n)
			}
			stillUsable(t, b, srv.Name)
		})
	}
}
