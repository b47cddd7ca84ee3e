package lexical

import (
	"cmp"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// conceptsOf returns the concept terms analyze finds in text.
func conceptsOf(text string) map[uint64]bool {
	m := map[uint64]bool{}
	analyze(theLexicon(), text, func(uint64, float32) {}, func(h uint64, _ float32) { m[h] = true }, nil)
	return m
}

// TestLexicon: the built-in lexicon parses, and its members meet across
// languages, phrases before their words, the longest CJK member first.
func TestLexicon(t *testing.T) {
	lx := theLexicon()
	if lx.size < 100 || len(lx.words) < 500 || len(lx.cjk) < 500 {
		t.Errorf("lexicon: %d concepts, %d words, %d CJK members; want a fuller one", lx.size, len(lx.words), len(lx.cjk))
	}
	tests := []struct {
		name      string
		a, b      string
		wantShare bool
	}{
		{"synonym", "forecast", "weather", true},
		{"Japanese", "天気予報", "weather", true},
		{"Chinese", "今天的天气", "weather", true},
		{"Korean with a particle", "날씨를 알려 줘", "weather", true},
		{"Korean phrase across a space", "다음 주", "next week", true},
		{"Korean phrase across a space, from a word's start", "여행 일정", "trip", true},
		{"no Korean member across a space from inside a word", "내일부터 3일 정도", "itinerary", false},
		{"a Korean district names a place", "하이뎬구에 있는 호텔", "address", true},
		{"a word of two syllables ending in 구 is no district", "연구를 찾아", "address", false},
		{"a Korean picture may be a painting", "그림을 찾아", "painting", true},
		{"inflection", "currencies", "EUR", true},
		{"a phrase, not its word", "mind map", "map", false},
		{"the longest CJK member", "股票", "车票", false},
		{"a loanword is one word", "プレゼントを渡す", "presentation", false},
		{"a katakana member before other script", "プレゼン資料", "presentation", true},
		{"a compound of two loanwords, first", "マークダウンファイル", "markdown", true},
		{"a compound of two loanwords, second", "マークダウンファイル", "file", true},
		{"a path names a file", "save it to /root/a.md", "file", true},
		{"a district names a place", "海淀区のホテル", "address", true},
		{"a URL names a web page", "open https://go.dev", "website", true},
		{"a guesthouse is a place to stay", "ゲストハウス", "hotel", true},
		{"a departure is a train's", "departure times", "railway", true},
		{"unrelated", "weather", "stock", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a, b := conceptsOf(tc.a), conceptsOf(tc.b)
			share := false
			for h := range a {
				share = share || b[h]
			}
			if share != tc.wantShare {
				t.Errorf("%q and %q share a concept: %v, want %v", tc.a, tc.b, share, tc.wantShare)
			}
		})
	}
}

func TestParseLexicon(t *testing.T) {
	good := "# comment\n\nweather: weather, forecast, 天気, 날씨 예보\nweather -> file, file,\nfile: file , path,\n"
	lx, err := parseLexicon(good)
	if err != nil {
		t.Fatalf("parseLexicon() error = %v", err)
	}
	if lx.size != 2 || len(lx.words) != 4 || len(lx.cjk) != 2 || lx.cjk["날씨예보"] == nil {
		t.Errorf("parseLexicon() = %d concepts, words %v, CJK %v", lx.size, lx.words, lx.cjk)
	}
	if got, want := lx.related, map[uint64][]uint64{conceptTerm("weather"): {conceptTerm("file")}}; !reflect.DeepEqual(got, want) {
		t.Errorf("parseLexicon() relations = %v, want %v", got, want)
	}
	for _, bad := range []string{
		"no colon here",
		": no name",
		"two words: x",
		"dup: a\ndup: b",
		"stop: the",
		"mixed: PDF ファイル",
		"runs: 天気、雨",
		"a: x\na -> b",
		"a: x\nb -> a",
		"a: x\na -> a",
	} {
		if _, err := parseLexicon(bad); err == nil {
			t.Errorf("parseLexicon(%q) = nil error, want one", bad)
		}
	}
}

func doc(fields map[Field]string, needs ...string) *Doc {
	var b Builder
	for _, f := range []Field{Name, Description, Parameter, Server} {
		b.Add(f, fields[f])
	}
	for _, n := range needs {
		b.Need(n)
	}
	return b.Doc()
}

func best(scores []float64) int {
	b := 0
	for i, s := range scores {
		if s > scores[b] {
			b = i
		}
	}
	return b
}

func TestScore(t *testing.T) {
	docs := []*Doc{
		doc(map[Field]string{Name: "send_email", Description: "Sends an email message", Parameter: "recipient subject"}),
		doc(map[Field]string{Name: "get_weather", Description: "Current weather for a city", Parameter: "city"}),
		doc(map[Field]string{Name: "convert_currency", Description: "Converts money between currencies", Parameter: "amount"}),
		doc(map[Field]string{Name: "lookup", Description: "Looks things up", Parameter: "ticker"}),
	}
	tests := []struct {
		query string
		want  int
	}{
		{"what's the weather in Oslo?", 1},
		{"how many yen is 5 EUR", 2},
		{"price of ticker GOOG", 3},
		{"mail Bob", 0},
		{"東京の天気は？", 1},
		{"환율 알려 줘", 2},
	}
	for _, tc := range tests {
		scores := Score(NewQuery(Text{Text: tc.query, Weight: 1}), docs, nil)
		if b := best(scores); b != tc.want || scores[b] <= 0 {
			t.Errorf("Score(%q) = %v, want document %d best", tc.query, scores, tc.want)
		}
	}
	if got := Score(NewQuery(Text{Text: "the and of", Weight: 1}), docs, nil); slices.ContainsFunc(got, func(s float64) bool { return s != 0 }) {
		t.Errorf("Score(stop words only) = %v, want zeros", got)
	}
	if got := Score(Query{}, nil, nil); len(got) != 0 {
		t.Errorf("Score(zero, nil) = %v, want empty", got)
	}
	got := Score(NewQuery(Text{Text: "weather", Weight: 1}), []*Doc{nil, docs[1]}, []int{-1, 0})
	if got[0] != 0 || got[1] <= 0 {
		t.Errorf("Score with a nil document = %v, want [0, >0]", got)
	}
	if q := NewQuery(Text{Text: "weather", Weight: 0}, Text{Text: "", Weight: 1}); !q.Empty() {
		t.Errorf("NewQuery of no weight and no text is not empty")
	}
}

// TestScoreName: a word in the name counts more than in the description.
func TestScoreName(t *testing.T) {
	docs := []*Doc{
		doc(map[Field]string{Name: "list_items", Description: "Lists the items of a calendar"}),
		doc(map[Field]string{Name: "calendar", Description: "Lists the items"}),
	}
	if s := Score(NewQuery(Text{Text: "calendar", Weight: 1}), docs, nil); s[1] <= s[0] {
		t.Errorf("Score(calendar) = %v, want the tool named so first", s)
	}
}

// TestScoreNear: of two tools with the same words, the one that says two
// of the request's words (or concepts) next to each other fits it better;
// a word between them, or more than nearGapCJK characters between two CJK
// concepts, and the gain is gone.
func TestScoreNear(t *testing.T) {
	tests := []struct{ query, near, apart string }{
		{"stock price", "stock price and closing value", "stock closing and price value"},
		{"price of a stock", "stock price and closing value", "stock closing and price value"},
		{"the weather forecast", "weather forecast of a region", "weather of a region forecast"},
		{"株の価格", "株の価格とニュース", "株のニュースと価格"},
		{"股票价格", "股票价格和新闻", "股票和新闻价格"},
	}
	for _, tc := range tests {
		docs := []*Doc{
			doc(map[Field]string{Name: "tool", Description: tc.apart}),
			doc(map[Field]string{Name: "tool", Description: tc.near}),
		}
		if s := Score(NewQuery(Text{Text: tc.query, Weight: 1}), docs, nil); s[1] <= s[0] {
			t.Errorf("Score(%q) = %v, want %q above %q", tc.query, s, tc.near, tc.apart)
		}
	}
	// More than nearGapCJK characters between two concepts: no near term.
	gap := strings.Repeat("の", nearGapCJK+1)
	if got, want := nearTermsOf("株"+gap+"価格"), 0; got != want {
		t.Errorf("near terms of 株%s価格: %d, want %d", gap, got, want)
	}
	if got := nearTermsOf("株の価格"); got != 1 {
		t.Errorf("near terms of 株の価格: %d, want 1", got)
	}
}

// nearTermsOf counts the near terms analyze gives text.
func nearTermsOf(text string) int {
	n := 0
	analyze(theLexicon(), text, func(uint64, float32) {}, func(uint64, float32) {}, func(uint64, float32) { n++ })
	return n
}

// TestScoreServers: a tool of the server of the best match gains from it;
// a tool that gives what the best match needs gains more.
func TestScoreServers(t *testing.T) {
	docs := []*Doc{
		doc(map[Field]string{Name: "find_restaurants", Description: "Restaurants near a point", Server: "maps"}, "latitude", "longitude"),
		doc(map[Field]string{Name: "geocode", Description: "Turns an address into latitude and longitude", Server: "maps"}, "address"),
		doc(map[Field]string{Name: "elevation", Description: "Height of a point", Server: "maps"}, "latitude", "longitude"),
		doc(map[Field]string{Name: "stock_quote", Description: "Price of a share", Server: "finance"}),
	}
	q := NewQuery(Text{Text: "restaurants near the Eiffel Tower", Weight: 1})
	q.related = nil // places relate to maps: see TestScoreRelated
	alone := Score(q, docs, nil)
	grouped := Score(q, docs, []int{0, 0, 0, 1})
	if alone[1] != 0 || alone[2] != 0 {
		t.Fatalf("Score without groups = %v, want only the match to score", alone)
	}
	if !(grouped[1] > grouped[2] && grouped[2] > 0 && grouped[3] == 0) {
		t.Errorf("Score with groups = %v, want geocode > elevation > 0 = stock_quote", grouped)
	}
	if best(grouped) != 0 {
		t.Errorf("Score with groups = %v, want the match still first", grouped)
	}
}

// TestScoreSteps: a step a request implies by its shape (a file to save,
// a relative time, a URL, a sum, a folder's path, a kind of document to
// make or to read, a file to convert) raises the tool that best fits the
// step by stepWeight, and only that one; a request that implies nothing,
// or whose context alone would, scores as its words do.
func TestScoreSteps(t *testing.T) {
	docs := []*Doc{
		doc(map[Field]string{Name: "bitcoin_price", Description: "Bitcoin price and market report", Server: "crypto"}),
		doc(map[Field]string{Name: "bitcoin_news", Description: "Bitcoin news report", Server: "crypto"}),
		doc(map[Field]string{Name: "write_file", Description: "Write content to a file", Parameter: "path content", Server: "fs"}),
		doc(map[Field]string{Name: "read_file", Description: "Read a file", Parameter: "path", Server: "fs"}),
		doc(map[Field]string{Name: "get_current_time", Description: "The current time in a timezone", Server: "time"}),
		doc(map[Field]string{Name: "fetch", Description: "Fetches a URL", Parameter: "url", Server: "web"}),
		doc(map[Field]string{Name: "calculate", Description: "Evaluates an arithmetic expression", Server: "calc"}),
		doc(map[Field]string{Name: "list_directory", Description: "Lists the entries of a directory", Parameter: "path", Server: "fs"}),
		doc(map[Field]string{Name: "create_presentation", Description: "Creates a new slide deck", Server: "slides"}),
		doc(map[Field]string{Name: "add_slide", Description: "Adds a slide to a presentation", Server: "slides"}),
		doc(map[Field]string{Name: "create_document", Description: "Creates a new Word document", Server: "word"}),
		doc(map[Field]string{Name: "add_paragraph", Description: "Adds a paragraph of text to a document", Server: "word"}),
		doc(map[Field]string{Name: "read_document", Description: "Returns the text of a Word document", Parameter: "filename", Server: "word"}),
	}
	group := []int{0, 0, 1, 1, 2, 3, 4, 1, 5, 5, 6, 6, 6}
	tests := []struct {
		name, text, context string
		want                []int // documents that gain stepWeight
	}{
		{"a report saved at a path", "Write a report on bitcoin and save it in /root/markdown/bitcoin.md", "", []int{2}},
		{"a kind of file to make", "Create a markdown report on bitcoin", "", []int{2}},
		{"a relative time", "bitcoin news from today", "", []int{4}},
		{"a URL", "summarize https://bitcoin.org/en/ for me", "", []int{5}},
		{"a sum", "estimate the value of 2 bitcoin", "", []int{6}},
		{"two steps", "save today's bitcoin price to /tmp/btc.md", "", []int{2, 4}},
		{"a folder by its path", "summarize the bitcoin papers in the /root/pdf/btc folder", "", []int{7}},
		{"a kind of document to make, and its slides", "make a PowerPoint deck on bitcoin", "", []int{2, 8, 9}},
		{"a document to write, and its paragraphs", "write a Word document on bitcoin", "", []int{2, 10, 11}},
		{"a document to read", "who is named in the Word document /root/word/gifts.docx? read it", "", []int{12}},
		{"a file by its path to convert", "convert the bitcoin notes in /root/txt/btc.bib to markdown", "", []int{3}},
		{"Japanese", "ビットコインのレポートを作成して /root/btc.md に保存して", "", []int{2}},
		{"Korean, a document to read", "/root/word/gifts.docx 파일을 읽고 비트코인 가격을 알려 주세요", "", []int{12}},
		{"nothing implied", "bitcoin price report", "", nil},
		{"only the context", "bitcoin price report", "save it to /root/a.md today", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			texts := []Text{{Text: tc.text, Weight: 1}}
			if tc.context != "" {
				texts = append(texts, Text{Text: tc.context, Weight: 1.0 / 3})
			}
			q := NewQuery(texts...)
			q.related = nil // see TestScoreRelated
			plain := q
			plain.steps = nil
			got, without := Score(q, docs, group), Score(plain, docs, group)
			for i := range docs {
				gain := 0.0
				if slices.Contains(tc.want, i) {
					gain = stepWeight
				}
				if math.Abs(got[i]-without[i]-gain) > 1e-9 {
					t.Errorf("Score(%q) of document %d = %v, %v without the steps; want a gain of %v", tc.text, i, got[i], without[i], gain)
				}
			}
		})
	}
}

// TestScoreReadingSteps: a request to read a document of a kind, or to
// convert a file given by its path, brings the tool that reads it to the
// first place, above tools that match the request's other words better.
func TestScoreReadingSteps(t *testing.T) {
	docs := []*Doc{
		doc(map[Field]string{Name: "gift_registry", Description: "Lists the gifts each guest gave and who gave no gift", Server: "party"}),
		doc(map[Field]string{Name: "bibliography_formatter", Description: "Formats a reference list of papers in APA style", Server: "refs"}),
		doc(map[Field]string{Name: "read_file", Description: "Read a file", Parameter: "path", Server: "fs"}),
		doc(map[Field]string{Name: "read_document", Description: "Returns the text of a Word document", Parameter: "filename", Server: "word"}),
	}
	group := []int{0, 1, 2, 3}
	for _, tc := range []struct {
		text string
		want int
	}{
		{"read /root/word/party.docx and tell me who gave no gift", 3},
		{"/root/word/party.docx を読んで、プレゼントを渡さなかった人を教えて", 3},
		{"convert the reference list in /root/txt/papers.bib to markdown", 2},
	} {
		q := NewQuery(Text{Text: tc.text, Weight: 1})
		plain := q
		plain.steps = nil
		if got, without := best(Score(q, docs, group)), best(Score(plain, docs, group)); got != tc.want || without == tc.want {
			t.Errorf("Score(%q): best %d, %d without the steps; want %d, another without", tc.text, got, without, tc.want)
		}
	}
}

// TestScoreRelated: the tools of the concepts related to a request's come
// right after the first tierFrom places (the request's own best matches,
// whose order does not change) and before the tools that match the
// request less, in the order of their match to the related concepts; a
// request that names no related concept scores as its words do.
func TestScoreRelated(t *testing.T) {
	// Three tools that match the request well, then tools that match one
	// of its words, more than fill the first tierFrom places.
	var docs []*Doc
	for i := range 3 {
		docs = append(docs, doc(map[Field]string{Name: fmt.Sprintf("hotel_%d", i), Description: "Books a hotel room for a stay" + strings.Repeat(" at a hotel", i)}))
	}
	for i := range tierFrom {
		docs = append(docs, doc(map[Field]string{Name: fmt.Sprintf("tool_%d", i), Description: "Room service" + strings.Repeat(" of the staff", i)}))
	}
	mapTool, other := len(docs), len(docs)+1
	docs = append(docs,
		doc(map[Field]string{Name: "show_map", Description: "Shows a map of a city"}),
		doc(map[Field]string{Name: "stock_quote", Description: "Price of a share"}),
	)
	q := NewQuery(Text{Text: "book a hotel room in Paris", Weight: 1})
	if len(q.related) == 0 {
		t.Fatalf("NewQuery(a hotel) relates no concept; want lodging's")
	}
	plain := q
	plain.related = nil
	got, without := Score(q, docs, nil), Score(plain, docs, nil)
	indexes := make([]int, len(docs))
	for i := range indexes {
		indexes[i] = i
	}
	order := func(s []float64) []int { // best first, the first given of equal scores first
		return slices.SortedStableFunc(slices.Values(indexes), func(a, b int) int { return cmp.Compare(s[b], s[a]) })
	}
	g, w := order(got), order(without)
	if !slices.Equal(g[:tierFrom], w[:tierFrom]) {
		t.Errorf("the first %d places = %v, %v without the related concepts; want them unchanged", tierFrom, g[:tierFrom], w[:tierFrom])
	}
	if without[mapTool] != 0 || without[w[tierFrom]] <= 0 || relatedWeight <= without[w[tierFrom-1]] {
		t.Fatalf("Score without the related concepts = %v; want the map tool at 0, more matches than places, the last place's below relatedWeight", without)
	}
	if g[tierFrom] != mapTool || !slices.Equal(g[tierFrom+1:], slices.DeleteFunc(slices.Clone(w[tierFrom:]), func(i int) bool { return i == mapTool })) || got[other] != 0 {
		t.Errorf("Score = %v (order %v, %v without the related concepts); want the map tool next after the first %d places, the rest in order, the stock tool at 0", got, g, w, tierFrom)
	}
	for i := range docs {
		if !(got[i] >= 0) || math.IsInf(got[i], 0) {
			t.Errorf("Score of document %d = %v; want finite, not negative", i, got[i])
		}
	}
	// Fewer matches than tierFrom: they keep their places.
	few := []*Doc{docs[0], docs[mapTool], docs[3]}
	s := Score(q, few, nil)
	if !(s[0] > s[1] && s[2] > s[1] && s[1] > 0) {
		t.Errorf("Score of two matches and the map tool = %v; want the map tool third, above 0", s)
	}
	if q := NewQuery(Text{Text: "convert a file", Weight: 1}); len(q.related) != 0 {
		t.Errorf("NewQuery(convert a file) relates %d concepts; want none", len(q.related))
	}
}

// TestStepConcepts: the concepts the steps are implied by are the
// lexicon's (a misspelled one would never be named).
func TestStepConcepts(t *testing.T) {
	lx := theLexicon()
	known := map[uint64]bool{}
	for _, terms := range lx.words {
		for _, c := range terms {
			known[c] = true
		}
	}
	for _, name := range []string{"markdown", "pdf", "spreadsheet", "document", "presentation", "text", "report", "write", "create", "now", "calculate", "directory", "read", "convert"} {
		if !known[conceptTerm(name)] {
			t.Errorf("the lexicon has no concept %q", name)
		}
	}
}

// TestIsDistrict: a Korean district's name, with or without a particle.
func TestIsDistrict(t *testing.T) {
	for w, want := range map[string]bool{
		"강남구": true, "하이뎬구에": true, "황푸구": true, "푸둥신구의": true,
		"연구": false, "연구를": false, "도구": false, "구": false, "구에": false,
		"gu": false, "海淀区": false, "강남": false, "": false,
	} {
		if got := isDistrict(w); got != want {
			t.Errorf("isDistrict(%q) = %v, want %v", w, got, want)
		}
	}
}

// TestMatch: a query of a few terms, searched for term by term, finds the
// same hits in the same order as a longer one merged with each document,
// its near terms among the document's near terms.
func TestMatch(t *testing.T) {
	var words []string
	for i := range 300 {
		words = append(words, fmt.Sprintf("w%dx", i))
	}
	var docs []*Doc
	for i := range 40 {
		var text []string
		for j := range 1 + i*7%120 {
			text = append(text, words[(i*31+j*j)%len(words)])
		}
		docs = append(docs, doc(map[Field]string{Name: words[i], Description: strings.Join(text, " ")}))
	}
	avg := fieldAverages(docs)
	for n := 1; n <= 200; n += 9 {
		q, _ := newQuery([]Text{{Text: strings.Join(words[n:n+n/2+1], " "), Weight: 1}})
		var want []hit
		for i, d := range docs {
			var norm [numFields]float64
			for f := range norm {
				norm[f] = fieldWeight[f] / (1 - fieldB[f] + fieldB[f]*float64(d.lens[f])/avg[f])
			}
			for b, term := range q.terms {
				terms, tfs := d.terms, d.tf
				if b >= q.nearFrom {
					terms, tfs = d.near, d.nearTF
				}
				if a, ok := slices.BinarySearch(terms, term); ok {
					tf := 0.0
					for f, c := range tfs[a*int(numFields) : (a+1)*int(numFields)] {
						tf += float64(c) * norm[f]
					}
					want = append(want, hit{i, b, tf})
				}
			}
		}
		got := match(q, docs, avg)
		if len(got) != len(want) {
			t.Fatalf("match of %d terms: %d hits, want %d", len(q.terms), len(got), len(want))
		}
		for i := range got {
			if got[i] != want[i] {
				t.Fatalf("match of %d terms: hit %d = %v, want %v", len(q.terms), i, got[i], want[i])
			}
		}
		// Other terms looked for in the same pass: the same hits, and
		// theirs as match finds them alone.
		from := n + n/2 + 1 // past q's words
		if n > 150 {
			from = 0 // before them
		}
		other, _ := newQuery([]Text{{Text: strings.Join(words[from:from+8], " "), Weight: 1}})
		also := other.terms[:other.nearFrom]
		both, alsoHits := matchAlso(q, also, docs, avg)
		if !slices.Equal(both, got) || !slices.Equal(alsoHits, match(Query{terms: also, nearFrom: len(also)}, docs, avg)) || len(alsoHits) == 0 {
			t.Fatalf("matchAlso of %d and %d terms = %d and %d hits; want match's %d, and match's of the others", len(q.terms), len(also), len(both), len(alsoHits), len(got))
		}
	}
}

// FuzzScore: any query and documents give one finite, non-negative score
// per document, the same twice.
func FuzzScore(f *testing.F) {
	f.Add("convert 5 dollars", "convert_currency", "Converts money", "amount", "fx")
	f.Add("getHTTPResponse\x00\xff", "ÀÉ_x", "ß", "天気", "")
	f.Add("東京の天気", "get_weather", "天気予報を取得", "city", "weather")
	f.Add("book a hotel in Paris", "show_map", "A map of a city", "hotel", "maps")
	f.Fuzz(func(t *testing.T, query, name, desc, param, server string) {
		docs := []*Doc{
			doc(map[Field]string{Name: name, Description: desc, Parameter: param, Server: server}, param),
			doc(map[Field]string{Name: query, Server: server}, name),
			nil,
		}
		q := NewQuery(Text{Text: query, Weight: 1}, Text{Text: desc, Weight: 1.0 / 3})
		a := Score(q, docs, []int{0, 0, -1})
		b := Score(q, docs, []int{0, 0, -1})
		if len(a) != len(docs) || !slices.Equal(a, b) {
			t.Fatalf("Score(%q) = %v then %v", query, a, b)
		}
		for _, s := range a {
			if math.IsNaN(s) || math.IsInf(s, 0) || s < 0 {
				t.Fatalf("Score(%q) score %v", query, s)
			}
		}
		if strings.TrimSpace(query) == "" && strings.TrimSpace(desc) == "" && a[0] != 0 {
			t.Fatalf("Score of a blank query = %v", a)
		}
	})
}

// FuzzParseLexicon: any text parses or fails without a panic; a lexicon
// parsed relates no concept to itself.
func FuzzParseLexicon(f *testing.F) {
	f.Add("weather: weather, 天気\nmap: map\nweather -> map\n")
	f.Add("a -> b\nb: x")
	f.Add("x: ->, y\ny -> ")
	f.Fuzz(func(t *testing.T, text string) {
		lx, err := parseLexicon(text)
		if err != nil {
			return
		}
		for from, to := range lx.related {
			if slices.Contains(to, from) || len(to) == 0 {
				t.Fatalf("parseLexicon(%q) relates %v to %v", text, from, to)
			}
		}
	})
}
