package lexical

import (
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/genai"
)

func TestWords(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"convert_currency", []string{"convert", "currency"}},
		{"getWeatherForecast", []string{"get", "weather", "forecast"}},
		{"Reads the files of a directory.", []string{"read", "file", "directory"}},
		{"s3.listBuckets-v2", []string{"s3", "list", "bucket", "v2"}},
		{"class address", []string{"class", "address"}},
		{"Größe ändern", []string{"größe", "ändern"}},
		{"", nil},
	}
	for _, tc := range tests {
		if diff := cmp.Diff(tc.want, words(tc.in)); diff != "" {
			t.Errorf("words(%q) mismatch (-want +got):\n%s", tc.in, diff)
		}
	}
}

func TestScore(t *testing.T) {
	docs := []*Index{
		NewIndex("send_email", "Sends an email message", "recipient", "subject"),
		NewIndex("get_weather", "Current weather for a city", "city"),
		NewIndex("convert_currency", "Converts money between currencies", "amount"),
		NewIndex("search", "Searches", "ticker"),
	}
	names := []string{"send_email", "get_weather", "convert_currency", "search"}
	user := func(s string) *genai.Content { return genai.NewContentFromText(s, genai.RoleUser) }
	tests := []struct {
		name string
		conv []*genai.Content
		want string // the best document
	}{
		{"by description", []*genai.Content{user("what's the weather in Oslo?")}, "get_weather"},
		{"by name", []*genai.Content{user("convert 5 dollars")}, "convert_currency"},
		{"by parameter name", []*genai.Content{user("price of ticker GOOG")}, "search"},
		{"the latest message weighs most", []*genai.Content{user("email Bob about the weather"), user("actually, just the weather")}, "get_weather"},
		{"a called function counts", []*genai.Content{
			user("go on"),
			{Role: genai.RoleModel, Parts: []*genai.Part{{FunctionCall: &genai.FunctionCall{Name: "send_email"}}}},
		}, "send_email"},
		{"thoughts do not count", []*genai.Content{
			user("email"),
			{Role: genai.RoleModel, Parts: []*genai.Part{{Text: "weather weather weather", Thought: true}}},
		}, "send_email"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			scores := Score(NewQuery(tc.conv), docs)
			best := 0
			for i, s := range scores {
				if s > scores[best] {
					best = i
				}
			}
			if names[best] != tc.want || scores[best] <= 0 {
				t.Errorf("best = %s (scores %v), want %s", names[best], scores, tc.want)
			}
		})
	}
	if got := Score(NewQuery([]*genai.Content{user("the")}), docs); !cmp.Equal(got, make([]float64, len(docs))) {
		t.Errorf("Score(stop words only) = %v, want zeros", got)
	}
	if got := Score(Query{}, nil); len(got) != 0 {
		t.Errorf("Score(zero, nil) = %v, want empty", got)
	}
	if got := Score(NewQuery([]*genai.Content{user("email"), nil}), []*Index{nil, docs[0]}); got[0] != 0 || got[1] <= 0 {
		t.Errorf("Score with a nil document = %v, want [0, >0]", got)
	}
}

// TestNewIndexOrder: the order of texts does not change an index.
func TestNewIndexOrder(t *testing.T) {
	a, b := NewIndex("alpha beta", "beta gamma"), NewIndex("beta gamma", "alpha beta")
	if diff := cmp.Diff(a, b, cmp.AllowUnexported(Index{})); diff != "" {
		t.Errorf("NewIndex depends on the order of texts (-a +b):\n%s", diff)
	}
}

// FuzzScore: any text, in the conversation or in a document, gives one
// finite, non-negative score per document, and words are never empty.
func FuzzScore(f *testing.F) {
	f.Add("convert 5 dollars", "convert_currency", "Converts money")
	f.Add("getHTTPResponse\x00\xff", "ÀÉ_x", "ß")
	f.Fuzz(func(t *testing.T, query, name, desc string) {
		for _, w := range words(query + " " + name + " " + desc) {
			if w == "" {
				t.Fatalf("words() gave an empty word")
			}
		}
		docs := []*Index{NewIndex(name, desc), NewIndex("other", query)}
		conv := []*genai.Content{genai.NewContentFromText(query, genai.RoleUser), genai.NewContentFromText(desc, genai.RoleModel)}
		scores := Score(NewQuery(conv), docs)
		if len(scores) != len(docs) {
			t.Fatalf("Score() = %v, want %d scores", scores, len(docs))
		}
		for _, s := range scores {
			if math.IsNaN(s) || math.IsInf(s, 0) || s < 0 {
				t.Fatalf("Score(%q) score %v", query, s)
			}
		}
	})
}
