package rank

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"

	"google.golang.org/genai"

	"github.com/mcpgenai/bridge/mcpbridge/internal/lexical"
)

// Query is what tools are ranked for.
type Query struct {
	// Text is what is looked for: a request, or the words a model
	// searches with.
	Text string
	// Context is earlier text of the conversation; each counts a third of
	// Text.
	Context []string
}

// contextWeight is what a Context text counts against Text.
const contextWeight = 1.0 / 3

// ConversationQuery returns the query of a conversation's next step: the
// latest text of the user is the Text; earlier texts of the user and the
// model, and the names of the functions the model called, are its Context.
// Thoughts are skipped; nil contents and parts are allowed. conversation
// is not retained or modified.
func ConversationQuery(conversation []*genai.Content) Query {
	last := -1
	for i, c := range conversation {
		if c != nil && c.Role != genai.RoleModel && textOf(c) != "" {
			last = i
		}
	}
	var q Query
	for i, c := range conversation {
		if c == nil {
			continue
		}
		if i == last {
			q.Text = textOf(c)
			continue
		}
		if s := textOf(c); s != "" {
			q.Context = append(q.Context, s)
		}
		for _, p := range c.Parts {
			if p != nil && p.FunctionCall != nil && p.FunctionCall.Name != "" {
				q.Context = append(q.Context, p.FunctionCall.Name)
			}
		}
	}
	return q
}

// textOf joins the texts of c's parts that are not thoughts.
func textOf(c *genai.Content) string {
	var s string
	for _, p := range c.Parts {
		if p == nil || p.Thought || p.Text == "" {
			continue
		}
		if s != "" {
			s += "\n"
		}
		s += p.Text
	}
	return s
}

// Ranking is the order of a ranker's tools for one query, with the score
// of each: the report of what a request chose and why.
type Ranking struct {
	// Entries holds every document ranked, best first. Equal scores are
	// ties: they share a Place and keep the order the documents were
	// given in.
	Entries []Entry
	// Matched is how many documents matched the query at all (a score
	// above zero); they are the first Matched entries. The others matched
	// nothing: their order is only the order they were given in, which a
	// report of a choice among them should say.
	Matched int
}

// Entry is one ranked document.
type Entry struct {
	// Index is the document's position in the slice given to the ranker.
	Index int
	// Name is the document's tool name.
	Name string
	// Score is the document's score: higher is better, 0 means it matched
	// nothing. Scores compare only within one Ranking.
	Score float64
	// Place is the entry's place, from 1; tied entries share the place of
	// the first of them (1, 2, 2, 4).
	Place int
}

// Scores returns the score of every document in the order they were given
// to the ranker.
func (r *Ranking) Scores() []float64 {
	out := make([]float64, len(r.Entries))
	for _, e := range r.Entries {
		if e.Index >= 0 && e.Index < len(out) {
			out[e.Index] = e.Score
		}
	}
	return out
}

// Tied reports whether the entry at position i of r.Entries shares its
// score with another entry.
func (r *Ranking) Tied(i int) bool {
	if i < 0 || i >= len(r.Entries) {
		return false
	}
	p := r.Entries[i].Place
	return (i > 0 && r.Entries[i-1].Place == p) || (i+1 < len(r.Entries) && r.Entries[i+1].Place == p)
}

// Ranker ranks documents for a query.
type Ranker interface {
	// Rank returns the ranking of docs for q. It must not modify docs; a
	// nil document ranks last with score 0.
	Rank(ctx context.Context, q Query, docs []*Document) (*Ranking, error)
}

// Lexical is the built-in ranker: it works offline, without a model, in a
// fraction of a millisecond for hundreds of tools. It scores each
// document with BM25F over the words of its fields (name and title count
// most, then the description, the server's name and the parameters),
// where
//   - words are split at punctuation and case changes and stemmed
//     ("searching" meets "search", "getWeather" has "weather");
//   - Chinese, Japanese and Korean text, written without spaces, is split
//     into overlapping pairs of characters;
//   - a built-in lexicon of the words people use for what tools do, in
//     English, Japanese, Chinese and Korean, lets a word meet its
//     synonyms and translations ("forecast" meets "weather", "EUR" meets
//     "currency", 天気 meets "weather");
//   - two words of a request said next to each other, or two of its
//     concepts, count again where a tool's name or description says them
//     next to each other too ("stock price" fits get_stock_price better
//     than a stock tool that mentions a price);
//   - a tool gains from how well its server's tools together match, so
//     that the tools that go with the best match come along;
//   - what a request's Text (not its Context) implies its solver will do
//     by its shape gives that step's best tool a place near the top: a file
//     to save or a kind of document to make ("save it to /root/notes.md",
//     "create a markdown report") writing a file, a relative time ("today",
//     明日) the current time, a URL fetching it, a sum or an estimate a
//     calculator, a folder given by its path listing it, a PDF, document,
//     presentation or spreadsheet to make or write the tool that makes
//     that kind (and, for a text document or a presentation, the tool that
//     adds a paragraph or a slide), a document of such a kind to read,
//     open or view the tool that reads that kind, a file given by its path
//     to convert a file reader;
//   - below the first 10 places (never into them), the tools of concepts
//     the lexicon relates to the request's rise: a trip relates to maps,
//     routes and the weather, a price to shops and web pages, news to
//     searching the web and trends.
//
// The zero value is ready to use and safe for concurrent use.
type Lexical struct{}

// Rank implements [Ranker]. It never fails.
func (Lexical) Rank(_ context.Context, q Query, docs []*Document) (*Ranking, error) {
	parts := []lexical.Text{{Text: q.Text, Weight: 1}}
	for _, c := range q.Context {
		parts = append(parts, lexical.Text{Text: c, Weight: contextWeight})
	}
	ld := make([]*lexical.Doc, len(docs))
	group := make([]int, len(docs))
	servers := map[string]int{}
	for i, d := range docs {
		group[i] = -1
		if d == nil {
			continue
		}
		ld[i] = d.doc
		if d.server != "" {
			g, ok := servers[d.server]
			if !ok {
				g = len(servers)
				servers[d.server] = g
			}
			group[i] = g
		}
	}
	return NewRanking(docs, lexical.Score(lexical.NewQuery(parts...), ld, group)), nil
}

// scorePrecision is the precision scores are rounded to, so that scores
// equal but for the order of floating-point additions are ties.
const scorePrecision = 1e-9

// NewRanking returns the ranking of docs by scores (one per document, in
// the same order): best first, equal scores tied in the order given. A
// score that is not a finite number above zero, or that of a nil
// document, counts as 0. Scores are rounded to 1e-9 so that sums taken in
// different orders tie. It is how a host's own [Ranker] reports. It
// panics if the lengths differ.
func NewRanking(docs []*Document, scores []float64) *Ranking {
	if len(docs) != len(scores) {
		panic(fmt.Sprintf("rank: NewRanking of %d documents with %d scores", len(docs), len(scores)))
	}
	clean := make([]float64, len(docs))
	order := make([]int, 0, len(docs))
	r := &Ranking{Entries: make([]Entry, len(docs))}
	for i := range docs {
		s := scores[i]
		if math.IsNaN(s) || math.IsInf(s, 0) || s < 0 || docs[i] == nil {
			s = 0
		}
		clean[i] = math.Round(s/scorePrecision) * scorePrecision
		if clean[i] > 0 {
			order = append(order, i)
		}
	}
	r.Matched = len(order)
	// Best first; equal scores in the order given (a stable order, without
	// the cost of a stable sort of the entries); then, in the order given,
	// the documents that matched nothing (usually most of them: they are
	// not sorted).
	slices.SortFunc(order, func(a, b int) int {
		if c := cmp.Compare(clean[b], clean[a]); c != 0 {
			return c
		}
		return cmp.Compare(a, b)
	})
	for i := range docs {
		if clean[i] == 0 {
			order = append(order, i)
		}
	}
	for i, d := range order {
		r.Entries[i] = Entry{Index: d, Score: clean[d]}
		if docs[d] != nil {
			r.Entries[i].Name = docs[d].name
		}
	}
	for i := range r.Entries {
		r.Entries[i].Place = i + 1
		if i > 0 && r.Entries[i].Score == r.Entries[i-1].Score {
			r.Entries[i].Place = r.Entries[i-1].Place
		}
	}
	return r
}

// rrfK is reciprocal rank fusion's constant: how much the first places
// count more than the next ones (60, as in the method's paper).
const rrfK = 60

// Fuse combines rankings of the same documents for the same query (as
// several rankers returned them) by reciprocal rank fusion: a document
// scores the sum, over the rankings in which it matched (a score above
// 0), of 1/(60 + its place there). Documents ranked high by several
// rankers come first; a ranking's own scales do not matter. Rankings of
// different lengths are a programmer's error: Fuse panics. The result's
// names are those of the first ranking.
func Fuse(rankings ...*Ranking) *Ranking {
	if len(rankings) == 0 {
		return &Ranking{}
	}
	n := len(rankings[0].Entries)
	scores := make([]float64, n)
	docs := make([]*Document, n)
	for _, r := range rankings {
		if len(r.Entries) != n {
			panic(fmt.Sprintf("rank: Fuse of rankings of %d and %d documents", n, len(r.Entries)))
		}
		for _, e := range r.Entries {
			if e.Score > 0 && e.Index >= 0 && e.Index < n {
				scores[e.Index] += 1 / float64(rrfK+e.Place)
			}
		}
	}
	for _, e := range rankings[0].Entries {
		if e.Index >= 0 && e.Index < n {
			docs[e.Index] = &Document{name: e.Name}
		}
	}
	return NewRanking(docs, scores)
}
