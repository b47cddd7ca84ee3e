package lexical

import (
	"math"
	"slices"
)

// Weights of the fields, BM25F's constants and the rest of the scoring.
// They were set on the dev split of the ranker's recall tests (see the
// rank package's testdata).
var (
	// fieldWeight is how much a term counts in each field.
	fieldWeight = [numFields]float64{Name: 3, Description: 1, Parameter: 0.5, Server: 1}
	// fieldB is BM25F's length normalization per field.
	fieldB = [numFields]float64{Name: 0.3, Description: 0.75, Parameter: 0.75, Server: 0.3}
	// k1 is BM25's saturation constant.
	k1 = 1.2
	// conceptWeight is what a concept named in a text counts, against 1
	// for a word.
	conceptWeight float32 = 1
	// serverWeight is how much the best match of a tool's server adds to
	// its own score, both normalized to the best of the request.
	serverWeight = 0.3
)

// Text is a part of a query and how much it counts.
type Text struct {
	Text   string
	Weight float64
}

// Query is the weighed terms of what is looked for. The zero Query
// matches nothing.
type Query struct {
	terms   []uint64 // sorted
	weights []float64
}

// NewQuery analyzes texts as docs are. A term's weight in a text grows
// with the logarithm of its count there (a word said three times is not
// three times the request), times the text's weight; the weights of the
// texts add up. Texts with no weight (or a negative one) are skipped.
func NewQuery(texts ...Text) Query {
	w := map[uint64]float64{}
	lx := theLexicon()
	for _, t := range texts {
		if t.Weight <= 0 || t.Text == "" {
			continue
		}
		count := map[uint64]float64{}
		analyze(lx, t.Text,
			func(h uint64) { count[h]++ },
			func(h uint64) { count[h] += float64(conceptWeight) })
		for h, c := range count {
			if c > 1 {
				c = 1 + math.Log(c)
			}
			w[h] += t.Weight * c
		}
	}
	q := Query{terms: make([]uint64, 0, len(w))}
	for h := range w {
		q.terms = append(q.terms, h)
	}
	slices.Sort(q.terms)
	q.weights = make([]float64, len(q.terms))
	for i, h := range q.terms {
		q.weights[i] = w[h]
	}
	return q
}

// Empty reports whether q has no term: every document scores zero.
func (q Query) Empty() bool { return len(q.terms) == 0 }

// Score returns one score per document, finite and not negative, 0 for a
// document that shares nothing with q and whose server's tools share
// nothing either. group[i] says which server offers docs[i]: documents of
// one group gain from the best match among them, so that the tools that
// go with a well-matched tool come along. A negative group, or a nil
// group slice, puts a document alone. A nil document has no terms. Score
// modifies neither q nor docs.
func Score(q Query, docs []*Doc, group []int) []float64 {
	scores := make([]float64, len(docs))
	if len(q.terms) == 0 || len(docs) == 0 {
		return scores
	}
	var avg [numFields]float64
	for _, d := range docs {
		if d == nil {
			continue
		}
		for f := range avg {
			avg[f] += float64(d.lens[f])
		}
	}
	for f := range avg {
		avg[f] /= float64(len(docs))
		if avg[f] == 0 {
			avg[f] = 1
		}
	}
	var hits []hit
	df := make([]int, len(q.terms))
	for i, d := range docs {
		if d == nil {
			continue
		}
		var norm [numFields]float64
		for f := range norm {
			norm[f] = fieldWeight[f] / (1 - fieldB[f] + fieldB[f]*float64(d.lens[f])/avg[f])
		}
		a, b := 0, 0
		for a < len(d.terms) && b < len(q.terms) {
			switch x, y := d.terms[a], q.terms[b]; {
			case x < y:
				a++
			case x > y:
				b++
			default:
				tf := 0.0
				for f, c := range d.tf[a*int(numFields) : (a+1)*int(numFields)] {
					tf += float64(c) * norm[f]
				}
				hits = append(hits, hit{i, b, tf})
				df[b]++
				a++
				b++
			}
		}
	}
	n := float64(len(docs))
	for _, h := range hits {
		d := float64(df[h.term])
		idf := math.Log(1 + (n-d+0.5)/(d+0.5))
		scores[h.doc] += q.weights[h.term] * idf * h.tf / (h.tf + k1)
	}
	if serverWeight > 0 && group != nil {
		addServers(scores, q, docs, group, hits)
	}
	return scores
}

// A hit is a query term found in a document.
type hit struct {
	doc, term int     // indexes into the documents and the query's terms
	tf        float64 // BM25F's weighted, length-normalized term frequency
}

// addServers normalizes scores to the best one and adds serverWeight times
// each document's server score, normalized the same way. A server's score
// is BM25 over servers, where a server's frequency of a term is that of
// its tool that has the most of it: a server whose tools together cover
// the request scores high, whatever its number of tools.
func addServers(scores []float64, q Query, docs []*Doc, group []int, hits []hit) {
	type key struct{ g, term int }
	best := map[key]float64{}
	groups := map[int]bool{}
	for i := range docs {
		if group[i] >= 0 {
			groups[group[i]] = true
		}
	}
	for _, h := range hits {
		g := group[h.doc]
		if g < 0 {
			continue
		}
		k := key{g, h.term}
		best[k] = max(best[k], h.tf)
	}
	df := make([]int, len(q.terms))
	for k := range best {
		df[k.term]++
	}
	n := float64(len(groups))
	server := map[int]float64{}
	for k, tf := range best {
		d := float64(df[k.term])
		idf := math.Log(1 + (n-d+0.5)/(d+0.5))
		server[k.g] += q.weights[k.term] * idf * tf / (tf + k1)
	}
	top, topServer := 0.0, 0.0
	for _, s := range scores {
		top = max(top, s)
	}
	for _, s := range server {
		topServer = max(topServer, s)
	}
	for i := range scores {
		if top > 0 {
			scores[i] /= top
		}
		if g := group[i]; g >= 0 && topServer > 0 {
			scores[i] += serverWeight * server[g] / topServer
		}
	}
}
