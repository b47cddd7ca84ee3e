// Package serverlog turns the log messages an MCP server sends
// (notifications/message) into slog records: the server's level mapped to
// a slog level, and its data, any JSON value, as one clean bounded line.
//
//	l := serverlog.Level("warning") // slog.LevelWarn
//	msg := serverlog.Text(data)    // "disk full" or `{"code":7}`
package serverlog

import (
	"encoding/json"
	"log/slog"
	"strings"
	"unicode"
	"unicode/utf8"
)

// The levels of MCP's logging, least severe first (RFC 5424's names).
var levels = []string{"debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"}

// slogLevels are their slog levels: debug, info and warning map to slog's
// own, notice sits between info and warning, and error and the three more
// severe levels to slog.LevelError and above it, in order.
var slogLevels = []slog.Level{slog.LevelDebug, slog.LevelInfo, slog.LevelInfo + 2, slog.LevelWarn,
	slog.LevelError, slog.LevelError + 1, slog.LevelError + 2, slog.LevelError + 3}

// Valid reports whether name is one of MCP's log levels ("debug" …
// "emergency", lower case).
func Valid(name string) bool {
	for _, l := range levels {
		if l == name {
			return true
		}
	}
	return false
}

// Level returns the slog level of the MCP log level name. A name that is
// not a level (a server's mistake) counts as "info".
func Level(name string) slog.Level {
	for i, l := range levels {
		if l == name {
			return slogLevels[i]
		}
	}
	return slog.LevelInfo
}

// MaxText bounds the text of one message, in bytes; longer text is cut at
// a character boundary and ends with "…".
const MaxText = 4096

// Text returns a message's data as one line: a string as itself, anything
// else as compact JSON; control and bidirectional formatting characters
// become spaces, runs of white space one space, and the text is cut to
// MaxText bytes.
func Text(data any) string {
	s, ok := data.(string)
	if !ok {
		b, err := json.Marshal(data)
		if err != nil {
			return ""
		}
		s = string(b)
	}
	s = strings.Join(strings.FieldsFunc(strings.ToValidUTF8(s, "\uFFFD"), func(r rune) bool {
		return unicode.IsSpace(r) || unicode.IsControl(r) || unicode.Is(unicode.Bidi_Control, r)
	}), " ")
	if len(s) <= MaxText {
		return s
	}
	cut := MaxText - len("…")
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}
