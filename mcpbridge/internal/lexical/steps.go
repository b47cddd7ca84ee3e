package lexical

import (
	"slices"
	"sync"
)

// stepWeight is what the tool that best fits a step a request implies
// gains, against 1 for the best match of the request's own words. It was
// set on the dev split of the ranker's recall tests (see the rank
// package's testdata), in a fourth round.
const stepWeight = 0.75

// A step is something a request's solver will do that the request implies
// by its shape more than by its words: a request for a report saved at
// /x/y.md will write a file, one about today will need the date. When a
// request implies a step, the tool that best fits the step's own words
// gains stepWeight (see Score), so that it comes among the first places
// even when the request's subject fills them.
type step struct {
	// words is what the step is, as a tool would say it.
	words string
	// implied reports whether a request that names the concepts in
	// named and whose text has the shapes in shaped (see shapeOf)
	// implies the step.
	implied func(named concepts, shaped map[string]bool) bool
}

// steps are the steps a request may imply; only general vocabulary and
// shapes trigger them (the concepts are the lexicon's).
var steps = slices.Concat([]step{
	// Saving or making a file or a document of some type: write a file.
	{"write file", func(named concepts, shaped map[string]bool) bool {
		return (shaped[stem("file")] || named.has("markdown", "pdf", "spreadsheet", "document", "presentation", "text", "report")) &&
			named.has("write", "create")
	}},
	// A relative time (today, tomorrow, recently): know the date.
	{"time now", func(named concepts, _ map[string]bool) bool { return named.has("now") }},
	// A URL: fetch it.
	{"fetch url", func(_ concepts, shaped map[string]bool) bool { return shaped["url"] }},
	// Calculating or estimating: a calculator.
	{"calculate", func(named concepts, _ map[string]bool) bool { return named.has("calculate") }},
	// A folder given by its path: list it.
	{"list directory", func(named concepts, shaped map[string]bool) bool {
		return shaped[stem("file")] && named.has("directory")
	}},
},
	// Making or writing a document of a kind: the tool that makes that
	// kind.
	forKinds(making),
	[]step{
		// What such a document is made of: a text document's paragraphs, a
		// presentation's slides.
		filling("document", "add paragraph"),
		filling("presentation", "add slide"),
		// A file given by its path to convert: read it first.
		{"read file", func(named concepts, shaped map[string]bool) bool {
			return shaped[stem("file")] && named.has("convert")
		}},
	},
	// Reading, opening or viewing a document of a kind: the tool that
	// reads that kind.
	forKinds(reading),
)

// documentKinds are the kinds of document (concepts of the lexicon) a
// request may ask to make or to read.
var documentKinds = []string{"pdf", "document", "presentation", "spreadsheet"}

// forKinds returns the step of each of documentKinds.
func forKinds(of func(kind string) step) []step {
	out := make([]step, len(documentKinds))
	for i, k := range documentKinds {
		out[i] = of(k)
	}
	return out
}

// making is the step of making a document of a kind (a concept of the
// lexicon), implied by a request that names the kind and a word of
// making or writing.
func making(kind string) step {
	return step{"create " + kind, func(named concepts, _ map[string]bool) bool {
		return named.has(kind) && named.has("create", "write")
	}}
}

// reading is the step of reading a document of a kind (a concept of the
// lexicon), implied by a request that names the kind and a word of
// reading.
func reading(kind string) step {
	return step{"read " + kind, func(named concepts, _ map[string]bool) bool {
		return named.has(kind) && named.has("read")
	}}
}

// filling is the step of adding to a document of a kind what it is made
// of (words), implied as making that kind is.
func filling(kind, words string) step {
	return step{words, making(kind).implied}
}

// stepQueries are the queries of steps' words, in the same order.
var stepQueries = sync.OnceValue(func() []Query {
	out := make([]Query, len(steps))
	for i, s := range steps {
		out[i], _ = newQuery([]Text{{Text: s.words, Weight: 1}})
	}
	return out
})

// concepts is a set of the lexicon's concept terms.
type concepts map[uint64]bool

// has reports whether c has any of the concepts named.
func (c concepts) has(names ...string) bool {
	for _, n := range names {
		if c[conceptTerm(n)] {
			return true
		}
	}
	return false
}

// impliedSteps returns the indexes in steps of the steps that the texts
// of full weight imply; named holds the concepts they name.
func impliedSteps(named concepts, texts []Text) []int {
	shaped := map[string]bool{}
	for _, t := range texts {
		if t.Weight >= 1 {
			shapes(t.Text, func(_, _ int, kind string) { shaped[kind] = true })
		}
	}
	var out []int
	for i, s := range steps {
		if s.implied(named, shaped) {
			out = append(out, i)
		}
	}
	return out
}

// bestFor returns, for each of qs, the index of the document that scores
// best for it by BM25F alone (the first given of equal scores), or -1
// when none matches. The documents are searched once, for the terms of
// all of qs.
func bestFor(qs []Query, docs []*Doc, avg [numFields]float64) []int {
	var all Query
	var near []uint64
	for _, q := range qs {
		all.terms = append(all.terms, q.terms[:q.nearFrom]...)
		near = append(near, q.terms[q.nearFrom:]...)
	}
	slices.Sort(all.terms)
	all.terms = slices.Compact(all.terms)
	all.nearFrom = len(all.terms)
	slices.Sort(near)
	all.terms = append(all.terms, slices.Compact(near)...)
	hits := match(all, docs, avg)
	df := make([]int, len(all.terms))
	for _, h := range hits {
		df[h.term]++
	}
	best := make([]int, len(qs))
	w := make([]float64, len(all.terms))
	for k, q := range qs {
		clear(w) // the weight of each term of all for q: 0 if not q's
		for t, term := range q.terms {
			j, _ := slices.BinarySearch(all.terms[:all.nearFrom], term)
			if t >= q.nearFrom {
				j, _ = slices.BinarySearch(all.terms[all.nearFrom:], term)
				j += all.nearFrom
			}
			w[j] = q.weights[t] * idf(float64(len(docs)), df[j])
		}
		best[k] = -1
		top := 0.0
		for i := 0; i < len(hits); { // hits come in document order
			d, s := hits[i].doc, 0.0
			for ; i < len(hits) && hits[i].doc == d; i++ {
				s += w[hits[i].term] * hits[i].tf / (hits[i].tf + k1)
			}
			if s > top {
				best[k], top = d, s
			}
		}
	}
	return best
}
