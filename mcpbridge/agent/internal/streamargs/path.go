package streamargs

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// segment is one step of a path: a member name, or an array index when
// isIndex is true.
type segment struct {
	name    string
	index   int
	isIndex bool
}

func (s segment) String() string {
	if s.isIndex {
		return "[" + strconv.Itoa(s.index) + "]"
	}
	return "[" + strconv.Quote(s.name) + "]"
}

// maxIndex bounds an array index before it is converted; an index past the
// array's length is refused later anyway.
const maxIndex = 1 << 30

// parsePath reads a JSON path of the form RFC 9535 calls a singular query:
// "$" followed by member names (".name", "['name']", "[\"name\"]") and
// array indexes ("[0]"). A name written after a dot is taken up to the next
// '.' or '[' (more leniently than RFC 9535's member-name-shorthand, which
// leaves out '-' and other punctuation). Wildcards, slices, filters,
// negative indexes, several selectors in one bracket and descendant
// segments ("..") are refused: a path to one argument names one place.
// At most maxDepth segments are read.
func parsePath(p string, maxDepth int) ([]segment, error) {
	if !utf8.ValidString(p) {
		return nil, errors.New("the path is not valid UTF-8")
	}
	rest, ok := strings.CutPrefix(p, "$")
	if !ok {
		return nil, errors.New(`the path does not start with "$"`)
	}
	var segs []segment
	for rest != "" {
		if len(segs) == maxDepth {
			return nil, fmt.Errorf("%w: the path is deeper than %d levels", ErrTooLarge, maxDepth)
		}
		var (
			s   segment
			err error
		)
		switch rest[0] {
		case '.':
			s, rest, err = dotName(rest[1:])
		case '[':
			s, rest, err = bracket(rest[1:])
		default:
			err = fmt.Errorf("unexpected %q after %q", rest[0], p[:len(p)-len(rest)])
		}
		if err != nil {
			return nil, err
		}
		segs = append(segs, s)
	}
	if len(segs) == 0 {
		return nil, errors.New(`the path names the arguments object itself ("$"), not one argument`)
	}
	return segs, nil
}

// dotName reads the name after a '.'.
func dotName(s string) (segment, string, error) {
	end := strings.IndexAny(s, ".[")
	if end < 0 {
		end = len(s)
	}
	name := s[:end]
	switch {
	case name == "" && strings.HasPrefix(s, "."):
		return segment{}, "", errors.New(`descendant segments ("..") are not a path to one argument`)
	case name == "":
		return segment{}, "", errors.New(`an empty name after "."`)
	case name == "*":
		return segment{}, "", errors.New(`a wildcard ("*") is not a path to one argument`)
	}
	return segment{name: name}, s[end:], nil
}

// bracket reads a bracketed selector, after its '['.
func bracket(s string) (segment, string, error) {
	s = trimBlank(s)
	if s == "" {
		return segment{}, "", errors.New(`an unclosed "["`)
	}
	var seg segment
	switch c := s[0]; {
	case c == '\'' || c == '"':
		name, rest, err := quoted(s[1:], c)
		if err != nil {
			return segment{}, "", err
		}
		seg, s = segment{name: name}, rest
	case c >= '0' && c <= '9':
		end := 0
		for end < len(s) && s[end] >= '0' && s[end] <= '9' {
			end++
		}
		digits := s[:end]
		if len(digits) > 1 && digits[0] == '0' {
			return segment{}, "", fmt.Errorf("the index %q has a leading zero", digits)
		}
		n, err := strconv.Atoi(digits)
		if err != nil || n > maxIndex {
			return segment{}, "", fmt.Errorf("the index %q is too large", digits)
		}
		seg, s = segment{index: n, isIndex: true}, s[end:]
	case c == '-':
		return segment{}, "", errors.New("a negative index is not a path to one argument")
	default:
		return segment{}, "", fmt.Errorf("the selector %q is not a name or an index (wildcards, slices and filters are not paths to one argument)", clip(s))
	}
	s = trimBlank(s)
	if s == "" || s[0] != ']' {
		return segment{}, "", fmt.Errorf(`expected "]" at %q (one selector per bracket)`, clip(s))
	}
	return seg, s[1:], nil
}

// quoted reads a string literal up to its closing quote q, resolving the
// escapes of RFC 9535 (those of JSON, and \' in single quotes).
func quoted(s string, q byte) (string, string, error) {
	var b strings.Builder
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == q:
			return b.String(), s[i+1:], nil
		case c < 0x20:
			return "", "", fmt.Errorf("a control character (%#02x) in a quoted name", c)
		case c != '\\':
			b.WriteByte(c)
			i++
			continue
		}
		if i+1 >= len(s) {
			break
		}
		e := s[i+1]
		i += 2
		switch e {
		case 'b':
			b.WriteByte('\b')
		case 'f':
			b.WriteByte('\f')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 't':
			b.WriteByte('\t')
		case '/', '\\':
			b.WriteByte(e)
		case '\'', '"':
			if e != q {
				return "", "", fmt.Errorf(`the escape "\%c" inside %c quotes`, e, q)
			}
			b.WriteByte(e)
		case 'u':
			r, n, err := unicodeEscape(s[i:])
			if err != nil {
				return "", "", err
			}
			b.WriteRune(r)
			i += n
		default:
			return "", "", fmt.Errorf(`the unknown escape "\%c"`, e)
		}
	}
	return "", "", errors.New("an unclosed quoted name")
}

// unicodeEscape reads the hex digits of a \u escape (s starts after "\u"),
// with the low half of a surrogate pair when the first is a high half.
func unicodeEscape(s string) (rune, int, error) {
	hi, ok := hex4(s)
	if !ok {
		return 0, 0, errors.New(`a "\u" escape without four hex digits`)
	}
	if hi < 0xD800 || hi > 0xDFFF {
		return rune(hi), 4, nil
	}
	if hi >= 0xDC00 || !strings.HasPrefix(s[4:], `\u`) {
		return 0, 0, fmt.Errorf(`a lone surrogate "\u%04x"`, hi)
	}
	lo, ok := hex4(s[6:])
	if !ok || lo < 0xDC00 || lo > 0xDFFF {
		return 0, 0, fmt.Errorf(`a lone surrogate "\u%04x"`, hi)
	}
	return rune(0x10000 + (hi-0xD800)<<10 + (lo - 0xDC00)), 10, nil
}

func hex4(s string) (uint32, bool) {
	if len(s) < 4 {
		return 0, false
	}
	n, err := strconv.ParseUint(s[:4], 16, 32)
	return uint32(n), err == nil
}

// trimBlank drops RFC 9535's blank space (space, tab, newline, return).
func trimBlank(s string) string { return strings.TrimLeft(s, " \t\n\r") }

// clip shortens s for an error message.
func clip(s string) string {
	const max = 40
	if len(s) <= max {
		return s
	}
	cut := max
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}
