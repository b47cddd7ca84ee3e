package jsonc

import (
	"bytes"
	"encoding/json"
	"errors"
	"testing"
)

func TestStripComments(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"none", `{"a": 1}`, `{"a": 1}`},
		{"line comment", "{\"a\": 1} // note\n", "{\"a\": 1}        \n"},
		{"line comment at the end", "1 //", "1   "},
		{"block comment", `{/* x */"a": 1}`, `{       "a": 1}`},
		{"block keeps line breaks", "{/* a\r\nb */}", "{    \r\n    }"},
		{"slashes in a string", `{"u": "http://x/*y*/"}`, `{"u": "http://x/*y*/"}`},
		{"escaped quote in a string", `{"q": "\"//"} //c`, `{"q": "\"//"}    `},
		{"multi-byte text in a comment: one space a byte", "1 // héllo\n2", "1          \n2"},
		{"lone slash", "1 / 2", "1 / 2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := StripComments([]byte(tt.in))
			if err != nil {
				t.Fatalf("StripComments(%q) error = %v", tt.in, err)
			}
			if string(got) != tt.want {
				t.Errorf("StripComments(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestStripCommentsUnterminated(t *testing.T) {
	in := []byte("{\n  /* open\n}")
	orig := bytes.Clone(in)
	_, err := StripComments(in)
	var oe *OffsetError
	if !errors.As(err, &oe) || oe.Offset != 4 || err.Error() != "unterminated /* comment" {
		t.Fatalf("StripComments(%q) error = %#v, want an *OffsetError at 4 saying unterminated", in, err)
	}
	if !bytes.Equal(in, orig) {
		t.Errorf("StripComments modified its input: %q", in)
	}
}

func TestCheck(t *testing.T) {
	tests := []struct {
		name, in string
		wantOff  int // -1: valid
		wantMsg  string
	}{
		{"valid object", `{"a": [1, 2]}`, -1, ""},
		{"valid with space", " 1 ", -1, ""},
		{"bad character", `{"a": x}`, 6, "invalid character 'x' looking for beginning of value"},
		{"trailing comma", `{"a": 1,}`, 8, "invalid character '}' looking for beginning of object key string"},
		{"ends too soon", `{"a": 1`, 7, "unexpected end of JSON input"},
		{"empty", ``, 0, "unexpected end of JSON input"},
		{"two values", `1 2`, 2, "invalid character '2' after top-level value"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := Check([]byte(tt.in))
			if tt.wantOff < 0 {
				if err != nil {
					t.Fatalf("Check(%q) = %v, want nil", tt.in, err)
				}
				return
			}
			var oe *OffsetError
			var se *json.SyntaxError
			if !errors.As(err, &oe) || !errors.As(err, &se) {
				t.Fatalf("Check(%q) = %#v, want an *OffsetError wrapping a *json.SyntaxError", tt.in, err)
			}
			if oe.Offset != tt.wantOff || err.Error() != tt.wantMsg {
				t.Errorf("Check(%q) = %q at %d, want %q at %d", tt.in, err, oe.Offset, tt.wantMsg, tt.wantOff)
			}
		})
	}
}

func TestPosition(t *testing.T) {
	text := []byte("ab\ncé d\n\nx")
	tests := []struct {
		off, line, col int
	}{
		{-5, 1, 1},
		{0, 1, 1},
		{2, 1, 3},
		{3, 2, 1},
		{6, 2, 3}, // after "cé": two characters, three bytes
		{7, 2, 4},
		{9, 3, 1},
		{10, 4, 1},
		{100, 4, 2},
	}
	for _, tt := range tests {
		line, col := Position(text, tt.off)
		if line != tt.line || col != tt.col {
			t.Errorf("Position(%q, %d) = %d:%d, want %d:%d", text, tt.off, line, col, tt.line, tt.col)
		}
	}
}

func TestSkipSpace(t *testing.T) {
	tests := []struct {
		in        string
		off, want int
	}{
		{"", 0, 0},
		{"  \t\r\n", 0, 5},
		{" x ", 0, 1},
		{" x ", 2, 3},
		{",x", 0, 0},
	}
	for _, tt := range tests {
		if got := SkipSpace([]byte(tt.in), tt.off); got != tt.want {
			t.Errorf("SkipSpace(%q, %d) = %d, want %d", tt.in, tt.off, got, tt.want)
		}
	}
}
