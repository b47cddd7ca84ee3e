package args

import (
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/mcpgenai/bridge/mcpbridge/internal/testserver"
	"github.com/mcpgenai/bridge/schema"
)

func TestValidator(t *testing.T) {
	var hits atomic.Int32
	remote := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		_, _ = w.Write([]byte(`{"type":"string"}`))
	}))
	defer remote.Close()
	file := filepath.Join(t.TempDir(), "s.json")
	if err := os.WriteFile(file, []byte(`{"type":"string"}`), 0o644); err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		name     string
		schema   string
		args     string
		wantOff  bool   // validation disabled
		wantWarn string // substring of the warning when disabled ("" = no warning)
		want     string // validation detail; "" = valid
	}{
		{"no schema", ``, `{"x":1}`, true, "", ""},
		{"null schema", `null`, `{"x":1}`, true, "", ""},
		{"valid", `{"type":"object","properties":{"n":{"type":"integer"}}}`, `{"n":3}`, false, "", ""},
		{"wrong type", `{"type":"object","properties":{"n":{"type":"integer"}}}`, `{"n":3.5}`, false, "",
			"at '/n': got number, want integer"},
		{"two failures, one line", `{"type":"object","properties":{"n":{"enum":[1,2]},"s":{"minLength":2}},"required":["r"]}`,
			`{"n":3,"s":"a"}`, false, "",
			"at '': missing property 'r'; at '/n': value must be one of 1, 2; at '/s': minLength: got 1, want 2"},
		{"local ref", `{"$defs":{"a":{"type":"integer"}},"type":"object","properties":{"x":{"$ref":"#/$defs/a"}}}`,
			`{"x":"no"}`, false, "", "at '/x': got string, want integer"},
		{"draft-07", `{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","definitions":{"a":{"type":"integer"}},"properties":{"x":{"$ref":"#/definitions/a"}}}`,
			`{"x":"no"}`, false, "", "at '/x': got string, want integer"},
		{"remote ref is not fetched", `{"type":"object","properties":{"x":{"$ref":"` + remote.URL + `/s.json"}}}`,
			`{"x":1}`, true, "not loading " + remote.URL, ""},
		{"file ref is not read", `{"type":"object","properties":{"x":{"$ref":"file://` + file + `"}}}`,
			`{"x":1}`, true, "not loading file://", ""},
		{"unknown metaschema", `{"$schema":"https://example.com/meta","type":"object"}`, `{}`, true, "not loading", ""},
		{"not valid against the metaschema", `{"type":"object","properties":{"x":{"type":"strin"}}}`, `{}`, true, "metaschema", ""},
		{"not JSON", `{"type":`, `{}`, true, "unexpected EOF", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var (
				mu       sync.Mutex
				warnings []string
			)
			disabled := func(err error) {
				mu.Lock()
				defer mu.Unlock()
				warnings = append(warnings, err.Error())
			}
			sch := NewSchema(json.RawMessage(tc.schema), nil, disabled)
			var wg sync.WaitGroup
			for range 4 { // compiled once, whoever asks first
				wg.Go(func() { _ = sch.Validate(map[string]any{}) })
			}
			wg.Wait()
			s := sch.compiled()
			if (s == nil) != tc.wantOff {
				t.Fatalf("compiled(%s) = %v, want disabled %v; warnings: %q", tc.schema, s, tc.wantOff, warnings)
			}
			if n := len(warnings); (tc.wantWarn != "") != (n == 1) || n > 1 {
				t.Errorf("compiled(%s) warned %d times, want %v: %q", tc.schema, n, tc.wantWarn != "", warnings)
			}
			if tc.wantWarn != "" && len(warnings) == 1 && !strings.Contains(warnings[0], tc.wantWarn) {
				t.Errorf("compiled(%s) warning = %q, want it to contain %q", tc.schema, warnings[0], tc.wantWarn)
			}
			if s == nil {
				if err := sch.Validate(map[string]any{"x": 1}); err != nil {
					t.Errorf("Validate with validation disabled = %v, want nil", err)
				}
				return
			}
			if again := sch.compiled(); again != s {
				t.Errorf("compiled twice = %p then %p, want the cached schema", s, again)
			}
			var args map[string]any
			if err := json.Unmarshal([]byte(tc.args), &args); err != nil {
				t.Fatal(err)
			}
			_, v, err := Encode(args)
			if err != nil {
				t.Fatal(err)
			}
			for range 20 { // the validator finds errors in map order; the message must not vary
				got := ""
				if err := sch.Validate(v); err != nil {
					got = Detail(err)
				}
				if got != tc.want {
					t.Fatalf("Validate(%s, %s) = %q, want %q", tc.schema, tc.args, got, tc.want)
				}
			}
		})
	}
	if n := hits.Load(); n != 0 {
		t.Errorf("the remote schema was fetched %d times, want never", n)
	}
}

func TestEncodeArgsKeepsNumbers(t *testing.T) {
	raw, v, err := encodeJSON(map[string]any{"big": json.Number("12345678901234567890"), "f": 2.0, "s": "2"})
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"big":12345678901234567890,"f":2,"s":"2"}`; string(raw) != want {
		t.Errorf("encodeArgs raw = %s, want %s", raw, want)
	}
	m := v.(map[string]any)
	if m["big"] != json.Number("12345678901234567890") || m["f"] != json.Number("2") || m["s"] != "2" {
		t.Errorf("encodeArgs decoded = %#v, want json.Numbers and the string", m)
	}
	if _, _, err := encodeJSON(map[string]any{"ch": make(chan int)}); err == nil {
		t.Error("encodeJSON(channel) = nil error, want one")
	}
}

func TestCutDetail(t *testing.T) {
	tests := []struct {
		in    string
		limit int
		want  string
	}{
		{"short", 10, "short"},
		{"0123456789abc", 10, "012345 ..."},
		{"ééééé", 8, "éé ..."}, // never cuts inside a character
	}
	for _, tc := range tests {
		if got := cutDetail(tc.in, tc.limit); got != tc.want {
			t.Errorf("cutDetail(%q, %d) = %q, want %q", tc.in, tc.limit, got, tc.want)
		}
	}
	long := strings.Repeat("at '/x': bad; ", 1000)
	if got := cutDetail(long, maxDetail); len(got) > maxDetail || !strings.HasSuffix(got, " ...") {
		t.Errorf("cutDetail(%d bytes) = %d bytes, want at most %d ending in ...", len(long), len(got), maxDetail)
	}
}

func TestValidationDetailNamesEnumsAsTheModelSawThem(t *testing.T) {
	tests := []struct {
		name, schema, args string
		target             schema.Target
		want               string
	}{
		{"stringified integer enum", `{"type":"object","properties":{"priority":{"type":"integer","enum":[1,2,3]}}}`,
			`{"priority":"7"}`, schema.Gemini, `at '/priority': "7" is not one of "1", "2", "3"`},
		{"other failures are kept", `{"type":"object","properties":{"priority":{"enum":[1,2,3]},"name":{"type":"string"}},"required":["name"]}`,
			`{"priority":"7"}`, schema.Gemini, `at '/priority': "7" is not one of "1", "2", "3"; at '': missing property 'name'`},
		{"const branches inside an array", `{"type":"object","properties":{"l":{"type":"array","items":{"oneOf":[{"const":1},{"const":2}]}}}}`,
			`{"l":["1","x/y"]}`, schema.Vertex, `at '/l/1': "x/y" is not one of "1", "2"`},
		{"a member passes", `{"type":"object","properties":{"priority":{"type":"integer","enum":[1,2,3]}}}`,
			`{"priority":"3"}`, schema.Gemini, ``},
		{"an ambiguous union keeps the validator's causes below it", testserver.TiedSchema,
			`{"v":{"n":"1","m":3}}`, schema.Gemini,
			`at '/v': fits anyOf[0] and anyOf[1] equally, which restore it differently: restored by anyOf[0]; at '/v': 'anyOf' failed; at '/v': validation failed; at '/v/m': minimum: got 3, want 10; at '/v/n': value must be one of '1', 5; at '/v/m': minimum: got 3, want 10`},
		{"an ambiguous union alone", testserver.TiedSchema,
			`{"v":{"n":"1","m":30}}`, schema.Gemini, ``},
		{"JSONSchema target shows the real enum: the validator's words", `{"type":"object","properties":{"p":{"enum":[1,2]}}}`,
			`{"p":"7"}`, schema.JSONSchema, `at '/p': value must be one of 1, 2`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res, err := schema.Convert([]byte(tc.schema), &schema.Options{Target: tc.target})
			if err != nil {
				t.Fatal(err)
			}
			s := NewSchema(json.RawMessage(tc.schema), res.Restorer, nil).compiled()
			if s == nil {
				t.Fatalf("compiled(%s) = nil, want a schema", tc.schema)
			}
			var args map[string]any
			if err := json.Unmarshal([]byte(tc.args), &args); err != nil {
				t.Fatal(err)
			}
			_, v, err := Encode(res.Restorer.Restore(args))
			if err != nil {
				t.Fatal(err)
			}
			got := ""
			if err := s.Validate(v); err != nil {
				got = Detail(err)
				var ae *argsError
				if e := err.Error(); errors.As(err, &ae) && e != got {
					t.Errorf("Validate(%s).Error() = %q, want the detail %q", tc.args, e, got)
				}
			}
			if got != tc.want {
				t.Errorf("Detail(Validate(%s)) against %s = %q, want %q", tc.args, tc.schema, got, tc.want)
			}
		})
	}
}
