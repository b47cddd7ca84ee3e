package mcpbridge

import (
	"context"
	"math"
	"slices"
	"strings"
	"sync"
	"unicode"

	"google.golang.org/genai"
)

// LexicalRanker ranks tools by the words they share with the conversation,
// offline and without a model: Okapi BM25 over the words of each tool's
// name, description and parameter names (names split at "_", ".", "-" and
// camelCase; case and a plural "s" ignored; common English words skipped).
// The latest user message counts three times as much as earlier text; the
// names of functions already called count too. The zero value is ready to
// use and safe for concurrent use.
type LexicalRanker struct{}

// BM25's usual constants.
const (
	bm25K1 = 1.2
	bm25B  = 0.75
)

// Rank implements [Ranker]. It never fails.
func (LexicalRanker) Rank(_ context.Context, conversation []*genai.Content, tools []*Tool) ([]float64, error) {
	scores := make([]float64, len(tools))
	qTerms, qWeights := queryTerms(conversation)
	if len(qTerms) == 0 || len(tools) == 0 {
		return scores, nil
	}
	// One merge of two sorted lists of term hashes per tool: no map in
	// the loop over tools.
	type hit struct {
		tool, term int // indexes into tools and qTerms
		tf         float64
	}
	var hits []hit
	df := make([]int, len(qTerms))
	lengths := make([]int, len(tools))
	total := 0
	for i, t := range tools {
		idx := t.lexical()
		lengths[i] = idx.length
		total += idx.length
		a, q := 0, 0
		for a < len(idx.terms) && q < len(qTerms) {
			switch x, y := idx.terms[a], qTerms[q]; {
			case x < y:
				a++
			case x > y:
				q++
			default:
				hits = append(hits, hit{i, q, float64(idx.counts[a])})
				df[q]++
				a++
				q++
			}
		}
	}
	avg := float64(total) / float64(len(tools))
	if avg == 0 {
		avg = 1
	}
	n := float64(len(tools))
	for _, h := range hits {
		d := float64(df[h.term])
		idf := math.Log(1 + (n-d+0.5)/(d+0.5))
		norm := 1 - bm25B + bm25B*float64(lengths[h.tool])/avg
		scores[h.tool] += qWeights[h.term] * idf * h.tf * (bm25K1 + 1) / (h.tf + bm25K1*norm)
	}
	return scores, nil
}

// termHash is the key of a word in an index: FNV-1a, 64 bits.
func termHash(w string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(w); i++ {
		h ^= uint64(w[i])
		h *= 1099511628211
	}
	return h
}

// lexicalIndex is a tool's words for [LexicalRanker]: the hashes of its
// distinct words, sorted, with their counts.
type lexicalIndex struct {
	terms  []uint64
	counts []int
	length int // words in all
}

// lexicalCache builds a Tool's index once; Tools are immutable, so it never
// goes stale.
type lexicalCache struct {
	once sync.Once
	idx  *lexicalIndex
}

// lexical returns t's index, built on first use (every time for a Tool the
// Bridge did not build).
func (t *Tool) lexical() *lexicalIndex {
	if t.lex == nil {
		return buildLexical(t)
	}
	t.lex.once.Do(func() { t.lex.idx = buildLexical(t) })
	return t.lex.idx
}

func buildLexical(t *Tool) *lexicalIndex {
	counts := map[uint64]int{}
	length := 0
	add := func(s string) {
		for _, w := range words(s) {
			counts[termHash(w)]++
			length++
		}
	}
	add(t.Name)
	if t.ServerTool != t.Name {
		add(t.ServerTool)
	}
	add(t.Title)
	add(t.Description)
	if d := t.Declaration; d != nil {
		if d.Parameters != nil {
			for k, p := range d.Parameters.Properties {
				add(k)
				if p != nil {
					add(p.Description)
				}
			}
		} else if m, ok := d.ParametersJsonSchema.(map[string]any); ok {
			if props, ok := m["properties"].(map[string]any); ok {
				for k, p := range props {
					add(k)
					if pm, ok := p.(map[string]any); ok {
						if s, ok := pm["description"].(string); ok {
							add(s)
						}
					}
				}
			}
		}
	}
	idx := &lexicalIndex{length: length, terms: make([]uint64, 0, len(counts))}
	for w := range counts {
		idx.terms = append(idx.terms, w)
	}
	slices.Sort(idx.terms)
	idx.counts = make([]int, len(idx.terms))
	for i, w := range idx.terms {
		idx.counts[i] = counts[w]
	}
	return idx
}

// queryTerms weighs the words of a conversation: the latest user text three
// times, every other text and called function name once. It returns the
// words' hashes, sorted, and their weights.
func queryTerms(conversation []*genai.Content) (terms []uint64, weights []float64) {
	q := map[uint64]float64{}
	last := -1
	for i, c := range conversation {
		if c != nil && c.Role != genai.RoleModel && hasText(c) {
			last = i
		}
	}
	for i, c := range conversation {
		if c == nil {
			continue
		}
		w := 1.0
		if i == last {
			w = 3
		}
		for _, p := range c.Parts {
			if p == nil {
				continue
			}
			s := p.Text
			if p.FunctionCall != nil {
				s = p.FunctionCall.Name
			}
			if p.Thought {
				continue
			}
			for _, word := range words(s) {
				q[termHash(word)] += w
			}
		}
	}
	terms = make([]uint64, 0, len(q))
	for h := range q {
		terms = append(terms, h)
	}
	slices.Sort(terms)
	weights = make([]float64, len(terms))
	for i, h := range terms {
		weights[i] = q[h]
	}
	return terms, weights
}

func hasText(c *genai.Content) bool {
	for _, p := range c.Parts {
		if p != nil && p.Text != "" && !p.Thought {
			return true
		}
	}
	return false
}

// words splits s into lower-case words: at every character that is not a
// letter or digit and between a lower-case letter and an upper-case one;
// a plural "s" is cut from words longer than three letters, and stop words
// and one-letter words are dropped.
func words(s string) []string {
	var out []string
	start := -1
	flush := func(end int) {
		if start < 0 {
			return
		}
		w := strings.ToLower(s[start:end])
		start = -1
		if len(w) > 3 && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") {
			w = w[:len(w)-1]
		}
		if len(w) < 2 || stopWords[w] {
			return
		}
		out = append(out, w)
	}
	prevLower := false
	for i, r := range s {
		alnum := unicode.IsLetter(r) || unicode.IsDigit(r)
		switch {
		case !alnum:
			flush(i)
		case unicode.IsUpper(r) && prevLower:
			flush(i)
			start = i
		case start < 0:
			start = i
		}
		prevLower = alnum && (unicode.IsLower(r) || unicode.IsDigit(r))
	}
	flush(len(s))
	return out
}

// stopWords are common English words that say nothing about a tool.
var stopWords = map[string]bool{
	"the": true, "an": true, "and": true, "or": true, "of": true, "to": true, "in": true,
	"on": true, "for": true, "with": true, "is": true, "it": true, "be": true, "by": true,
	"at": true, "as": true, "from": true, "this": true, "that": true, "are": true, "me": true,
	"my": true, "you": true, "your": true, "we": true, "please": true, "can": true, "do": true,
	"what": true, "which": true, "if": true, "not": true, "all": true, "some": true, "use": true,
	"will": true, "would": true, "should": true, "into": true, "its": true, "then": true,
}
