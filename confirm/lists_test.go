package confirm

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/google/go-cmp/cmp"
)

const savedFile = `{
  "version": 1,
  "allow": [
    {
      "server": "a"
    },
    {
      "server": "a",
      "tool": "b.c"
    },
    {
      "server": "a.b",
      "tool": "c"
    },
    {
      "server": "web",
      "tool": "fetch"
    }
  ]
}
`

func TestSaveLoadRoundTrip(t *testing.T) {
	p := &Policy{}
	for _, k := range []Key{{"web", "fetch"}, {"a.b", "c"}, {"a", "b.c"}, {Server: "a"}, {"web", "fetch"}} {
		p.Allow(k)
	}
	p.Deny(Key{Server: "evil"})
	var buf bytes.Buffer
	if err := p.Save(&buf); err != nil {
		t.Fatalf("Save: %v", err)
	}
	if diff := cmp.Diff(savedFile, buf.String()); diff != "" {
		t.Errorf("Save() mismatch (-want +got):\n%s", diff)
	}

	q := &Policy{}
	q.Allow(Key{Server: "old"}) // replaced by Load
	if err := q.Load(strings.NewReader(buf.String())); err != nil {
		t.Fatalf("Load: %v", err)
	}
	if diff := cmp.Diff(p.AllowList(), q.AllowList()); diff != "" {
		t.Errorf("AllowList() after Load mismatch (-want +got):\n%s", diff)
	}
	if got := q.DenyList(); len(got) != 0 {
		t.Errorf("DenyList() after Load = %v, want empty (deny-lists are not saved)", got)
	}
	var again bytes.Buffer
	if err := q.Save(&again); err != nil || again.String() != buf.String() {
		t.Errorf("Save after Load = %q, %v, want the same bytes", again.String(), err)
	}
}

func TestSaveEmpty(t *testing.T) {
	var buf bytes.Buffer
	if err := new(Policy).Save(&buf); err != nil {
		t.Fatalf("Save: %v", err)
	}
	if want := "{\n  \"version\": 1,\n  \"allow\": []\n}\n"; buf.String() != want {
		t.Errorf("Save() of the zero Policy = %q, want %q", buf.String(), want)
	}
}

func TestSaveWriteError(t *testing.T) {
	err := new(Policy).Save(failingWriter{})
	if !errors.Is(err, errBoom) {
		t.Errorf("Save(failing writer) = %v, want %v", err, errBoom)
	}
}

type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errBoom }

func TestLoad(t *testing.T) {
	tests := []struct {
		name string
		file string
		want []Key
	}{
		{"empty list", `{"version": 1, "allow": []}`, []Key{}},
		{"null list", `{"version": 1, "allow": null}`, []Key{}},
		{"no list", `{"version": 1}`, []Key{}},
		{"duplicates kept once", `{"version":1,"allow":[{"server":"s"},{"server":"s"},{"server":"s","tool":""}]}`, []Key{{Server: "s"}}},
		{"trailing whitespace", "{\"version\":1,\"allow\":[{\"server\":\"s\",\"tool\":\"t\"}]}\n\n\t", []Key{{"s", "t"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := &Policy{}
			p.Allow(Key{Server: "old"})
			if err := p.Load(strings.NewReader(tt.file)); err != nil {
				t.Fatalf("Load(%s) = %v", tt.file, err)
			}
			if diff := cmp.Diff(tt.want, p.AllowList()); diff != "" {
				t.Errorf("AllowList() after Load(%s) mismatch (-want +got):\n%s", tt.file, diff)
			}
		})
	}
}

func TestLoadErrors(t *testing.T) {
	tests := []struct {
		name    string
		file    string
		wantMsg string // part of the error text
	}{
		{"empty file", ``, "EOF"},
		{"not JSON", `allow everything`, "invalid character"},
		{"array", `[]`, "cannot unmarshal array"},
		{"null", `null`, "version 0, want 1"},
		{"no version", `{"allow": []}`, "version 0, want 1"},
		{"future version", `{"version": 2, "allow": []}`, "version 2, want 1"},
		{"string version", `{"version": "1", "allow": []}`, "cannot unmarshal string"},
		{"entry without server", `{"version": 1, "allow": [{"server": "ok"}, {"tool": "x"}]}`, "entry 1: no server"},
		{"unknown key field", `{"version": 1, "allow": [{"server": "a", "tools": "x"}]}`, `unknown field "tools"`},
		{"unknown top-level field", `{"version": 1, "allow": [], "deny": []}`, `unknown field "deny"`},
		{"server not a string", `{"version": 1, "allow": [{"server": 5}]}`, "cannot unmarshal number"},
		{"truncated", `{"version": 1, "allow": [{"server": "a"}`, "unexpected EOF"},
		{"second object", `{"version": 1, "allow": []} {}`, "unexpected data after the JSON object"},
		{"trailing garbage", `{"version": 1, "allow": []} x`, "unexpected data after the JSON object"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := &Policy{}
			p.Allow(Key{"keep", "me"})
			p.Deny(Key{Server: "evil"})
			err := p.Load(strings.NewReader(tt.file))
			if err == nil || !strings.Contains(err.Error(), tt.wantMsg) || !strings.HasPrefix(err.Error(), "loading allow-list: ") {
				t.Errorf("Load(%s) = %v, want an error containing %q", tt.file, err, tt.wantMsg)
			}
			if diff := cmp.Diff([]Key{{"keep", "me"}}, p.AllowList()); diff != "" {
				t.Errorf("AllowList() after failed Load changed (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff([]Key{{Server: "evil"}}, p.DenyList()); diff != "" {
				t.Errorf("DenyList() after failed Load changed (-want +got):\n%s", diff)
			}
		})
	}
}

func TestLoadErrorsAreInspectable(t *testing.T) {
	var syntax *json.SyntaxError
	if err := new(Policy).Load(strings.NewReader(`{"version": 1,,}`)); !errors.As(err, &syntax) {
		t.Errorf("Load(bad syntax) = %v, want a *json.SyntaxError inside", err)
	}
	if err := new(Policy).Load(iotest.ErrReader(errBoom)); !errors.Is(err, errBoom) {
		t.Errorf("Load(failing reader) = %v, want %v", err, errBoom)
	}
}

func TestListsSorted(t *testing.T) {
	p := &Policy{}
	for _, k := range []Key{{"b", "x"}, {Server: "b"}, {"a", "z"}, {"a", "y"}} {
		p.Allow(k)
		p.Deny(k)
	}
	want := []Key{{"a", "y"}, {"a", "z"}, {Server: "b"}, {"b", "x"}}
	if diff := cmp.Diff(want, p.AllowList()); diff != "" {
		t.Errorf("AllowList() mismatch (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(want, p.DenyList()); diff != "" {
		t.Errorf("DenyList() mismatch (-want +got):\n%s", diff)
	}
	p.Revoke(Key{Server: "b"}) // only the server key
	want = []Key{{"a", "y"}, {"a", "z"}, {"b", "x"}}
	if diff := cmp.Diff(want, p.AllowList()); diff != "" {
		t.Errorf("AllowList() after Revoke(b) mismatch (-want +got):\n%s", diff)
	}
}
