package lexical

import "slices"

// A Field is the part of a tool's text a term comes from. Terms weigh more
// in some fields than in others (see [Params]).
type Field uint8

// The fields of a tool's text.
const (
	// Name is the tool's name and title: what it does, in a few words.
	Name Field = iota
	// Description is the tool's description.
	Description
	// Parameter is its input schema's property names, their titles,
	// descriptions and enum values.
	Parameter
	// Server is the name of the server that offers the tool.
	Server
	numFields
)

// Doc is the analyzed text of one tool: its distinct terms, sorted, with
// how often each occurs in each field. A Doc is immutable and safe for
// concurrent use.
type Doc struct {
	terms []uint64
	tf    []float32 // tf[i*numFields+f]: weight of terms[i] in field f
	lens  [numFields]float32
}

// Builder collects the texts of a tool, field by field. The zero Builder
// is ready to use; it is not safe for concurrent use.
type Builder struct {
	tf   map[uint64]*[numFields]float32
	lens [numFields]float32
}

// Add analyzes text as part of field f.
func (b *Builder) Add(f Field, text string) {
	if text == "" || f >= numFields {
		return
	}
	if b.tf == nil {
		b.tf = map[uint64]*[numFields]float32{}
	}
	add := func(t uint64, w float32) {
		e := b.tf[t]
		if e == nil {
			e = new([numFields]float32)
			b.tf[t] = e
		}
		e[f] += w
	}
	analyze(theLexicon(), text,
		func(t uint64) { add(t, 1); b.lens[f]++ },
		func(t uint64) { add(t, conceptWeight) })
}

// Doc returns the document of what was added. The Builder may be used
// again afterwards; it starts empty.
func (b *Builder) Doc() *Doc {
	d := &Doc{lens: b.lens, terms: make([]uint64, 0, len(b.tf))}
	for t := range b.tf {
		d.terms = append(d.terms, t)
	}
	slices.Sort(d.terms)
	d.tf = make([]float32, len(d.terms)*int(numFields))
	for i, t := range d.terms {
		copy(d.tf[i*int(numFields):], b.tf[t][:])
	}
	*b = Builder{}
	return d
}

// Terms reports how many distinct terms d has (words, character pairs and
// concepts).
func (d *Doc) Terms() int { return len(d.terms) }
