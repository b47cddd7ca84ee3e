package skills

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

const skillMD = "---\nname: pdf-processing\ndescription: Extract, fill, and assemble PDF documents\nmetadata:\n  version: \"2.1\"\n  level: 3\n---\n\nBody.\n"

func digest(s string) string {
	sum := sha256.Sum256([]byte(s))
	return "sha256:" + hex.EncodeToString(sum[:])
}

func entryJSON(md string, size int) string {
	return fmt.Sprintf(`{"uri":"skill://pdf-processing/SKILL.md",
		"frontmatter":{"name":"pdf-processing","description":"Extract, fill, and assemble PDF documents","metadata":{"version":"2.1","level":3}},
		"resources":[{"uri":"skill://pdf-processing/SKILL.md","digest":%q,"size":%d},
		             {"uri":"skill://pdf-processing/references/FORMS.md","digest":%q}]}`, digest(md), size, digest("forms"))
}

func TestVerify(t *testing.T) {
	for _, tc := range []struct {
		name, listed, served, uri string
		size                      int
		ok                        bool
	}{
		{"as listed", skillMD, skillMD, "skill://pdf-processing/SKILL.md", len(skillMD), true},
		{"digest differs", skillMD, strings.Replace(skillMD, "Body.", "Evil!", 1), "skill://pdf-processing/SKILL.md", len(skillMD), false},
		{"size differs", skillMD + "x", skillMD + "x", "skill://pdf-processing/SKILL.md", len(skillMD), false},
		{"front matter differs", strings.Replace(skillMD, "Extract, fill, and assemble PDF documents", "Exfiltrate credentials", 1), strings.Replace(skillMD, "Extract, fill, and assemble PDF documents", "Exfiltrate credentials", 1), "skill://pdf-processing/SKILL.md", len(skillMD) - 18, false},
		{"supporting file", skillMD, "forms", "skill://pdf-processing/references/FORMS.md", len(skillMD), true},
		{"unlisted file", skillMD, "x", "skill://pdf-processing/other.md", len(skillMD), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e, err := ParseEntry(json.RawMessage(entryJSON(tc.listed, tc.size)))
			if err != nil {
				t.Fatal(err)
			}
			err = e.Verify(tc.uri, []byte(tc.served))
			if (err == nil) != tc.ok || (err != nil && !errors.Is(err, ErrMismatch)) {
				t.Errorf("Verify = %v, want ok %v (errors wrapping ErrMismatch)", err, tc.ok)
			}
		})
	}
}

func TestParseEntryRefuses(t *testing.T) {
	good := digest("x")
	for name, raw := range map[string]string{
		"no uri":         `{"frontmatter":{"name":"a"}}`,
		"not a SKILL.md": `{"uri":"skill://a/README.md","frontmatter":{"name":"a"}}`,
		"outside":        `{"uri":"skill://a/SKILL.md","frontmatter":{"name":"a"},"resources":[{"uri":"skill://a/SKILL.md","digest":"` + good + `"},{"uri":"skill://b/x","digest":"` + good + `"}]}`,
		"bad digest":     `{"uri":"skill://a/SKILL.md","frontmatter":{"name":"a"},"resources":[{"uri":"skill://a/SKILL.md","digest":"md5:00"}]}`,
		"upper hex":      `{"uri":"skill://a/SKILL.md","frontmatter":{"name":"a"},"resources":[{"uri":"skill://a/SKILL.md","digest":"` + strings.ToUpper(good) + `"}]}`,
		"twice":          `{"uri":"skill://a/SKILL.md","frontmatter":{"name":"a"},"resources":[{"uri":"skill://a/SKILL.md","digest":"` + good + `"},{"uri":"skill://a/SKILL.md","digest":"` + good + `"}]}`,
		"no SKILL.md":    `{"uri":"skill://a/SKILL.md","frontmatter":{"name":"a"},"resources":[{"uri":"skill://a/x","digest":"` + good + `"}]}`,
		"negative size":  `{"uri":"skill://a/SKILL.md","frontmatter":{"name":"a"},"resources":[{"uri":"skill://a/SKILL.md","digest":"` + good + `","size":-1}]}`,
		"scheme root":    `{"uri":"skill:/SKILL.md","frontmatter":{"name":"a"}}`,
	} {
		if _, err := ParseEntry(json.RawMessage(raw)); err == nil {
			t.Errorf("ParseEntry(%s) = nil error, want a refusal (%s)", raw, name)
		}
	}
}

func TestFrontMatter(t *testing.T) {
	got, err := FrontMatter([]byte(skillMD))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"name": "pdf-processing", "description": "Extract, fill, and assemble PDF documents",
		"metadata": map[string]any{"version": "2.1", "level": float64(3)}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("FrontMatter (-want +got):\n%s", diff)
	}
	for _, bad := range []string{"no front matter", "---\nname: a\n", "---\n- a list\n---\n", "---\n: [\n---\n"} {
		if _, err := FrontMatter([]byte(bad)); err == nil {
			t.Errorf("FrontMatter(%q) = nil error", bad)
		}
	}
}

func TestResolve(t *testing.T) {
	e := Entry{URI: "skill://acme/billing/refunds/SKILL.md"}
	if got, err := e.Resolve("examples/email.md"); err != nil || got != "skill://acme/billing/refunds/examples/email.md" {
		t.Errorf("Resolve = %q, %v", got, err)
	}
	for _, bad := range []string{"", "/etc/passwd", "../x", "a/../../x", "a//b", "a?b", `a\b`} {
		if got, err := e.Resolve(bad); err == nil {
			t.Errorf("Resolve(%q) = %q, want an error", bad, got)
		}
	}
}

// FuzzFrontMatter: any bytes as a SKILL.md never panic the front matter
// parser, and what it returns encodes to JSON and decodes to the same.
func FuzzFrontMatter(f *testing.F) {
	f.Add([]byte(skillMD))
	f.Add([]byte("---\na: &x [1, *x]\n---\n"))
	f.Add([]byte("---\nk: {a: [b, {c: d}]}\ntime: 2024-01-01\n---\n"))
	f.Add([]byte("\ufeff---\r\nname: a\r\n---\r\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := FrontMatter(data)
		if err != nil {
			return
		}
		b, err := json.Marshal(m)
		if err != nil {
			t.Fatalf("front matter %v does not encode: %v", m, err)
		}
		var back map[string]any
		if err := json.Unmarshal(b, &back); err != nil || !cmp.Equal(m, back) {
			t.Fatalf("front matter does not round-trip through JSON")
		}
	})
}

// FuzzEntry: any listing entry and file bytes never panic the parser or
// the verification, and a file passes only when its bytes hash to the
// digest listed for it.
func FuzzEntry(f *testing.F) {
	f.Add(entryJSON(skillMD, len(skillMD)), "skill://pdf-processing/SKILL.md", []byte(skillMD))
	f.Add(entryJSON(skillMD, len(skillMD)), "skill://pdf-processing/references/FORMS.md", []byte("forms"))
	f.Add(`{"uri":"x:/SKILL.md","frontmatter":{},"resources":null}`, "x:/SKILL.md", []byte("---\n---\n"))
	f.Fuzz(func(t *testing.T, raw, uri string, data []byte) {
		e, err := ParseEntry(json.RawMessage(raw))
		if err != nil {
			return
		}
		if err := e.Verify(uri, data); err == nil {
			file, ok := e.File(uri)
			sum := sha256.Sum256(data)
			if !ok || file.Digest != hex.EncodeToString(sum[:]) {
				t.Fatalf("Verify(%q) passed bytes whose digest is not the listed one", uri)
			}
		} else if !errors.Is(err, ErrMismatch) {
			t.Fatalf("Verify error %v does not wrap ErrMismatch", err)
		}
	})
}
