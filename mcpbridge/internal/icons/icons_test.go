package icons

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestClean(t *testing.T) {
	png := "data:image/png;base64,iVBORw0K"
	in := []Icon{
		{Src: "https://example.com/a.png", MIMEType: "image/png", Sizes: []string{"48x48", "huge", "any"}, Theme: "dark"},
		{Src: "javascript:alert(1)"},
		{Src: "http://example.com/plain.png"},
		{Src: "http://localhost:9/dev.png", Theme: "neon"},
		{Src: "https://example.com/x.html", MIMEType: "text/html"},
		{Src: png},
		{Src: "data:text/html;base64,PGI+"},
		{Src: "data:image/png;base64,!!!"},
		{Src: "data:image/png,rawbytes"},
		{Src: "data:image/png;base64," + strings.Repeat("A", MaxDataURI)},
		{Src: "https://exa\u202emple.com/i.png"},
	}
	want := []Icon{
		{Src: "https://example.com/a.png", MIMEType: "image/png", Sizes: []string{"48x48", "any"}, Theme: "dark"},
		{Src: "http://localhost:9/dev.png"},
		{Src: png},
	}
	before := cloneIcons(in)
	got := Clean(in)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Clean (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(before, in); diff != "" {
		t.Errorf("Clean modified its input (-before +after):\n%s", diff)
	}
	many := make([]Icon, 20)
	for i := range many {
		many[i] = Icon{Src: "https://example.com/i.png"}
	}
	if n := len(Clean(many)); n != MaxIcons {
		t.Errorf("len(Clean(20 icons)) = %d, want %d", n, MaxIcons)
	}
	if got := Clean(nil); got != nil {
		t.Errorf("Clean(nil) = %v, want nil", got)
	}
}

func cloneIcons(in []Icon) []Icon {
	b, _ := json.Marshal(in)
	var out []Icon
	_ = json.Unmarshal(b, &out)
	return out
}

func TestFromJSON(t *testing.T) {
	got := FromJSON(json.RawMessage(`{"name":"t","icons":[{"src":"https://example.com/i.png","sizes":["16x16"]},{"src":"ftp://x/y"}]}`))
	want := []Icon{{Src: "https://example.com/i.png", Sizes: []string{"16x16"}}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("FromJSON (-want +got):\n%s", diff)
	}
	for _, bad := range []string{`{"icons":"x"}`, `[1]`, `{}`, `{"icons":[{"src":5}]}`} {
		if got := FromJSON(json.RawMessage(bad)); got != nil {
			t.Errorf("FromJSON(%s) = %v, want nil", bad, got)
		}
	}
}

// FuzzFromJSON: no panic; every icon kept is https, loopback http or an
// image data URI within the limit, and cleaning again changes nothing.
func FuzzFromJSON(f *testing.F) {
	f.Add(`{"icons":[{"src":"https://example.com/i.png","mimeType":"image/png","sizes":["48x48"],"theme":"light"}]}`)
	f.Add(`{"icons":[{"src":"data:image/svg+xml;base64,PHN2Zz4="},{"src":"javascript:x"}]}`)
	f.Fuzz(func(t *testing.T, obj string) {
		got := FromJSON(json.RawMessage(obj))
		if len(got) > MaxIcons {
			t.Fatalf("%d icons kept", len(got))
		}
		for _, ic := range got {
			if !strings.HasPrefix(ic.Src, "https://") && !strings.HasPrefix(ic.Src, "http://") && !strings.HasPrefix(ic.Src, "data:image/") {
				t.Fatalf("icon source %q kept", ic.Src)
			}
		}
		if again := Clean(got); !cmp.Equal(again, got) {
			t.Fatalf("Clean not idempotent: %v -> %v", got, again)
		}
	})
}
