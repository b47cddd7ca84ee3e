package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// invocation is what the fake gemini recorded of one run.
type invocation struct {
	Args         []string
	Dir          string
	SystemMDPath string // "" when GEMINI_SYSTEM_MD was not set
	SystemMD     string // the file's content at the time
}

// fakeGemini writes an executable shell script standing in for the Gemini
// CLI into a temporary directory and returns its path and a function
// reading what each run recorded. The script records its arguments, its
// working directory and the system prompt file, then runs body.
func fakeGemini(t *testing.T, body string) (path string, runs func() []invocation) {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("the fake gemini is a shell script")
	}
	dir := t.TempDir()
	rec := filepath.Join(dir, "runs")
	if err := os.Mkdir(rec, 0o755); err != nil {
		t.Fatal(err)
	}
	script := fmt.Sprintf(`#!/bin/sh
rec=%q
n=1
while [ -e "$rec/$n" ]; do n=$((n+1)); done
mkdir "$rec/$n"
for a in "$@"; do printf '%%s\0' "$a" >> "$rec/$n/args"; done
pwd -P > "$rec/$n/dir"
if [ -n "$GEMINI_SYSTEM_MD" ]; then
  printf '%%s' "$GEMINI_SYSTEM_MD" > "$rec/$n/sysmd_path"
  cat "$GEMINI_SYSTEM_MD" > "$rec/$n/sysmd"
fi
%s
`, rec, body)
	path = filepath.Join(dir, "gemini")
	if err := os.WriteFile(path, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	runs = func() []invocation {
		t.Helper()
		var out []invocation
		for n := 1; ; n++ {
			d := filepath.Join(rec, fmt.Sprint(n))
			if _, err := os.Stat(d); err != nil {
				return out
			}
			read := func(name string) string {
				b, _ := os.ReadFile(filepath.Join(d, name))
				return string(b)
			}
			var inv invocation
			if a := read("args"); a != "" {
				inv.Args = strings.Split(strings.TrimSuffix(a, "\x00"), "\x00")
			}
			inv.Dir = strings.TrimSpace(read("dir"))
			inv.SystemMDPath, inv.SystemMD = read("sysmd_path"), read("sysmd")
			out = append(out, inv)
		}
	}
	return path, runs
}

// realDir resolves symbolic links in dir, as pwd -P does.
func realDir(t *testing.T, dir string) string {
	t.Helper()
	d, err := filepath.EvalSymlinks(dir)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func TestCLIBackendArguments(t *testing.T) {
	const ok = `printf '{"session_id":"0d7e3f4a-9b2c-4a6e-b1d8-5f3c2e1a7b90","response":"hello","stats":{}}'`
	tests := []struct {
		name         string
		defaultModel string
		reply        bool
		turn         turn
		wantArgs     []string
	}{
		{name: "chat", turn: turn{Prompt: "Hello, who are you?"},
			wantArgs: []string{"Hello, who are you?", "--output-format", "json"}},
		{name: "chat with model", turn: turn{Prompt: "p", Model: "gemini-3-flash"},
			wantArgs: []string{"p", "--output-format", "json", "-m", "gemini-3-flash"}},
		{name: "chat with flag model", defaultModel: "gemini-x", turn: turn{Prompt: "p"},
			wantArgs: []string{"p", "--output-format", "json", "-m", "gemini-x"}},
		{name: "reply to a session", reply: true, turn: turn{Prompt: "more", SessionID: "a1b2c3d4-e5f6-7890-abcd-ef1234567890"},
			wantArgs: []string{"-r", "a1b2c3d4-e5f6-7890-abcd-ef1234567890", "more", "--output-format", "json"}},
		{name: "reply to latest", reply: true, turn: turn{Prompt: "more", Model: "m"},
			wantArgs: []string{"-r", "latest", "more", "--output-format", "json", "-m", "m"}},
		{name: "prompt kept whole", turn: turn{Prompt: "two words; $HOME `x` \"q\"\nline"},
			wantArgs: []string{"two words; $HOME `x` \"q\"\nline", "--output-format", "json"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path, runs := fakeGemini(t, ok)
			b := newCLIBackend(path, tt.defaultModel, time.Minute)
			var a answer
			var err error
			if tt.reply {
				a, err = b.Reply(t.Context(), tt.turn)
			} else {
				a, err = b.Chat(t.Context(), tt.turn)
			}
			if err != nil {
				t.Fatalf("run(%+v) = %v", tt.turn, err)
			}
			if want := (answer{Text: "hello", SessionID: "0d7e3f4a-9b2c-4a6e-b1d8-5f3c2e1a7b90"}); a != want {
				t.Errorf("run(%+v) = %+v, want %+v", tt.turn, a, want)
			}
			got := runs()
			if len(got) != 1 {
				t.Fatalf("gemini ran %d times, want 1", len(got))
			}
			if diff := cmp.Diff(tt.wantArgs, got[0].Args); diff != "" {
				t.Errorf("arguments (-want +got):\n%s", diff)
			}
			if got[0].SystemMDPath != "" {
				t.Errorf("GEMINI_SYSTEM_MD = %q without a systemPrompt, want it unset", got[0].SystemMDPath)
			}
		})
	}
}

func TestCLIBackendWorkingDirectory(t *testing.T) {
	path, runs := fakeGemini(t, `printf '{"session_id":"s","response":"r"}'`)
	b := newCLIBackend(path, "", time.Minute)
	project := t.TempDir()
	if _, err := b.Chat(t.Context(), turn{Prompt: "p", Cwd: project}); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Chat(t.Context(), turn{Prompt: "p"}); err != nil {
		t.Fatal(err)
	}
	here, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	got := runs()
	want := []string{realDir(t, project), realDir(t, here)}
	if diff := cmp.Diff(want, []string{got[0].Dir, got[1].Dir}); diff != "" {
		t.Errorf("working directories (-want +got):\n%s", diff)
	}

	_, err = b.Chat(t.Context(), turn{Prompt: "p", Cwd: filepath.Join(project, "missing")})
	if err == nil || !strings.Contains(err.Error(), "missing") {
		t.Errorf("Chat in a missing directory = %v, want an error naming it", err)
	}
}

func TestCLIBackendSystemPrompt(t *testing.T) {
	path, runs := fakeGemini(t, `printf '{"session_id":"s","response":"r"}'`)
	b := newCLIBackend(path, "", time.Minute)
	const prompt = "You are a helpful coding assistant.\n\n- Answer in Korean.\n"
	if _, err := b.Reply(t.Context(), turn{Prompt: "p", SystemPrompt: prompt}); err != nil {
		t.Fatal(err)
	}
	got := runs()[0]
	if got.SystemMD != prompt {
		t.Errorf("SYSTEM.md content = %q, want %q", got.SystemMD, prompt)
	}
	if filepath.Base(got.SystemMDPath) != "SYSTEM.md" || !strings.HasPrefix(filepath.Base(filepath.Dir(got.SystemMDPath)), "gemini-mcp-") {
		t.Errorf("GEMINI_SYSTEM_MD = %q, want .../gemini-mcp-*/SYSTEM.md", got.SystemMDPath)
	}
	if _, err := os.Stat(filepath.Dir(got.SystemMDPath)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("after the run, stat of the SYSTEM.md directory = %v, want it removed", err)
	}
}

func TestCLIBackendSystemPromptRemovedOnFailure(t *testing.T) {
	path, runs := fakeGemini(t, `exit 1`)
	b := newCLIBackend(path, "", time.Minute)
	if _, err := b.Chat(t.Context(), turn{Prompt: "p", SystemPrompt: "s"}); err == nil {
		t.Fatal("Chat with a failing gemini succeeded")
	}
	p := runs()[0].SystemMDPath
	if p == "" {
		t.Fatal("GEMINI_SYSTEM_MD was not set")
	}
	if _, err := os.Stat(p); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("after a failed run, stat(%q) = %v, want it removed", p, err)
	}
}

func TestCLIBackendOutput(t *testing.T) {
	const listing = `Available sessions for this project (2):
  1. older session (4 hours ago) [11111111-1111-4111-8111-111111111111]
  2. newest session (Just now, current) [22222222-2222-4222-8222-222222222222]
`
	tests := []struct {
		name    string
		body    string
		want    answer
		wantErr []string // substrings of the error, in order
		runs    int
	}{
		{
			name: "response and session",
			body: `printf '{"session_id":"abc","response":"Line one\\nLine two","stats":{"models":{}}}'`,
			want: answer{Text: "Line one\nLine two", SessionID: "abc"}, runs: 1,
		},
		{
			name: "empty response is an answer",
			body: `printf '{"session_id":"abc","response":""}'`,
			want: answer{SessionID: "abc"}, runs: 1,
		},
		{
			name: "session from --list-sessions",
			body: "if [ \"$1\" = --list-sessions ]; then\ncat <<'EOF'\n" + listing + "EOF\nelse printf '{\"response\":\"hi\"}'; fi",
			want: answer{Text: "hi", SessionID: "22222222-2222-4222-8222-222222222222"}, runs: 2,
		},
		{
			name: "no session anywhere",
			body: `if [ "$1" = --list-sessions ]; then echo 'No previous sessions found.'; else printf '{"response":"hi"}'; fi`,
			want: answer{Text: "hi"}, runs: 2,
		},
		{
			name:    "non-zero exit",
			body:    `echo 'progress...'; echo 'Error: quota exhausted' >&2; exit 3`,
			wantErr: []string{"Command failed: exit status 3", "\nStderr: Error: quota exhausted"}, runs: 1,
		},
		{
			name:    "unparsable output",
			body:    `echo 'Loaded cached credentials.'; echo 'not json'`,
			wantErr: []string{"unparsable output", "Stdout: Loaded cached credentials."}, runs: 1,
		},
		{
			name:    "error in the JSON",
			body:    `printf '{"error":{"type":"FatalAuthenticationError","message":"Please set an Auth method","code":41}}'`,
			wantErr: []string{"reported an error: FatalAuthenticationError: Please set an Auth method"}, runs: 1,
		},
		{
			name:    "no response field",
			body:    `printf '{"session_id":"abc"}'`,
			wantErr: []string{`no "response" field`}, runs: 1,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path, runs := fakeGemini(t, tt.body)
			b := newCLIBackend(path, "", time.Minute)
			got, err := b.Chat(t.Context(), turn{Prompt: "p"})
			if tt.wantErr != nil {
				if err == nil {
					t.Fatalf("Chat = %+v, want an error", got)
				}
				msg := err.Error()
				for _, w := range tt.wantErr {
					i := strings.Index(msg, w)
					if i < 0 {
						t.Fatalf("Chat error = %q, want it to contain %q", err, w)
					}
					msg = msg[i+len(w):]
				}
			} else if err != nil || got != tt.want {
				t.Errorf("Chat = %+v, %v, want %+v", got, err, tt.want)
			}
			if n := len(runs()); n != tt.runs {
				t.Errorf("gemini ran %d times, want %d", n, tt.runs)
			}
		})
	}
}

func TestCLIBackendReplyKeepsGivenSession(t *testing.T) {
	path, _ := fakeGemini(t, `if [ "$1" = --list-sessions ]; then exit 1; fi; printf '{"response":"hi"}'`)
	b := newCLIBackend(path, "", time.Minute)
	a, err := b.Reply(t.Context(), turn{Prompt: "p", SessionID: "given"})
	if want := (answer{Text: "hi", SessionID: "given"}); err != nil || a != want {
		t.Errorf("Reply = %+v, %v, want %+v", a, err, want)
	}
}

func TestCLIBackendStops(t *testing.T) {
	tests := []struct {
		name    string
		timeout time.Duration
		cancel  time.Duration // cancel the call's context after this; 0 means never
		want    error
	}{
		{name: "timeout", timeout: 500 * time.Millisecond, want: context.DeadlineExceeded},
		{name: "cancelled call", timeout: time.Minute, cancel: 500 * time.Millisecond, want: context.Canceled},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path, runs := fakeGemini(t, `exec sleep 30`)
			b := newCLIBackend(path, "", tt.timeout)
			ctx := t.Context()
			if tt.cancel > 0 {
				var cancel context.CancelFunc
				ctx, cancel = context.WithCancel(ctx)
				defer cancel()
				time.AfterFunc(tt.cancel, cancel)
			}
			_, err := b.Chat(ctx, turn{Prompt: "p"})
			if !errors.Is(err, tt.want) {
				t.Errorf("Chat = %v, want %v", err, tt.want)
			}
			if err == nil || !strings.HasPrefix(err.Error(), "Command failed: ") {
				t.Errorf("Chat = %v, want a Command failed error", err)
			}
			// The process was started and then killed: a process left to
			// finish its 30s sleep would exit 0, with no ExitError.
			// (Whether it got as far as recording its run before that
			// depends on the machine's speed, so runs() is not asked.)
			var exit *exec.ExitError
			if !errors.As(err, &exit) || len(runs()) > 1 {
				t.Errorf("Chat = %v, want the error of one started gemini process", err)
			}
		})
	}
}

func TestCLIBackendMissingExecutable(t *testing.T) {
	b := newCLIBackend(filepath.Join(t.TempDir(), "no-gemini"), "", time.Minute)
	_, err := b.Chat(t.Context(), turn{Prompt: "p"})
	if err == nil || !strings.HasPrefix(err.Error(), "Command failed: ") || !strings.Contains(err.Error(), "no-gemini") {
		t.Errorf("Chat with a missing executable = %v, want a Command failed error naming it", err)
	}
}

func TestTail(t *testing.T) {
	tests := []struct {
		name string
		in   string
		n    int
		want string
	}{
		{name: "short", in: "abc", n: 5, want: "abc"},
		{name: "cut", in: "abcdef", n: 3, want: "...def"},
		{name: "cut at a rune boundary", in: "a한글", n: 4, want: "...글"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := string(tail([]byte(tt.in), tt.n)); got != tt.want {
				t.Errorf("tail(%q, %d) = %q, want %q", tt.in, tt.n, got, tt.want)
			}
		})
	}
}

func TestTailBuffer(t *testing.T) {
	b := &tailBuffer{max: 4}
	for _, s := range []string{"ab", "cdefgh", "ij", "kl"} {
		_, _ = b.Write([]byte(s))
	}
	if got, want := b.String(), "...ijkl"; got != want {
		t.Errorf("tailBuffer after writing a..l = %q, want %q", got, want)
	}
}
