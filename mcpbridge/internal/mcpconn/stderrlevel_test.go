package mcpconn

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"
)

func TestStderrLevel(t *testing.T) {
	const (
		drop  = "drop"
		debug = "DEBUG"
		warn  = "WARN"
	)
	tests := []struct {
		layout, line, want string
	}{
		{"plain text", "Secure MCP Filesystem Server running on stdio", debug},
		{"empty", "", debug},
		{"Python default", "INFO:root:started", drop},
		{"Python default warning", "WARNING:root:disk almost full", warn},
		{"Python asctime and dotted logger", "2024-05-01 10:00:00,000 - mcp.server.lowlevel.server - INFO - Processing request of type ListToolsRequest", drop},
		{"Python asctime error", "2024-05-01 10:00:00,000 - app - ERROR - cannot open db", warn},
		{"Python traceback", "Traceback (most recent call last):", warn},
		{"rich console", "[05/01/24 10:00:00] INFO     Processing request of type CallToolRequest   server.py:523", drop},
		{"bracketed", "[2024-05-01T10:00:00Z] [WARN] slow response", warn},
		{"bracketed error", "[ERROR] upstream refused", warn},
		{"Gemini CLI's own filter", "[server] INFO handled request", drop},
		{"slog text", `time=2024-05-01T10:00:00.000Z level=INFO msg="tool called" tool=echo`, drop},
		{"slog text warning", `time=2024-05-01T10:00:00.000Z level=WARN msg="retrying"`, warn},
		{"logfmt key late in the line", `ts=2024-05-01T10:00:00Z caller=main.go:12 component=api module=db level=error msg="boom"`, warn},
		{"slog JSON", `{"time":"2024-05-01T10:00:00Z","level":"DEBUG","msg":"cache hit"}`, drop},
		{"JSON key wins over a word in the message", `{"msg":"error budget report","level":"info"}`, drop},
		{"pino info", `{"level":30,"time":1714557600000,"pid":7,"msg":"listening"}`, drop},
		{"pino warn", `{"level":40,"time":1714557600000,"msg":"slow"}`, warn},
		{"pino error", `{"level":50,"time":1714557600000,"msg":"failed"}`, warn},
		{"winston", "info: server started", drop},
		{"winston error", "error: connection reset", warn},
		{"zerolog console", "10:00AM INF listening port=8080", drop},
		{"zerolog console error", "10:00AM ERR failed error=\"eof\"", warn},
		{"logrus tty", "WARN[0000] deprecated flag", warn},
		{"logrus tty info", "INFO[0003] ready", drop},
		{"tracing", "2024-05-01T10:00:00.123456Z  INFO server::handler: request done", drop},
		{"tracing error", "2024-05-01T10:00:00.123456Z ERROR server::handler: request failed", warn},
		{"klog info", "I0501 10:00:00.000000       1 main.go:12] serving", drop},
		{"klog error", "E0501 10:00:00.000000       1 main.go:12] failed", warn},
		{"Go panic", "panic: runtime error: index out of range [3] with length 3", warn},
		{"node warning", "(node:1234) Warning: something deprecated", warn},
		{"node error", "Error: Cannot find module 'x'", warn},
		{"Java exception", "Exception in thread \"main\" java.lang.NullPointerException", warn},
		{"level word too late", "Listening on port 8080 with verbose info enabled", debug},
		{"plural is not a level", "Loaded plugins, no errors", debug},
		{"hyphenated is not a level", "error-free start", debug},
		{"level key without a level", "level of detail: high", debug},
		{"first level word wins", "INFO: error count is 0", drop},
		{"level past the scanned prefix", strings.Repeat("x ", 200) + "level=error", debug},
		{"not a klog header", "I1234x something", debug},
		{"bytes that are not UTF-8", "\xff\xfe WARN \x00 odd", warn},
	}
	for _, tt := range tests {
		t.Run(tt.layout, func(t *testing.T) {
			level, keep := stderrLevel([]byte(tt.line))
			got := drop
			if keep {
				got = level.String()
			}
			if got != tt.want {
				t.Errorf("stderrLevel(%q) = %s, want %s", tt.line, got, tt.want)
			}
		})
	}
}

// TestDrainStderrLevels checks what reaches the logger, and that the tail
// keeps every line, the dropped ones too.
func TestDrainStderrLevels(t *testing.T) {
	var logs bytes.Buffer
	log := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{
		Level:       slog.LevelDebug,
		ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr { return dropKey(a, slog.TimeKey) },
	}))
	in := "INFO starting\nWARN low disk\nplain line\nDEBUG cache hit\nERROR failed\n"
	tl := newTail(1 << 10)
	drainStderr(strings.NewReader(in), tl, log)
	if got := tl.String(); got != in {
		t.Errorf("tail = %q, want all of %q", got, in)
	}
	want := `level=WARN msg="mcp server stderr" line="WARN low disk"
level=DEBUG msg="mcp server stderr" line="plain line"
level=WARN msg="mcp server stderr" line="ERROR failed"
`
	if got := logs.String(); got != want {
		t.Errorf("logs:\n%s\nwant:\n%s", got, want)
	}
}

func dropKey(a slog.Attr, key string) slog.Attr {
	if a.Key == key {
		return slog.Attr{}
	}
	return a
}

func BenchmarkStderrLevel(b *testing.B) {
	lines := [][]byte{
		[]byte("2024-05-01 10:00:00,000 - mcp.server.lowlevel.server - INFO - Processing request of type ListToolsRequest"),
		[]byte(`{"level":30,"time":1714557600000,"pid":7,"hostname":"h","msg":"listening"}`),
		[]byte(strings.Repeat("x", 99)),
	}
	for b.Loop() {
		for _, l := range lines {
			stderrLevel(l)
		}
	}
}
