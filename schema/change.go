package schema

import (
	"cmp"
	"slices"
	"strconv"
	"strings"
)

// Change records one rewrite made by [Convert].
//
// [Result.Changes] lists each change once, sorted by Path with the same
// rule for every target: the root first, a node before the nodes inside
// it, and the elements of two paths compared one by one, list indexes as
// numbers ("anyOf.2" before "anyOf.10") and other elements as strings in
// byte order ("$defs.A" before "properties.a"). Changes at the same path
// keep the order in which the conversion made them.
type Change struct {
	// Path locates the rewritten node in the ORIGINAL schema as dotted
	// keywords and names ("properties.x.anyOf.1"); "" is the root. It is
	// always a path that exists in the original document. Content reached
	// through a $ref (a JSON pointer or an anchor such as "#time") is
	// reported at its definition ("$defs.Item.properties.id"), once,
	// however often it is used.
	Path string
	// Keyword is the JSON Schema keyword concerned ("$ref", "oneOf",
	// "enum"); never empty (a key that is the empty string shows as
	// `""`). When a whole subschema is replaced (nested too
	// deep, not a schema at all), it is the keyword holding what was cut
	// ("properties", "items") or holding the replaced value.
	Keyword string
	// Detail says briefly what was done ("oneOf treated as anyOf"); never
	// empty.
	Detail string
}

// String formats c as "path: keyword: detail", showing the root as "(root)".
func (c Change) String() string {
	p := c.Path
	if p == "" {
		p = "(root)"
	}
	return p + ": " + c.Keyword + ": " + c.Detail
}

// changeLog collects changes in discovery order without duplicates.
type changeLog struct {
	list []Change
	seen map[Change]bool
}

func (l *changeLog) add(path, keyword, detail string) {
	if keyword == "" {
		keyword = `""` // a keyword that is the empty string
	}
	c := Change{Path: path, Keyword: keyword, Detail: detail}
	if l.seen == nil {
		l.seen = make(map[Change]bool)
	}
	if l.seen[c] {
		return
	}
	l.seen[c] = true
	l.list = append(l.list, c)
}

// sorted returns the changes in the order documented on [Change].
func (l *changeLog) sorted() []Change {
	out := append([]Change(nil), l.list...)
	slices.SortStableFunc(out, func(a, b Change) int { return comparePaths(a.Path, b.Path) })
	return out
}

// comparePaths orders dotted paths: element by element, numbers
// numerically, other elements in byte order, a path before its extensions.
func comparePaths(a, b string) int {
	if a == b {
		return 0
	}
	if a == "" {
		return -1
	}
	if b == "" {
		return 1
	}
	for {
		ae, arest, amore := strings.Cut(a, ".")
		be, brest, bmore := strings.Cut(b, ".")
		if c := compareElems(ae, be); c != 0 {
			return c
		}
		switch {
		case amore && bmore:
			a, b = arest, brest
		case amore:
			return 1 // b is a prefix of a
		case bmore:
			return -1
		default:
			return 0
		}
	}
}

// compareElems compares two path elements, numerically when both are
// list indexes.
func compareElems(a, b string) int {
	if !maybeInt(a) || !maybeInt(b) {
		return strings.Compare(a, b) // strconv.Atoi would fail: skip its error
	}
	ai, aerr := strconv.Atoi(a)
	bi, berr := strconv.Atoi(b)
	if aerr == nil && berr == nil && ai >= 0 && bi >= 0 {
		if c := cmp.Compare(ai, bi); c != 0 {
			return c
		}
	}
	return strings.Compare(a, b)
}

// maybeInt reports whether strconv.Atoi(s) can succeed, judging by the
// first byte (a digit or a sign).
func maybeInt(s string) bool {
	return s != "" && (s[0] >= '0' && s[0] <= '9' || s[0] == '+' || s[0] == '-')
}

// clone returns an independent copy of l.
func (l *changeLog) clone() changeLog {
	out := changeLog{list: append([]Change(nil), l.list...), seen: make(map[Change]bool, len(l.seen))}
	for k, v := range l.seen {
		out.seen[k] = v
	}
	return out
}
