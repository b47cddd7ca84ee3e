package schema

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"

	"google.golang.org/genai"
)

// shape is what choosing an anyOf branch needs to know of a converted
// schema: its type, its enum as the model sees it, its required names and
// the shapes of its properties, items and branches. It is a private copy,
// so a caller editing the converted schema cannot change how arguments
// are restored. Below shapeDepth levels, or once shapeBudget nodes are
// copied, a shape has no kind and fits any value.
type shape struct {
	kind     genai.Type // "" when unknown: any value fits
	nullable bool
	enum     []string
	required []string
	props    []namedShape // sorted by name
	items    *shape
	anyOf    []*shape
}

// namedShape is the shape of one property.
type namedShape struct {
	name  string
	shape *shape
}

const (
	shapeDepth  = 3    // levels of a branch that take part in choosing it
	shapeBudget = 64   // nodes copied per branch
	fitElements = 16   // array elements looked at when measuring a fit
	fitBudget   = 2048 // values looked at when measuring one fit
)

// leafShapes are the shapes that hold nothing but a type, shared.
var leafShapes = map[genai.Type][2]*shape{}

func init() {
	for _, t := range []genai.Type{"", genai.TypeString, genai.TypeNumber, genai.TypeInteger,
		genai.TypeBoolean, genai.TypeArray, genai.TypeObject, genai.TypeNULL} {
		leafShapes[t] = [2]*shape{{kind: t}, {kind: t, nullable: true}}
	}
}

// shapeOf copies what branch choice needs of s.
func shapeOf(s *genai.Schema) *shape {
	budget := shapeBudget
	return shapeAt(s, 0, &budget)
}

func shapeAt(s *genai.Schema, depth int, budget *int) *shape {
	if s == nil || depth >= shapeDepth || *budget <= 0 {
		return nil
	}
	*budget--
	nullable := s.Nullable != nil && *s.Nullable
	if len(s.Enum) == 0 && len(s.Required) == 0 && len(s.Properties) == 0 && s.Items == nil && len(s.AnyOf) == 0 {
		if l, ok := leafShapes[s.Type]; ok {
			return l[btoi(nullable)]
		}
	}
	sh := &shape{kind: s.Type, nullable: nullable, enum: slices.Clone(s.Enum), required: slices.Clone(s.Required)}
	for _, b := range s.AnyOf {
		sh.anyOf = append(sh.anyOf, shapeAt(b, depth+1, budget))
	}
	if len(s.Properties) > 0 {
		sh.props = make([]namedShape, 0, len(s.Properties))
		for _, name := range sortedKeys(s.Properties) {
			sh.props = append(sh.props, namedShape{name, shapeAt(s.Properties[name], depth+1, budget)})
		}
	}
	sh.items = shapeAt(s.Items, depth+1, budget)
	return sh
}

// prop returns the shape of the property name, and whether sh declares
// it. A nil sh declares nothing.
func (sh *shape) prop(name string) (*shape, bool) {
	if sh == nil {
		return nil, false
	}
	i, ok := slices.BinarySearchFunc(sh.props, name, func(p namedShape, n string) int { return strings.Compare(p.name, n) })
	if !ok {
		return nil, false
	}
	return sh.props[i].shape, true
}

// fit measures how well a value fits one branch. Branches are ranked by
// the discriminating keywords first (enum and const members matched or
// missed), then required names and value types, then the structure (keys
// the branch does not declare, keys it does).
type fit struct {
	excluded bool // the value's own type is not one the branch takes
	enumMiss int  // strings outside an enum
	enumHit  int  // strings (or restored values) inside an enum
	reqMiss  int  // required names absent
	typeMiss int  // values of a type their schema does not take
	unknown  int  // keys the branch does not declare
	known    int  // keys the branch declares
}

// better reports whether f ranks above g.
func (f fit) better(g fit) bool {
	switch {
	case f.excluded != g.excluded:
		return !f.excluded
	case f.enumMiss != g.enumMiss:
		return f.enumMiss < g.enumMiss
	case f.enumHit != g.enumHit:
		return f.enumHit > g.enumHit
	case f.reqMiss != g.reqMiss:
		return f.reqMiss < g.reqMiss
	case f.typeMiss != g.typeMiss:
		return f.typeMiss < g.typeMiss
	case f.unknown != g.unknown:
		return f.unknown < g.unknown
	}
	return f.known > g.known
}

func (f *fit) add(g fit) {
	f.enumMiss += g.enumMiss
	f.enumHit += g.enumHit
	f.reqMiss += g.reqMiss
	f.typeMiss += g.typeMiss + btoi(g.excluded)
	f.unknown += g.unknown
	f.known += g.known
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// measure returns how well v fits the converted schema sh restored by p.
// v may be in the model's form (an enum member as text, an object as JSON
// text) or already restored (the enum's original value, the decoded
// object), so that [Restorer.Mismatches] sees the same choice as
// [Restorer.Restore]. It looks at no more than *budget values.
func measure(sh *shape, p *plan, v any, budget *int) fit {
	if sh == nil || sh.kind == "" && len(sh.anyOf) == 0 || *budget <= 0 {
		return fit{}
	}
	*budget--
	if len(sh.anyOf) > 0 {
		var inner []*plan
		if p != nil && len(p.anyOf) == len(sh.anyOf) {
			inner = p.anyOf
		}
		best := fit{excluded: true}
		for i, b := range sh.anyOf {
			var bp *plan
			if inner != nil {
				bp = inner[i]
			}
			if f := measure(b, bp, v, budget); f.better(best) {
				best = f
			}
		}
		return best
	}
	var f fit
	switch v := v.(type) {
	case nil:
		f.excluded = !sh.nullable && sh.kind != genai.TypeNULL
	case string:
		switch {
		case sh.kind != genai.TypeString:
			f.excluded = true
		case len(sh.enum) > 0:
			if containsStr(sh.enum, v) {
				f.enumHit++
			} else {
				f.enumMiss++
			}
		case p != nil && p.jsonObject:
			if d, ok := decodeJSONText(v); !ok {
				f.typeMiss++ // wants an object written as JSON text
			} else if _, isMap := d.(map[string]any); !isMap {
				f.typeMiss++
			} else {
				f.known++ // the object text it asked for
			}
		case p != nil && p.anyJSON:
			// Any value takes text, but a plain STRING branch takes it
			// as it is, which is what text most likely means.
			f.unknown++
		}
	case bool:
		switch {
		case sh.kind == genai.TypeBoolean:
		case restoredMember(p, v):
			f.enumHit++
		default:
			f.excluded = true
		}
	case map[string]any:
		switch {
		case sh.kind == genai.TypeObject:
			f.object(sh, p, v, budget)
		case p != nil && p.anyJSON:
			// Restored from JSON text.
		case restoredMember(p, v):
			f.enumHit++
		default:
			f.excluded = true
		}
	case []any:
		switch {
		case sh.kind == genai.TypeArray:
			for i, e := range v {
				if i == fitElements {
					break
				}
				f.add(measure(sh.items, p.itemPlan(i), e, budget))
			}
		case p != nil && p.anyJSON:
		case restoredMember(p, v):
			f.enumHit++
		default:
			f.excluded = true
		}
	default: // a number
		switch {
		case sh.kind == genai.TypeNumber:
		case sh.kind == genai.TypeInteger:
			if x, ok := toFloat(v); !ok || x != float64(int64(x)) {
				f.typeMiss++
			}
		case restoredMember(p, v):
			f.enumHit++
		default:
			f.excluded = true
		}
	}
	return f
}

// object measures the object v against the OBJECT shape sh.
func (f *fit) object(sh *shape, p *plan, v map[string]any, budget *int) {
	for _, r := range sh.required {
		if _, ok := v[r]; !ok {
			f.reqMiss++
		}
	}
	for _, k := range sortedKeys(v) {
		sub, ok := sh.prop(k)
		if !ok {
			f.unknown++
			continue
		}
		f.known++
		var sp *plan
		if p != nil {
			sp = p.props[k]
		}
		f.add(measure(sub, sp, v[k], budget))
	}
}

// restoredMember reports whether v is the original value of one of p's
// enum members (a value Restore already put back).
func restoredMember(p *plan, v any) bool {
	if p == nil {
		return false
	}
	for _, text := range p.members {
		if o, ok := p.enum[text]; ok && equalJSON(o, v) {
			return true
		}
	}
	return false
}

// itemPlan is the plan of the array element at index i: by position for
// a tuple, else the plan of every item.
func (p *plan) itemPlan(i int) *plan {
	if p == nil {
		return nil
	}
	if p.tuple != nil {
		if i < len(p.tuple) {
			return p.tuple[i]
		}
		return p.rest
	}
	return p.items
}

// choose returns the indexes of the anyOf branches of p that v fits best,
// in branch order; Restore uses the first. It is empty when v fits no
// branch's type.
func choose(p *plan, v any) []int {
	var best fit
	var tied []int
	for i, b := range p.anyOf {
		var sh *shape
		if i < len(p.shapes) {
			sh = p.shapes[i]
		}
		budget := fitBudget
		f := measure(sh, b, v, &budget)
		if f.excluded {
			continue
		}
		switch {
		case tied == nil || f.better(best):
			best, tied = f, []int{i}
		case !best.better(f):
			tied = append(tied, i)
		}
	}
	return tied
}

// chosenIndex is the index of the branch of p that Restore uses for v,
// or -1.
func chosenIndex(p *plan, v any) int {
	if tied := choose(p, v); len(tied) > 0 {
		return tied[0]
	}
	return -1
}

// chosen is the branch of p that Restore uses for v, or nil.
func chosen(p *plan, v any) *plan {
	if i := chosenIndex(p, v); i >= 0 {
		return p.anyOf[i]
	}
	return nil
}

// ambiguous returns the branches of p that the model's value behind the
// restored value v fits equally well and that would restore it
// differently; nil when the choice was clear or did not matter.
func ambiguous(p *plan, v any) []int {
	b := chosen(p, v)
	if b == nil {
		return nil
	}
	sent := unrestore(b, v)
	tied := choose(p, sent)
	if len(tied) < 2 {
		return nil
	}
	first, _ := restoreValue(p.anyOf[tied[0]], sent)
	differ := []int{tied[0]}
	for _, i := range tied[1:] {
		if r, _ := restoreValue(p.anyOf[i], sent); !equalJSON(r, first) {
			differ = append(differ, i)
		}
	}
	if len(differ) < 2 {
		return nil
	}
	return differ
}

// unrestore returns the value the model would have sent for v, a value
// restored by p: enum values back to their text, decoded JSON text back
// to text. It is the inverse of restoreValue where that matters for
// choosing branches.
func unrestore(p *plan, v any) any {
	if p == nil || v == nil {
		return v
	}
	if len(p.anyOf) > 0 {
		return unrestore(chosen(p, v), v)
	}
	if _, isString := v.(string); !isString {
		for _, text := range p.members {
			if o, ok := p.enum[text]; ok && equalJSON(o, v) {
				return text
			}
		}
	}
	switch v := v.(type) {
	case map[string]any:
		if p.anyJSON {
			return jsonText(v)
		}
		if len(p.props) == 0 {
			return v
		}
		out := make(map[string]any, len(v))
		for k, e := range v {
			out[k] = unrestore(p.props[k], e)
		}
		return out
	case []any:
		if p.anyJSON {
			return jsonText(v)
		}
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = unrestore(p.itemPlan(i), e)
		}
		return out
	}
	return v
}

// jsonText writes v as JSON text, as a model writes an object into a
// STRING.
func jsonText(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return ""
	}
	return string(b)
}

// branchList formats branch indexes as "anyOf[0] and anyOf[2]".
func branchList(idx []int) string {
	parts := make([]string, len(idx))
	for i, x := range idx {
		parts[i] = "anyOf[" + strconv.Itoa(x) + "]"
	}
	if len(parts) <= 2 {
		return strings.Join(parts, " and ")
	}
	return strings.Join(parts[:len(parts)-1], ", ") + " and " + parts[len(parts)-1]
}
