// Package lexical scores documents against a conversation by the words
// they share, offline and without a model: Okapi BM25 over words split at
// "_", ".", "-" and camelCase, with case and a plural "s" ignored and common
// English words skipped. The latest user message counts three times as much
// as earlier text; the names of functions already called count too.
package lexical

import (
	"math"
	"slices"
	"strings"
	"unicode"

	"google.golang.org/genai"
)

// BM25's usual constants.
const (
	bm25K1 = 1.2
	bm25B  = 0.75
)

// Query is the weighed words of a conversation. The zero Query matches
// nothing.
type Query struct {
	terms   []uint64 // sorted hashes
	weights []float64
}

// NewQuery weighs the words of a conversation: the latest user text three
// times, every other text and called function name once. Thoughts are
// skipped; nil entries are allowed. conversation is not retained.
func NewQuery(conversation []*genai.Content) Query {
	terms, weights := queryTerms(conversation)
	return Query{terms: terms, weights: weights}
}

// Score returns one BM25 score per document: finite, not negative, zero
// for a document that shares no word with q. A nil document has no words.
// Score never modifies q or docs.
func Score(q Query, docs []*Index) []float64 {
	scores := make([]float64, len(docs))
	qTerms, qWeights := q.terms, q.weights
	if len(qTerms) == 0 || len(docs) == 0 {
		return scores
	}
	// One merge of two sorted lists of term hashes per document: no map in
	// the loop over documents.
	type hit struct {
		doc, term int // indexes into docs and qTerms
		tf        float64
	}
	var hits []hit
	df := make([]int, len(qTerms))
	lengths := make([]int, len(docs))
	total := 0
	for i, idx := range docs {
		if idx == nil {
			continue
		}
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
	avg := float64(total) / float64(len(docs))
	if avg == 0 {
		avg = 1
	}
	n := float64(len(docs))
	for _, h := range hits {
		d := float64(df[h.term])
		idf := math.Log(1 + (n-d+0.5)/(d+0.5))
		norm := 1 - bm25B + bm25B*float64(lengths[h.doc])/avg
		scores[h.doc] += qWeights[h.term] * idf * h.tf * (bm25K1 + 1) / (h.tf + bm25K1*norm)
	}
	return scores
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

// Index is a document's words: the hashes of its distinct words, sorted,
// with their counts. An Index is immutable and safe for concurrent use.
type Index struct {
	terms  []uint64
	counts []int
	length int // words in all
}

// NewIndex returns the index of the words of texts, counted together.
func NewIndex(texts ...string) *Index {
	counts := map[uint64]int{}
	length := 0
	for _, s := range texts {
		for _, w := range words(s) {
			counts[termHash(w)]++
			length++
		}
	}
	idx := &Index{length: length, terms: make([]uint64, 0, len(counts))}
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
