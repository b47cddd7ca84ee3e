package lexical

import (
	"maps"
	"slices"
)

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
	terms  []uint64
	tf     []float32 // tf[i*numFields+f]: weight of terms[i] in field f
	near   []uint64  // the near terms (see analyze), sorted; apart, as match looks for them apart
	nearTF []float32 // as tf, for near
	lens   [numFields]float32
	needs  []uint64 // sorted terms of the required arguments' names
}

// Builder collects the texts of a tool, field by field. The zero Builder
// is ready to use; it is not safe for concurrent use.
type Builder struct {
	tf, near map[uint64]*[numFields]float32
	lens     [numFields]float32
	needs    map[uint64]bool
}

// Need records the name of a required argument: what the tool needs to be
// given. When a tool that fits a request needs something the request does
// not say, the tools of its server that say they give it gain (see Score).
func (b *Builder) Need(name string) {
	if b.needs == nil {
		b.needs = map[uint64]bool{}
	}
	analyze(theLexicon(), name,
		func(t uint64, _ float32) { b.needs[t] = true },
		func(t uint64, _ float32) { b.needs[t] = true }, nil)
}

// Add analyzes text as part of field f.
func (b *Builder) Add(f Field, text string) {
	if text == "" || f >= numFields {
		return
	}
	if b.tf == nil {
		b.tf, b.near = map[uint64]*[numFields]float32{}, map[uint64]*[numFields]float32{}
	}
	into := func(m map[uint64]*[numFields]float32) func(t uint64, w float32) {
		return func(t uint64, w float32) {
			e := m[t]
			if e == nil {
				e = new([numFields]float32)
				m[t] = e
			}
			e[f] += w
		}
	}
	add := into(b.tf)
	var near func(uint64, float32)
	if f == Name || f == Description { // the parameters' texts are not one text
		near = into(b.near)
	}
	analyze(theLexicon(), text,
		func(t uint64, w float32) { add(t, w); b.lens[f] += w },
		func(t uint64, w float32) { add(t, w*conceptWeight) }, near)
}

// Doc returns the document of what was added. The Builder may be used
// again afterwards; it starts empty.
func (b *Builder) Doc() *Doc {
	d := &Doc{lens: b.lens}
	d.terms, d.tf = sortedTF(b.tf)
	d.near, d.nearTF = sortedTF(b.near)
	for t := range b.needs {
		d.needs = append(d.needs, t)
	}
	slices.Sort(d.needs)
	*b = Builder{}
	return d
}

// sortedTF returns the terms of m, sorted, and their frequencies in each
// field (numFields a term, in the same order); nil for none.
func sortedTF(m map[uint64]*[numFields]float32) ([]uint64, []float32) {
	if len(m) == 0 {
		return nil, nil
	}
	terms := slices.Sorted(maps.Keys(m))
	tf := make([]float32, len(terms)*int(numFields))
	for i, t := range terms {
		copy(tf[i*int(numFields):], m[t][:])
	}
	return terms, tf
}

// Terms reports how many distinct terms d has (words, character pairs,
// concepts and near terms).
func (d *Doc) Terms() int { return len(d.terms) + len(d.near) }

// says reports whether d's name or description has term t.
func (d *Doc) says(t uint64) bool {
	i, ok := slices.BinarySearch(d.terms, t)
	if !ok {
		return false
	}
	tf := d.tf[i*int(numFields):]
	return tf[Name] > 0 || tf[Description] > 0
}

// has reports whether d has term t anywhere.
func (d *Doc) has(t uint64) bool {
	_, ok := slices.BinarySearch(d.terms, t)
	return ok
}

// needsTerm reports whether t is a term of d's required arguments.
func (d *Doc) needsTerm(t uint64) bool {
	_, ok := slices.BinarySearch(d.needs, t)
	return ok
}
