package lexical

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

// chunkTexts returns the chunks of s as text, CJK runs marked with "|".
func chunkTexts(s string) []string {
	var out []string
	chunks(s, func(c chunk) {
		if c.cjk {
			out = append(out, "|"+c.text+"|")
		} else {
			out = append(out, c.text)
		}
	})
	return out
}

func TestChunks(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"convert_currency", []string{"convert", "currency"}},
		{"getWeatherForecast", []string{"get", "weather", "forecast"}},
		{"getHTTPResponse", []string{"get", "http", "response"}},
		{"iPhone and eBay", []string{"iphone", "and", "ebay"}},
		{"GitHub", []string{"github", "git", "hub"}},
		{"s3.listBuckets-v2", []string{"s3", "list", "buckets", "v2"}},
		{"Größe ändern", []string{"größe", "ändern"}},
		{"ＰＤＦを開く", []string{"pdf", "|を開く|"}},
		{"東京の天気 tomorrow", []string{"|東京の天気|", "tomorrow"}},
		{"서울 날씨 알려 줘", []string{"|서울 날씨 알려 줘|"}},
		{"天気、明日", []string{"|天気|", "|明日|"}},
		{"a " + strings.Repeat("Ab", 100) + " b", []string{"a", "b"}},
		{strings.Repeat("x", 40), nil},
		{"", nil},
	}
	for _, tc := range tests {
		if diff := cmp.Diff(tc.want, chunkTexts(tc.in)); diff != "" {
			t.Errorf("chunks(%q) mismatch (-want +got):\n%s", tc.in, diff)
		}
	}
}

func TestCJKPairs(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"天気予報", []string{"天気", "気予", "予報"}},
		{"東京の天気", []string{"東京", "天気"}},
		{"株", []string{"株"}},
		{"チケットを買う", []string{"チケ", "ケッ", "ット", "買"}},
		{"날씨 알려", []string{"날씨", "알려"}},
		{"の", nil},
	}
	for _, tc := range tests {
		var got []string
		cjkPairs(tc.in, func(p string) { got = append(got, p) })
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("cjkPairs(%q) mismatch (-want +got):\n%s", tc.in, diff)
		}
	}
}

func TestStem(t *testing.T) {
	tests := []struct{ in, want string }{
		{"searches", "search"}, {"searching", "search"}, {"searcher", "search"}, {"search", "search"},
		{"create", "creat"}, {"created", "creat"}, {"creating", "creat"}, {"creation", "creat"},
		{"files", "fil"}, {"file", "fil"},
		{"libraries", "librari"}, {"library", "librari"},
		{"running", "run"}, {"addresses", "address"}, {"address", "address"},
		{"news", "news"}, {"status", "status"}, {"analysis", "analysis"},
		{"station", "station"}, {"stations", "station"}, {"directions", "direct"},
		{"string", "string"}, {"bus", "bus"}, {"größe", "größe"}, {"s3", "s3"},
	}
	for _, tc := range tests {
		if got := stem(tc.in); got != tc.want {
			t.Errorf("stem(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestShapeOf(t *testing.T) {
	tests := []struct{ in, want string }{
		{"/root/markdown/report.md", "fil"},
		{"~/notes.txt", "fil"},
		{`C:\Users\me\a.docx`, "fil"},
		{"report.pdf,", "fil"},
		{"https://example.com/a?b=c", "url"},
		{"www.baidu.com", "url"},
		{"amaz0n.com", "domain"},
		{"2.13.4", ""},
		{"9.5g", ""},
		{"hello", ""},
		{"vercel/ai", ""},
		{"a.b", ""},
	}
	for _, tc := range tests {
		if got := shapeOf(tc.in); got != tc.want {
			t.Errorf("shapeOf(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// FuzzSegment: any text splits into valid non-empty chunks that are parts
// of the text (lower-cased, full-width folded), CJK pairs and the lexicon
// scan never fail, and analyzing it twice gives the same terms.
func FuzzSegment(f *testing.F) {
	for _, s := range []string{"getHTTPResponse\x00\xff", "東京の天気 tomorrow", "서울 날씨", "ＰＤＦ", "/root/a.md www.x.com",
		"a\u3000b", "ｰｰ", strings.Repeat("é", 50), "\xe5\xa4", "GitHub PowerPoint"} {
		f.Add(s)
	}
	lx := theLexicon()
	f.Fuzz(func(t *testing.T, s string) {
		chunks(s, func(c chunk) {
			if c.text == "" || !utf8.ValidString(c.text) {
				t.Fatalf("chunks(%q) gave chunk %q", s, c.text)
			}
			if c.at < 0 || c.at >= len(s) {
				t.Fatalf("chunks(%q) gave offset %d", s, c.at)
			}
			if !c.cjk && len(c.text) > maxWordBytes {
				t.Fatalf("chunks(%q) gave a word of %d bytes", s, len(c.text))
			}
			if c.cjk {
				cjkPairs(c.text, func(p string) {
					if n := utf8.RuneCountInString(p); n < 1 || n > 2 {
						t.Fatalf("cjkPairs(%q) gave %q", c.text, p)
					}
				})
			}
		})
		terms := func() map[uint64]float32 {
			m := map[uint64]float32{}
			add := func(h uint64, w float32) { m[h] += w }
			analyze(lx, s, add, add, add)
			return m
		}
		if diff := cmp.Diff(terms(), terms()); diff != "" {
			t.Fatalf("analyze(%q) differs between two runs:\n%s", s, diff)
		}
		if q := NewQuery(Text{Text: s, Weight: 1}); len(q.terms) != len(q.weights) {
			t.Fatalf("NewQuery(%q): %d terms, %d weights", s, len(q.terms), len(q.weights))
		}
	})
}
