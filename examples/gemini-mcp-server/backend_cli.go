package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"time"
	"unicode/utf8"
)

// Limits on what the CLI backend keeps of a process's output.
const (
	maxStdout  = 32 << 20 // larger JSON output is an error
	stderrTail = 4 << 10  // bytes of stderr quoted in errors
	// waitDelay bounds how long a killed process's children may keep its
	// output pipes open.
	waitDelay = 2 * time.Second
)

// cliBackend answers turns by running the Gemini CLI in headless mode, one
// process per turn, as seed 002 describes:
//
//	gemini "<prompt>" --output-format json [-m <model>]
//	gemini -r <sessionId|latest> "<prompt>" --output-format json [-m <model>]
//
// The CLI keeps the sessions (per project directory), so a reply must run
// in the cwd of the chat it continues. It is safe for concurrent use.
type cliBackend struct {
	path    string        // the gemini executable
	model   string        // default model; "" lets the CLI choose
	timeout time.Duration // per process; 0 means none
}

// newCLIBackend returns a backend running the executable path ("" means
// "gemini", looked up in PATH).
func newCLIBackend(path, model string, timeout time.Duration) *cliBackend {
	if path == "" {
		path = "gemini"
	}
	return &cliBackend{path: path, model: model, timeout: timeout}
}

// Chat runs gemini with t's prompt in a new session.
func (b *cliBackend) Chat(ctx context.Context, t turn) (answer, error) {
	return b.run(ctx, t, []string{t.Prompt})
}

// Reply runs gemini -r with t's session, or "latest" when it is "".
func (b *cliBackend) Reply(ctx context.Context, t turn) (answer, error) {
	id := t.SessionID
	if id == "" {
		id = "latest"
	}
	a, err := b.run(ctx, t, []string{"-r", id, t.Prompt})
	if err == nil && a.SessionID == "" && t.SessionID != "" {
		a.SessionID = t.SessionID
	}
	return a, err
}

// cliOutput is the part of `gemini --output-format json` output the
// backend reads.
type cliOutput struct {
	SessionID string          `json:"session_id"`
	Response  *string         `json:"response"`
	Error     json.RawMessage `json:"error"`
}

// run runs gemini with args followed by the output flags and returns the
// parsed answer. When the output carries no session_id, the latest session
// of `gemini --list-sessions` is used.
func (b *cliBackend) run(ctx context.Context, t turn, args []string) (answer, error) {
	if b.timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, b.timeout)
		defer cancel()
	}
	args = append(args, "--output-format", "json")
	model := t.Model
	if model == "" {
		model = b.model
	}
	if model != "" {
		args = append(args, "-m", model)
	}
	var env []string
	if t.SystemPrompt != "" {
		dir, err := os.MkdirTemp("", "gemini-mcp-")
		if err != nil {
			return answer{}, fmt.Errorf("writing the system prompt: %w", err)
		}
		defer os.RemoveAll(dir)
		path := filepath.Join(dir, "SYSTEM.md")
		if err := os.WriteFile(path, []byte(t.SystemPrompt), 0o600); err != nil {
			return answer{}, fmt.Errorf("writing the system prompt: %w", err)
		}
		env = append(os.Environ(), "GEMINI_SYSTEM_MD="+path)
	}
	stdout, err := b.exec(ctx, t.Cwd, env, args)
	if err != nil {
		return answer{}, err
	}
	var out cliOutput
	if err := json.Unmarshal(stdout, &out); err != nil {
		return answer{}, fmt.Errorf("unparsable output of %s: %w\nStdout: %s", b.path, err, tail(stdout, stderrTail))
	}
	if len(out.Error) > 0 && string(out.Error) != "null" {
		return answer{}, fmt.Errorf("%s reported an error: %s", b.path, cliErrorMessage(out.Error))
	}
	if out.Response == nil {
		return answer{}, fmt.Errorf("output of %s has no \"response\" field\nStdout: %s", b.path, tail(stdout, stderrTail))
	}
	a := answer{Text: *out.Response, SessionID: out.SessionID}
	if a.SessionID == "" {
		// Best effort: the answer is good without an ID.
		a.SessionID, _ = b.latestSession(ctx, t.Cwd)
	}
	return a, nil
}

// exec runs the executable with args in dir (the current directory when
// ""), with env (the server's environment when nil), and returns its
// stdout. A failure to start, a non-zero exit or a cancelled ctx is an
// error quoting the tail of stderr.
func (b *cliBackend) exec(ctx context.Context, dir string, env, args []string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, b.path, args...)
	cmd.Dir = dir
	cmd.Env = env
	cmd.WaitDelay = waitDelay
	stdout := &limitedBuffer{max: maxStdout}
	stderr := &tailBuffer{max: stderrTail}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	err := cmd.Run()
	if err == nil && stdout.overflow {
		err = fmt.Errorf("output larger than %d bytes", maxStdout)
	}
	if err != nil {
		if ctxErr := ctx.Err(); ctxErr != nil {
			err = fmt.Errorf("%w (%w)", ctxErr, err)
		}
		return nil, &commandError{err: err, stderr: stderr.String()}
	}
	return stdout.Bytes(), nil
}

// sessionIDPattern matches a session ID in brackets at the end of a line of
// `gemini --list-sessions` output.
var sessionIDPattern = regexp.MustCompile(`\[([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})\]\s*$`)

// latestSession returns the ID of the latest session of the project in dir
// from `gemini --list-sessions`, which lists sessions oldest first.
func (b *cliBackend) latestSession(ctx context.Context, dir string) (string, error) {
	out, err := b.exec(ctx, dir, nil, []string{"--list-sessions"})
	if err != nil {
		return "", err
	}
	id := ""
	for line := range strings.Lines(string(out)) {
		if m := sessionIDPattern.FindStringSubmatch(line); m != nil {
			id = m[1]
		}
	}
	if id == "" {
		return "", errors.New("no session listed")
	}
	return id, nil
}

// commandError is a failed run of the Gemini CLI with the tail of its
// stderr. Its message has the shape of seed 002's example:
// "Command failed: <reason>\nStderr: <tail>".
type commandError struct {
	err    error
	stderr string
}

func (e *commandError) Error() string {
	var sb strings.Builder
	sb.WriteString("Command failed: ")
	sb.WriteString(e.err.Error())
	if s := strings.TrimSpace(e.stderr); s != "" {
		sb.WriteString("\nStderr: ")
		sb.WriteString(s)
	}
	return sb.String()
}

func (e *commandError) Unwrap() error { return e.err }

// cliErrorMessage returns the message of the "error" field of the CLI's
// JSON output: its "message" when it is an object that has one, else the
// JSON itself.
func cliErrorMessage(raw json.RawMessage) string {
	var e struct {
		Type    string `json:"type"`
		Message string `json:"message"`
	}
	if json.Unmarshal(raw, &e) == nil && e.Message != "" {
		if e.Type != "" {
			return e.Type + ": " + e.Message
		}
		return e.Message
	}
	return string(raw)
}

// limitedBuffer keeps the first max bytes written to it and reports
// whether more came.
type limitedBuffer struct {
	bytes.Buffer
	max      int
	overflow bool
}

func (b *limitedBuffer) Write(p []byte) (int, error) {
	if room := b.max - b.Len(); len(p) > room {
		b.overflow = true
		b.Buffer.Write(p[:max(room, 0)])
		return len(p), nil
	}
	return b.Buffer.Write(p)
}

// tailBuffer keeps the last max bytes written to it (up to twice that
// before trimming).
type tailBuffer struct {
	buf []byte
	max int
}

func (b *tailBuffer) Write(p []byte) (int, error) {
	b.buf = append(b.buf, p...)
	if len(b.buf) > 2*b.max {
		b.buf = append(b.buf[:0], b.buf[len(b.buf)-b.max:]...)
	}
	return len(p), nil
}

func (b *tailBuffer) String() string { return string(tail(b.buf, b.max)) }

// tail returns the last n bytes of p, starting at a rune boundary, with
// "..." in front when p was cut.
func tail(p []byte, n int) []byte {
	if len(p) <= n {
		return p
	}
	p = p[len(p)-n:]
	for len(p) > 0 && !utf8.RuneStart(p[0]) {
		p = p[1:]
	}
	return append([]byte("..."), p...)
}
