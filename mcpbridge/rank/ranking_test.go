package rank_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/genai"

	"github.com/mcpgenai/bridge/mcpbridge/rank"
)

// docs builds documents of tools given as name: description.
func docs(tools ...rank.Tool) []*rank.Document {
	out := make([]*rank.Document, len(tools))
	for i, t := range tools {
		out[i] = rank.NewDocument(t)
	}
	return out
}

// order returns the names of r's entries with their places.
func order(r *rank.Ranking) []string {
	var out []string
	for _, e := range r.Entries {
		out = append(out, e.Name)
	}
	return out
}

func rankLexical(t *testing.T, q rank.Query, d []*rank.Document) *rank.Ranking {
	t.Helper()
	r, err := rank.Lexical{}.Rank(context.Background(), q, d)
	if err != nil {
		t.Fatalf("Lexical.Rank() error = %v", err)
	}
	return r
}

// TestLexicalFields: a tool is found by each part of what it says: name,
// title, description, server, parameter names, their descriptions and
// enum values, nested ones too, and its hints.
func TestLexicalFields(t *testing.T) {
	schema := func(s string) json.RawMessage { return json.RawMessage(s) }
	tests := []struct {
		name  string
		tool  rank.Tool
		query string
	}{
		{"name", rank.Tool{Name: "zebra_tool"}, "zebra"},
		{"title", rank.Tool{Name: "x", Title: "Giraffe finder"}, "giraffe"},
		{"description", rank.Tool{Name: "x", Description: "Counts penguins"}, "penguin"},
		{"server", rank.Tool{Name: "x", Server: "walrus-server"}, "walrus"},
		{"parameter name", rank.Tool{Name: "x", InputSchema: schema(`{"properties":{"otterCount":{"type":"integer"}}}`)}, "otter"},
		{"parameter description", rank.Tool{Name: "x", InputSchema: schema(`{"properties":{"a":{"description":"a lynx"}}}`)}, "lynx"},
		{"parameter title", rank.Tool{Name: "x", InputSchema: schema(`{"properties":{"a":{"title":"Heron"}}}`)}, "heron"},
		{"enum value", rank.Tool{Name: "x", InputSchema: schema(`{"properties":{"a":{"enum":["badger","mole"]}}}`)}, "badger"},
		{"nested", rank.Tool{Name: "x", InputSchema: schema(`{"properties":{"a":{"type":"array","items":{"properties":{"yak":{}}}}}}`)}, "yak"},
		{"anyOf", rank.Tool{Name: "x", InputSchema: schema(`{"anyOf":[{"properties":{"ibex":{}}}]}`)}, "ibex"},
		{"destructive hint", rank.Tool{Name: "x", Destructive: true}, "delete it"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := docs(rank.Tool{Name: "other_one", Description: "does things"}, tc.tool, rank.Tool{Name: "other_two"})
			r := rankLexical(t, rank.Query{Text: tc.query}, d)
			if r.Entries[0].Index != 1 || r.Entries[0].Score <= 0 || r.Matched != 1 {
				t.Errorf("Rank(%q) = %+v, want only the tool found by its %s", tc.query, r, tc.name)
			}
		})
	}
}

// TestRankingTies: equal scores share a place and keep the order given;
// when nothing matches, Matched says so and every tool is tied at 0.
func TestRankingTies(t *testing.T) {
	d := docs(
		rank.Tool{Name: "b_weather", Description: "weather"},
		rank.Tool{Name: "a_stock", Description: "stock prices"},
		rank.Tool{Name: "c_weather", Description: "weather"},
	)
	r := rankLexical(t, rank.Query{Text: "weather"}, d)
	type placed struct {
		Name  string
		Place int
	}
	var got []placed
	for _, e := range r.Entries {
		got = append(got, placed{e.Name, e.Place})
	}
	want := []placed{{"b_weather", 1}, {"c_weather", 1}, {"a_stock", 3}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("ranking mismatch (-want +got):\n%s", diff)
	}
	if r.Matched != 2 || !r.Tied(0) || !r.Tied(1) || r.Tied(2) || r.Tied(3) || r.Tied(-1) {
		t.Errorf("Matched = %d, Tied = %v %v %v, want 2, true true false", r.Matched, r.Tied(0), r.Tied(1), r.Tied(2))
	}

	none := rankLexical(t, rank.Query{Text: "zeppelin"}, d)
	if none.Matched != 0 {
		t.Errorf("Matched = %d for a query that matches nothing, want 0", none.Matched)
	}
	for _, e := range none.Entries {
		if e.Place != 1 || e.Score != 0 {
			t.Errorf("entry %+v of a query that matches nothing, want place 1 and score 0", e)
		}
	}
	if diff := cmp.Diff([]string{"b_weather", "a_stock", "c_weather"}, order(none)); diff != "" {
		t.Errorf("order when nothing matches (-want +got):\n%s", diff)
	}
}

// TestLexicalLanguages: requests in Japanese, Chinese and Korean find
// tools described in English, and Chinese descriptions are found too.
func TestLexicalLanguages(t *testing.T) {
	d := docs(
		rank.Tool{Name: "get_weather", Description: "Current weather and forecast for a city"},
		rank.Tool{Name: "exchange_rate", Description: "Exchange rates between currencies"},
		rank.Tool{Name: "get-tickets", Description: "查询12306余票信息。"},
		rank.Tool{Name: "list_directory", Description: "Lists the files of a directory"},
	)
	tests := []struct{ query, want string }{
		{"明日の東京の天気は？", "get_weather"},
		{"今天北京天气怎么样", "get_weather"},
		{"내일 서울 날씨 알려 줘", "get_weather"},
		{"100ドルは何円？", "exchange_rate"},
		{"美元兑人民币汇率", "exchange_rate"},
		{"달러 환율", "exchange_rate"},
		{"check train tickets to Shanghai", "get-tickets"},
		{"上海までの新幹線の切符", "get-tickets"},
		{"フォルダの中のファイル一覧", "list_directory"},
	}
	for _, tc := range tests {
		r := rankLexical(t, rank.Query{Text: tc.query}, d)
		if r.Entries[0].Name != tc.want || r.Entries[0].Score <= 0 {
			t.Errorf("Rank(%q) = %v, want %s first", tc.query, order(r), tc.want)
		}
	}
}

func TestConversationQuery(t *testing.T) {
	call := &genai.Content{Role: genai.RoleModel, Parts: []*genai.Part{{FunctionCall: &genai.FunctionCall{Name: "get_weather"}}}}
	conv := []*genai.Content{
		genai.NewContentFromText("email Bob", genai.RoleUser),
		nil,
		{Role: genai.RoleModel, Parts: []*genai.Part{{Text: "secret plan", Thought: true}, {Text: "Sure."}, nil}},
		call,
		{Role: genai.RoleUser, Parts: []*genai.Part{{FunctionResponse: &genai.FunctionResponse{Name: "get_weather"}}}},
		genai.NewContentFromText("and the weather?", genai.RoleUser),
	}
	want := rank.Query{Text: "and the weather?", Context: []string{"email Bob", "Sure.", "get_weather"}}
	if diff := cmp.Diff(want, rank.ConversationQuery(conv)); diff != "" {
		t.Errorf("ConversationQuery() mismatch (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(rank.Query{}, rank.ConversationQuery(nil)); diff != "" {
		t.Errorf("ConversationQuery(nil) mismatch (-want +got):\n%s", diff)
	}
}

// TestContextWeighs: the latest request counts more than earlier text.
func TestContextWeighs(t *testing.T) {
	d := docs(rank.Tool{Name: "send_email"}, rank.Tool{Name: "get_weather"})
	r := rankLexical(t, rank.Query{Text: "what about the weather", Context: []string{"email Bob about the weather"}}, d)
	if r.Entries[0].Name != "get_weather" || r.Matched != 2 {
		t.Errorf("Rank() = %+v, want get_weather first and both matched", r.Entries)
	}
}

func TestNewRanking(t *testing.T) {
	d := docs(rank.Tool{Name: "a"}, rank.Tool{Name: "b"}, rank.Tool{Name: "c"}, rank.Tool{Name: "d"})
	d = append(d, nil)
	r := rank.NewRanking(d, []float64{0.5, -1, 2, 0.5 + 1e-12, 7})
	if diff := cmp.Diff([]string{"c", "a", "d", "b", ""}, order(r)); diff != "" {
		t.Errorf("NewRanking order (-want +got):\n%s", diff)
	}
	if r.Matched != 3 || r.Entries[1].Place != 2 || r.Entries[2].Place != 2 || r.Entries[3].Place != 4 {
		t.Errorf("NewRanking = %+v, want 3 matched and a and d tied", r)
	}
	if diff := cmp.Diff([]float64{0.5, 0, 2, 0.5, 0}, r.Scores()); diff != "" {
		t.Errorf("Scores() mismatch (-want +got):\n%s", diff)
	}
	defer func() {
		if recover() == nil {
			t.Errorf("NewRanking with too few scores did not panic")
		}
	}()
	rank.NewRanking(d, nil)
}

func TestFuse(t *testing.T) {
	d := docs(rank.Tool{Name: "a"}, rank.Tool{Name: "b"}, rank.Tool{Name: "c"})
	lex := rank.NewRanking(d, []float64{3, 2, 0})
	emb := rank.NewRanking(d, []float64{0.1, 0.9, 0.5})
	f := rank.Fuse(lex, emb)
	if diff := cmp.Diff([]string{"b", "a", "c"}, order(f)); diff != "" {
		t.Errorf("Fuse order (-want +got):\n%s", diff)
	}
	if f.Matched != 3 {
		t.Errorf("Fuse Matched = %d, want 3", f.Matched)
	}
	if got := rank.Fuse(); len(got.Entries) != 0 {
		t.Errorf("Fuse() = %+v, want empty", got)
	}
}

// TestDocumentText: the text an embedding model is given holds the name,
// title, description and parameters, and a huge schema is read only in
// part.
func TestDocumentText(t *testing.T) {
	d := rank.NewDocument(rank.Tool{Name: "get_weather", Title: "Weather", Description: "Forecasts.",
		InputSchema: json.RawMessage(`{"properties":{"city":{"description":"City name"}},"required":["city"]}`)})
	if got, want := d.Text(), "get_weather (Weather): Forecasts.\nParameters: city; City name"; got != want {
		t.Errorf("Text() = %q, want %q", got, want)
	}
	props := map[string]any{}
	for i := range 5000 {
		props[strings.Repeat("p", 10)+string(rune('a'+i%26))+strings.Repeat("q", i%7)+string(rune('A'+i/26%26))+string(rune('0'+i/676))] = map[string]any{"description": strings.Repeat("word ", 20)}
	}
	big, _ := json.Marshal(map[string]any{"properties": props})
	if n := len(rank.NewDocument(rank.Tool{Name: "x", InputSchema: big}).Text()); n > 20<<10 {
		t.Errorf("Text() of a %d-byte schema is %d bytes, want it bounded", len(big), n)
	}
	if d := rank.NewDocument(rank.Tool{Name: "x", InputSchema: json.RawMessage(`{not json`)}); d.Text() != "x" {
		t.Errorf("Text() with an invalid schema = %q, want %q", d.Text(), "x")
	}
}
