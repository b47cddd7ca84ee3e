package lexical

import (
	"cmp"
	"maps"
	"math"
	"math/bits"
	"slices"
)

// Weights of the fields, BM25F's constants and the rest of the scoring.
// They were set on the dev split of the ranker's recall tests (see the
// rank package's testdata): by hand first, then fieldWeight, fieldB and k1
// by coordinate ascent over a grid, on the dev split alone; in a third
// round k1 and memberWeight (a grid of the two, then coordinate ascent
// over every constant here and in analyze.go, which kept them), on the dev
// split alone.
var (
	// fieldWeight is how much a term counts in each field.
	fieldWeight = [numFields]float64{Name: 2, Description: 1, Parameter: 0.25, Server: 1}
	// fieldB is BM25F's length normalization per field.
	fieldB = [numFields]float64{Name: 0.3, Description: 0.5, Parameter: 0.75, Server: 0.3}
	// k1 is BM25's saturation constant.
	k1 = 6.0
	// conceptWeight is what a concept named in a text counts, against 1
	// for a word.
	conceptWeight float32 = 1
	// serverWeight is how much the best match of a tool's server adds to
	// its own score, both normalized to the best of the request.
	serverWeight = 0.3
	// chainWeight is how much a tool gains from giving what a better
	// matched tool of its server needs and the request does not say.
	chainWeight = 0.25
	// chainFrom is how many of the best matched tools are looked at for
	// what they need.
	chainFrom = 5
	// relatedWeight is how much the concepts related to the request's
	// (see related) count below the first tierFrom places, against 1 for
	// the request's own match; set on the dev split in a sixth round, as
	// was tierFrom.
	relatedWeight = 0.45
	// tierFrom is how many of the best matched documents the related
	// concepts never pass.
	tierFrom = 10
)

// Text is a part of a query and how much it counts.
type Text struct {
	Text   string
	Weight float64
}

// Query is the weighed terms of what is looked for. The zero Query
// matches nothing.
type Query struct {
	// terms are the words and concepts, sorted, then from nearFrom on
	// the near terms (see analyze), sorted: documents keep the two apart.
	terms    []uint64
	nearFrom int
	weights  []float64
	steps    []int    // indexes in steps of the steps the texts imply
	related  []uint64 // sorted terms of the concepts related to the request's (see related)
}

// NewQuery analyzes texts as docs are. A term's weight in a text grows
// with the logarithm of its count there (a word said three times is not
// three times the request), times the text's weight; the weights of the
// texts add up. Texts with no weight (or a negative one) are skipped.
// What the texts of full weight (1 or more) imply a solver will do (see
// step), and the lexicon's concepts related to those they name that they
// do not name themselves, are kept with the terms.
func NewQuery(texts ...Text) Query {
	q, own := newQuery(texts)
	q.steps = impliedSteps(own, texts)
	q.related = related(theLexicon(), q, own)
	return q
}

// related returns the sorted terms of the concepts lx relates to those in
// own that q's words and concepts do not have.
func related(lx *lexicon, q Query, own map[uint64]bool) []uint64 {
	var out []uint64
	for c := range own {
		for _, r := range lx.related[c] {
			if _, ok := slices.BinarySearch(q.terms[:q.nearFrom], r); !ok {
				out = append(out, r)
			}
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// newQuery is NewQuery without the steps; it also returns the set of the
// concepts named by the texts of full weight.
func newQuery(texts []Text) (Query, map[uint64]bool) {
	w, near := map[uint64]float64{}, map[uint64]float64{}
	own := map[uint64]bool{}
	lx := theLexicon()
	for _, t := range texts {
		if t.Weight <= 0 || t.Text == "" {
			continue
		}
		count, nearCount := map[uint64]float64{}, map[uint64]float64{}
		analyze(lx, t.Text,
			func(h uint64, w float32) { count[h] += float64(w) },
			func(h uint64, w float32) {
				count[h] += float64(w * conceptWeight)
				if t.Weight >= 1 {
					own[h] = true
				}
			},
			func(h uint64, w float32) { nearCount[h] += float64(w) })
		for _, c := range []struct{ from, to map[uint64]float64 }{{count, w}, {nearCount, near}} {
			for h, n := range c.from {
				if n > 1 { // sublinear
					n = 1 + math.Log(n)
				}
				c.to[h] += t.Weight * n
			}
		}
	}
	q := Query{terms: make([]uint64, 0, len(w)+len(near))}
	q.terms = append(q.terms, slices.Sorted(maps.Keys(w))...)
	q.nearFrom = len(q.terms)
	q.terms = append(q.terms, slices.Sorted(maps.Keys(near))...)
	q.weights = make([]float64, len(q.terms))
	for i, h := range q.terms {
		if i < q.nearFrom {
			q.weights[i] = w[h]
		} else {
			q.weights[i] = near[h]
		}
	}
	return q, own
}

// Empty reports whether q has no term: every document scores zero.
func (q Query) Empty() bool { return len(q.terms) == 0 }

// Score returns one score per document, finite and not negative, 0 for a
// document that shares nothing with q, whose server's tools share nothing
// either, that is not the best fit of a step q implies, and that has no
// concept related to q's (all 0 when q's own terms match no document). group[i] says which server offers docs[i]; a negative
// group, or a nil group slice, puts a document alone. A nil document has
// no terms. Score modifies neither q nor docs.
//
// A document's score is its BM25F score, normalized to the best of the
// request, plus chainWeight times what it gives of what the best matched
// tools of its server need (see chainScores), plus serverWeight times its
// server's score, normalized the same way (see serverScores): the tools
// that go with a well-matched tool come along. The document that fits
// best each step q implies (see step) gains stepWeight. Then the concepts
// related to the request's reorder what comes after the first tierFrom
// places, never passing them (see relatedTier): a document that matches
// only them scores above 0, below every document of those places.
func Score(q Query, docs []*Doc, group []int) []float64 {
	if len(q.terms) == 0 || len(docs) == 0 {
		return make([]float64, len(docs))
	}
	avg := fieldAverages(docs)
	hits, relHits := matchAlso(q, q.related, docs, avg)
	if len(hits) == 0 {
		return make([]float64, len(docs))
	}
	scores := bm25(q, docs, hits)
	top := 0.0
	for _, s := range scores {
		top = max(top, s)
	}
	for i := range scores {
		scores[i] /= top
	}
	if group != nil && chainWeight > 0 {
		chain := chainScores(q, docs, group, scores)
		for i, c := range chain {
			scores[i] += chainWeight * c
		}
	}
	if group != nil && serverWeight > 0 {
		server := serverScores(q, docs, group, hits)
		for i, g := range group {
			if g >= 0 {
				scores[i] += serverWeight * server[g]
			}
		}
	}
	if len(q.steps) > 0 {
		qs := make([]Query, len(q.steps))
		for i, s := range q.steps {
			qs[i] = stepQueries()[s]
		}
		for _, best := range bestFor(qs, docs, avg) {
			if best >= 0 {
				scores[best] += stepWeight
			}
		}
	}
	if len(relHits) > 0 {
		relatedTier(scores, q.related, docs, relHits)
	}
	return scores
}

// relatedTier lets the concepts related to a request's (terms, sorted;
// hits their hits in docs) reorder the documents below the first tierFrom places of scores, the
// scores of documents that match the request: a document below them
// scores its own score plus relatedWeight times its BM25F score for the
// related concepts (normalized to the best), the sum scaled to stay below
// the last of those places. When fewer than tierFrom documents score above
// 0, those that do keep their places. The order of the first places does
// not change, nor that of the documents below them that match no related
// concept.
func relatedTier(scores []float64, terms []uint64, docs []*Doc, hits []hit) {
	bound := tierBound(scores)
	if bound <= 0 {
		return
	}
	q := Query{terms: terms, nearFrom: len(terms), weights: make([]float64, len(terms))}
	for i := range q.weights {
		q.weights[i] = 1
	}
	rel := bm25(q, docs, hits)
	top := 0.0
	for _, r := range rel {
		top = max(top, r)
	}
	// Below the bound, (s + w·r) / (bound + w) < 1 as s < bound and r ≤ 1.
	scale := 0.99 * bound / (bound + relatedWeight)
	for i, s := range scores {
		if s < bound {
			scores[i] = scale * (s + relatedWeight*rel[i]/top)
		}
	}
}

// tierBound returns the tierFrom-th best of scores, or the least above 0
// when fewer score above 0 (0 when none does).
func tierBound(scores []float64) float64 {
	best := make([]float64, 0, tierFrom) // the best scores seen, best first
	for _, s := range scores {
		if s <= 0 || len(best) == tierFrom && s <= best[tierFrom-1] {
			continue
		}
		at, _ := slices.BinarySearchFunc(best, s, func(a, b float64) int { return cmp.Compare(b, a) })
		if len(best) < tierFrom {
			best = append(best, 0)
		}
		copy(best[at+1:], best[at:])
		best[at] = s
	}
	if len(best) == 0 {
		return 0
	}
	return best[len(best)-1]
}

// bm25 returns the BM25F score of each document from the hits of q's
// terms in docs.
func bm25(q Query, docs []*Doc, hits []hit) []float64 {
	w := termWeights(q, len(docs), hits)
	scores := make([]float64, len(docs))
	for _, h := range hits {
		scores[h.doc] += w[h.term] * h.tf / (h.tf + k1)
	}
	return scores
}

// termWeights returns each of q's terms' weight times its idf among n
// documents, hits being its hits in them.
func termWeights(q Query, n int, hits []hit) []float64 {
	df := make([]int, len(q.terms))
	for _, h := range hits {
		df[h.term]++
	}
	w := make([]float64, len(q.terms))
	for t := range w {
		w[t] = q.weights[t] * idf(float64(n), df[t])
	}
	return w
}

// idf is BM25's inverse document frequency of a term found in df of n
// documents.
func idf(n float64, df int) float64 {
	d := float64(df)
	return math.Log(1 + (n-d+0.5)/(d+0.5))
}

// fieldAverages returns the average length of each field over docs (1
// for a field no document has).
func fieldAverages(docs []*Doc) [numFields]float64 {
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
	return avg
}

// match finds the query's terms in every document, whose fields' average
// lengths are avg: its words and concepts among the document's (see
// intersect), then, in a document that has two of them or more, its near
// terms among the document's near terms; no map in the loop over
// documents. Hits come in document order, then term order.
func match(q Query, docs []*Doc, avg [numFields]float64) []hit {
	hits, _ := matchAlso(q, nil, docs, avg)
	return hits
}

// matchAlso is match, also finding the terms of also (sorted, none of
// them among q's words and concepts) among each document's words and
// concepts in the same merge; their hits come apart, in the same order,
// each hit's term its index in also.
func matchAlso(q Query, also []uint64, docs []*Doc, avg [numFields]float64) (hits, alsoHits []hit) {
	terms, near := q.terms[:q.nearFrom], q.terms[q.nearFrom:]
	// want is terms and also merged; from says where each of its terms
	// comes from: its index in terms, or -1 less its index in also.
	want, from := terms, []int(nil)
	if len(also) > 0 {
		want = make([]uint64, 0, len(terms)+len(also))
		from = make([]int, 0, len(terms)+len(also))
		for i, j := 0, 0; i < len(terms) || j < len(also); {
			if j == len(also) || i < len(terms) && terms[i] < also[j] {
				want, from = append(want, terms[i]), append(from, i)
				i++
			} else {
				want, from = append(want, also[j]), append(from, -1-j)
				j++
			}
		}
	}
	for i, d := range docs {
		if d == nil {
			continue
		}
		var norm [numFields]float64 // set at the document's first hit (never 0 then: a name weighs)
		first := len(hits)
		found := func(tf []float32, from int) func(a, b int) {
			return func(a, b int) {
				if norm[Name] == 0 {
					norm = d.norm(avg)
				}
				hits = append(hits, hit{i, from + b, weighed(tf, a, &norm)})
			}
		}
		if from == nil {
			intersect(d.terms, terms, found(d.tf, 0))
		} else {
			intersect(d.terms, want, func(a, b int) {
				if norm[Name] == 0 {
					norm = d.norm(avg)
				}
				h := hit{i, from[b], weighed(d.tf, a, &norm)}
				if h.term < 0 {
					h.term = -1 - h.term
					alsoHits = append(alsoHits, h)
				} else {
					hits = append(hits, h)
				}
			})
		}
		// Two things said next to each other are two terms: a document
		// with fewer hits has none of the query's near terms.
		if len(hits)-first >= 2 && len(d.near) > 0 {
			intersect(d.near, near, found(d.nearTF, q.nearFrom))
		}
	}
	return hits, alsoHits
}

// intersect calls fn(a, b) for each term both of two sorted lists have,
// in order, a and b its indexes in have and want: one merge of the two
// lists, or, when want is short, a binary search of each of its terms.
func intersect(have, want []uint64, fn func(a, b int)) {
	if few := 2 * len(want) * bits.Len(uint(len(have))); few < len(have) {
		for b, t := range want {
			if a, ok := slices.BinarySearch(have, t); ok {
				fn(a, b)
			}
		}
		return
	}
	a, b := 0, 0
	for a < len(have) && b < len(want) {
		switch x, y := have[a], want[b]; {
		case x < y:
			a++
		case x > y:
			b++
		default:
			fn(a, b)
			a++
			b++
		}
	}
}

// norm returns BM25F's weight of each of d's fields: the field's weight
// over its length normalization, avg holding the average lengths.
func (d *Doc) norm(avg [numFields]float64) [numFields]float64 {
	var norm [numFields]float64
	for f := range norm {
		norm[f] = fieldWeight[f] / (1 - fieldB[f] + fieldB[f]*float64(d.lens[f])/avg[f])
	}
	return norm
}

// weighed returns the weighed frequency over its fields of a document's
// a-th term, tf holding the frequencies of its terms (Doc.tf or
// Doc.nearTF), norm the fields' weights (see norm).
func weighed(tf []float32, a int, norm *[numFields]float64) float64 {
	w := 0.0
	for f, c := range tf[a*int(numFields) : (a+1)*int(numFields)] {
		w += float64(c) * norm[f]
	}
	return w
}

// A hit is a query term found in a document.
type hit struct {
	doc, term int     // indexes into the documents and the query's terms
	tf        float64 // BM25F's weighted, length-normalized term frequency
}

// serverScores returns the score of each group, normalized to the best: a
// BM25 over servers, where a server's frequency of a term is that of its
// tool that has the most of it, so that a server whose tools together
// cover the request scores high, whatever its number of tools.
func serverScores(q Query, docs []*Doc, group []int, hits []hit) map[int]float64 {
	groups := map[int]bool{}
	for i := range docs {
		if group[i] >= 0 {
			groups[group[i]] = true
		}
	}
	terms := len(q.terms)
	best := map[int]float64{} // group*terms+term -> the group's best tf of the term
	for _, h := range hits {
		if g := group[h.doc]; g >= 0 {
			k := g*terms + h.term
			best[k] = max(best[k], h.tf)
		}
	}
	df := make([]int, terms)
	for k := range best {
		df[k%terms]++
	}
	n := float64(len(groups))
	server := map[int]float64{}
	for k, tf := range best {
		t := k % terms
		server[k/terms] += q.weights[t] * idf(n, df[t]) * tf / (tf + k1)
	}
	top := 0.0
	for _, s := range server {
		top = max(top, s)
	}
	for g := range server {
		server[g] /= top
	}
	return server
}

// chainScores returns, for each document, how much it gives of what the
// best matched documents of its server need: for each of the chainFrom
// best documents c (by scores), the terms of c's required arguments that
// the request does not have are looked for in the name and description of
// the other documents of c's group that do not need them themselves; a
// document that has them scores c's score times the share of c's missing
// terms it has, each term weighed by its idf among the group's documents
// (a term every tool of the server says tells little). A tool that turns a
// place name into coordinates thus comes along with a tool that needs
// coordinates.
func chainScores(q Query, docs []*Doc, group []int, scores []float64) []float64 {
	out := make([]float64, len(docs))
	// The chainFrom best documents that need something, best first (the
	// first given of equal scores first).
	order := make([]int, 0, chainFrom+1)
	for i, d := range docs {
		if d == nil || len(d.needs) == 0 || group[i] < 0 || scores[i] <= 0 {
			continue
		}
		at := len(order)
		for at > 0 && scores[order[at-1]] < scores[i] {
			at--
		}
		if at < chainFrom {
			order = slices.Insert(order, at, i)
			order = order[:min(len(order), chainFrom)]
		}
	}
	members := map[int][]int{} // the documents of the groups looked at
	for _, c := range order {
		members[group[c]] = nil
	}
	for i, g := range group {
		if m, ok := members[g]; ok && docs[i] != nil {
			members[g] = append(m, i)
		}
	}
	for _, c := range order {
		peers := members[group[c]]
		var missing []uint64
		var weight []float64
		total := 0.0
		for _, t := range docs[c].needs {
			if _, ok := slices.BinarySearch(q.terms[:q.nearFrom], t); ok {
				continue
			}
			df := 0
			for _, e := range peers {
				if docs[e].has(t) {
					df++
				}
			}
			w := idf(float64(len(peers)), df)
			missing, weight = append(missing, t), append(weight, w)
			total += w
		}
		if total == 0 {
			continue
		}
		for _, e := range peers {
			if e == c {
				continue
			}
			got := 0.0
			for i, t := range missing {
				if docs[e].says(t) && !docs[e].needsTerm(t) {
					got += weight[i]
				}
			}
			out[e] = max(out[e], scores[c]*got/total)
		}
	}
	return out
}
