package mcpconn

import (
	"bytes"
	"context"
	"log/slog"
)

// Servers write their own logs to stderr, often one record per request at
// info level. Gemini CLI hides the lines containing "] INFO"; stderrLevel
// generalises that to the common log layouts, so that a server's warnings
// stand out in the host's log and its chatter does not flood it. The stderr
// tail kept for the status is not filtered.

// levelScan is how many bytes at the start of a line are searched for a
// level.
const levelScan = 256

// levelWords is how many leading words may name the level in a line without
// a level key: enough for "2024-05-01 10:00:00,000 - app.server - INFO - …"
// (words with digits, such as dates, do not count), few enough that prose
// mentioning an error later on is not taken for an error record.
const levelWords = 4

// stderrVerdict is what becomes of one stderr line in the log.
type stderrVerdict int

const (
	stderrPlain   stderrVerdict = iota // no level found: logged at debug
	stderrChatter                      // info, debug or trace: not logged
	stderrAlarm                        // a warning or an error: logged at warn
)

// levelNames maps the lower-case level names of common loggers (Python,
// slog, logrus, zap, zerolog, pino, winston, tracing, log4j …) to a verdict.
var levelNames = map[string]stderrVerdict{
	"trace": stderrChatter, "trc": stderrChatter, "trac": stderrChatter,
	"debug": stderrChatter, "dbg": stderrChatter, "debu": stderrChatter,
	"info": stderrChatter, "inf": stderrChatter, "notice": stderrChatter,
	"verbose": stderrChatter,

	"warn": stderrAlarm, "warning": stderrAlarm, "wrn": stderrAlarm,
	"error": stderrAlarm, "err": stderrAlarm, "erro": stderrAlarm,
	"fatal": stderrAlarm, "ftl": stderrAlarm, "fata": stderrAlarm,
	"critical": stderrAlarm, "crit": stderrAlarm, "alert": stderrAlarm,
	"emerg": stderrAlarm, "emergency": stderrAlarm, "severe": stderrAlarm,
	"panic": stderrAlarm, "pnc": stderrAlarm, "pani": stderrAlarm,
	"exception": stderrAlarm, "traceback": stderrAlarm,
}

// levelKeys are the names under which structured logs (key=value or JSON)
// write the level.
var levelKeys = map[string]bool{"level": true, "lvl": true, "severity": true, "levelname": true, "loglevel": true}

// stderrLevel tells how a line of a server's stderr is logged: at
// slog.LevelWarn when it looks like a warning or an error, not at all (keep
// false) when it looks like info, debug or trace output, and at
// slog.LevelDebug when it names no level. The rule, on the first 256 bytes:
//
//   - a level key ("level", "lvl", "severity" …) followed by a level name
//     or a pino/bunyan number (up to 30 is chatter, 40 and above an alarm)
//     decides;
//   - otherwise the first level name among the first 4 words decides (a
//     word is a run of letters, digits, '.', '_' and '-'; words containing
//     digits, such as dates and times, are skipped);
//   - a klog/glog prefix ("I1123 …", "W1123 …", "E1123 …", "F1123 …")
//     decides before both.
//
// Level names are matched whole and case-insensitively: "INFO", "[warn]",
// "ERROR:", "level=error", `"level":"info"` all count; "errors" and
// "error-free" do not.
func stderrLevel(line []byte) (level slog.Level, keep bool) {
	switch stderrClassify(line) {
	case stderrChatter:
		return 0, false
	case stderrAlarm:
		return slog.LevelWarn, true
	}
	return slog.LevelDebug, true
}

func stderrClassify(line []byte) stderrVerdict {
	if len(line) > levelScan {
		line = line[:levelScan]
	}
	if v, ok := klogVerdict(line); ok {
		return v
	}
	found := stderrPlain
	words := 0
	var lower [16]byte // the current word in lower case
	afterKey := false
	for rest := line; ; {
		var w []byte
		w, rest = nextWord(rest)
		if w == nil {
			return found
		}
		if len(w) > len(lower) { // no level name or key is this long
			afterKey = false
			if !hasDigit(w) {
				words++
			}
			continue
		}
		for i, c := range w {
			if c >= 'A' && c <= 'Z' {
				c += 'a' - 'A'
			}
			lower[i] = c
		}
		lw := lower[:len(w)]
		if afterKey {
			afterKey = false
			if v, ok := levelNames[string(lw)]; ok {
				return v
			}
			if v, ok := pinoVerdict(lw); ok {
				return v
			}
		}
		if levelKeys[string(lw)] {
			afterKey = true
			continue
		}
		if hasDigit(w) || words >= levelWords {
			continue
		}
		words++
		if v, ok := levelNames[string(lw)]; ok && found == stderrPlain {
			found = v
		}
	}
}

// nextWord returns the first word of b (see stderrLevel) without leading or
// trailing '.', '_' and '-', and what follows it; nil when there is none.
func nextWord(b []byte) (word, rest []byte) {
	for {
		i := 0
		for i < len(b) && !isWordByte(b[i]) {
			i++
		}
		b = b[i:]
		if len(b) == 0 {
			return nil, nil
		}
		j := 0
		for j < len(b) && isWordByte(b[j]) {
			j++
		}
		word, b = bytes.Trim(b[:j], "._-"), b[j:]
		if len(word) > 0 {
			return word, b
		}
	}
}

func isWordByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-'
}

func hasDigit(b []byte) bool {
	return bytes.ContainsAny(b, "0123456789")
}

// pinoVerdict reads a numeric level as pino and bunyan write it: 10 trace,
// 20 debug, 30 info, 40 warn, 50 error, 60 fatal.
func pinoVerdict(w []byte) (stderrVerdict, bool) {
	if len(w) != 2 || w[0] < '1' || w[0] > '6' || w[1] != '0' {
		return stderrPlain, false
	}
	if w[0] <= '3' {
		return stderrChatter, true
	}
	return stderrAlarm, true
}

// klogVerdict reads the severity letter of a klog/glog header such as
// "I1123 20:15:56.123456 1 main.go:12] …".
func klogVerdict(line []byte) (stderrVerdict, bool) {
	if len(line) < 6 || line[5] != ' ' {
		return stderrPlain, false
	}
	for _, c := range line[1:5] {
		if c < '0' || c > '9' {
			return stderrPlain, false
		}
	}
	switch line[0] {
	case 'I':
		return stderrChatter, true
	case 'W', 'E', 'F':
		return stderrAlarm, true
	}
	return stderrPlain, false
}

// logStderr logs one stderr line at the level stderrLevel gives it. When
// the logger takes neither level, the line is not even classified.
func logStderr(log *slog.Logger, line []byte) {
	ctx := context.Background()
	if !log.Enabled(ctx, slog.LevelWarn) {
		return
	}
	if level, keep := stderrLevel(line); keep && log.Enabled(ctx, level) {
		log.Log(ctx, level, "mcp server stderr", "line", string(line))
	}
}
