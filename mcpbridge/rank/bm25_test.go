package rank_test

import (
	"math"
	"strings"
	"unicode"
)

// The two rankers the built-in one is measured against, in the same run:
//   - "bm25": plain Okapi BM25 over a tool's name and description;
//   - "previous": the ranker this package replaced, the same BM25 over the
//     name, description and parameter names and descriptions.
// Both split words at punctuation and camelCase, lower-case them, cut a
// plural "s" and skip common English words, as the previous ranker did.

// bm25Index is a tool's words and their counts.
type bm25Index struct {
	counts map[string]int
	length int
}

func newBM25Index(texts ...string) bm25Index {
	idx := bm25Index{counts: map[string]int{}}
	for _, s := range texts {
		for _, w := range bm25Words(s) {
			idx.counts[w]++
			idx.length++
		}
	}
	return idx
}

// bm25Scores scores every index against the words of query.
func bm25Scores(query string, docs []bm25Index) []float64 {
	const k1, b = 1.2, 0.75
	q := map[string]float64{}
	for _, w := range bm25Words(query) {
		q[w]++
	}
	total := 0
	df := map[string]int{}
	for _, d := range docs {
		total += d.length
		for w := range q {
			if d.counts[w] > 0 {
				df[w]++
			}
		}
	}
	avg := max(float64(total)/float64(len(docs)), 1)
	n := float64(len(docs))
	scores := make([]float64, len(docs))
	for i, d := range docs {
		for w, qw := range q {
			tf := float64(d.counts[w])
			if tf == 0 {
				continue
			}
			idf := math.Log(1 + (n-float64(df[w])+0.5)/(float64(df[w])+0.5))
			norm := 1 - b + b*float64(d.length)/avg
			scores[i] += qw * idf * tf * (k1 + 1) / (tf + k1*norm)
		}
	}
	return scores
}

// bm25Words is the previous ranker's word splitting.
func bm25Words(s string) []string {
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
		if len(w) < 2 || bm25Stop[w] {
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

var bm25Stop = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`the an and or of to in on for with is it be by at as from this that are
		me my you your we please can do what which if not all some use will would should into its then`) {
		bm25Stop[w] = true
	}
}
