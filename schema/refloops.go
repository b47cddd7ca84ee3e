package schema

import (
	"net/url"
	"slices"
	"strconv"
	"strings"
)

// The API accepts a loop of references in `parametersJsonSchema` only when
// a value can end it: somewhere on the loop there is an optional property,
// a property that may be null, or the items of an array that may be empty.
// Its error for a loop of required fields reads: "ref loops are only
// supported if they include optional or nullable property values, or a
// potentially-zero-length array items, but a ref loop of required fields
// was found at $defs.AndFilter.properties.and.properties.left.anyOf.11".
const refLoopMessage = "ref loops are only supported if they include optional or nullable property values, " +
	"or a potentially-zero-length array items, but a ref loop of required fields was found"

// refEdge is one $ref found inside the schema a reference points to.
type refEdge struct {
	to      string // the fragment (JSON pointer) the $ref points to
	escapes bool   // the path to it passes an optional or nullable property, or items that may be empty
	path    string // the dotted path of the $ref in the document
}

// maxLoopWalk bounds the nodes visited when looking for reference loops.
const maxLoopWalk = 200_000

// requiredRefLoops returns the reference targets (JSON pointers, "" for
// the root) that lie on a loop of references no value can end, with the
// path of one $ref of each such target's loop, by target. doc is a schema
// in its JSON form. Only local JSON-pointer references are followed.
func requiredRefLoops(doc any) map[string]string {
	w := &loopWalker{doc: doc, edges: map[string][]refEdge{}}
	var queue []string
	w.walk(doc, "", false, 0, func(e refEdge) { queue = append(queue, e.to) })
	for len(queue) > 0 && w.visited < maxLoopWalk {
		t := queue[0]
		queue = queue[1:]
		if _, done := w.edges[t]; done {
			continue
		}
		w.edges[t] = nil
		target := walkPointer(doc, t)
		if target == nil {
			continue
		}
		w.walk(target, pointerOrigin(t), false, 0, func(e refEdge) {
			w.edges[t] = append(w.edges[t], e)
			queue = append(queue, e.to)
		})
	}
	// A target is on a required loop when it reaches itself through
	// edges that do not escape.
	out := map[string]string{}
	for _, t := range sortedKeys(w.edges) {
		if p, ok := w.reaches(t); ok {
			out[t] = p
		}
	}
	return out
}

type loopWalker struct {
	doc     any
	edges   map[string][]refEdge
	visited int
}

// reaches reports whether t reaches itself through edges that do not
// escape, and the path of the first $ref on that loop.
func (w *loopWalker) reaches(t string) (string, bool) {
	seen := map[string]bool{}
	type item struct{ at, first string }
	stack := []item{}
	for _, e := range w.edges[t] {
		if !e.escapes {
			stack = append(stack, item{e.to, e.path})
		}
	}
	for len(stack) > 0 {
		it := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if it.at == t {
			return it.first, true
		}
		if seen[it.at] {
			continue
		}
		seen[it.at] = true
		for _, e := range w.edges[it.at] {
			if !e.escapes {
				stack = append(stack, item{e.to, it.first})
			}
		}
	}
	return "", false
}

// walk calls edge for every $ref in the schema v found at path, and
// escaped says whether the path from the walk's start already passed a
// value that can be left out.
func (w *loopWalker) walk(v any, path string, escaped bool, depth int, edge func(refEdge)) {
	m, ok := v.(map[string]any)
	if !ok || depth > 4*DefaultMaxDepth+16 {
		return
	}
	if w.visited++; w.visited > maxLoopWalk {
		return
	}
	if ref, ok := m["$ref"].(string); ok {
		if frag, ok := localPointer(ref); ok {
			edge(refEdge{to: frag, escapes: escaped, path: path})
		}
	}
	minItems := -1
	if n, ok := toCount(m["minItems"]); ok {
		minItems = int(n)
	}
	required := stringSet(m["required"])
	for _, k := range sortedKeys(m) {
		sub := m[k]
		p := join(path, k)
		switch k {
		case "properties":
			props, _ := sub.(map[string]any)
			for _, name := range sortedKeys(props) {
				esc := escaped || !slices.Contains(required, name) || mayBeNull(props[name])
				w.walk(props[name], join(p, name), esc, depth+1, edge)
			}
		case "additionalProperties", "patternProperties", "unevaluatedProperties":
			if pm, isMap := sub.(map[string]any); isMap && k == "patternProperties" {
				for _, name := range sortedKeys(pm) {
					w.walk(pm[name], join(p, name), true, depth+1, edge)
				}
				continue
			}
			w.walk(sub, p, true, depth+1, edge)
		case "items", "prefixItems", "additionalItems", "unevaluatedItems":
			if l, isList := sub.([]any); isList {
				for i, e := range l {
					w.walk(e, join(p, strconv.Itoa(i)), escaped || minItems <= i, depth+1, edge)
				}
				continue
			}
			w.walk(sub, p, escaped || minItems <= 0, depth+1, edge)
		case "anyOf", "oneOf", "allOf":
			l, _ := sub.([]any)
			esc := escaped
			if k != "allOf" {
				for _, b := range l {
					esc = esc || admitsNull(b)
				}
			}
			for i, e := range l {
				w.walk(e, join(p, strconv.Itoa(i)), esc, depth+1, edge)
			}
		case "dependentSchemas", "dependencies":
			dm, _ := sub.(map[string]any)
			for _, name := range sortedKeys(dm) {
				w.walk(dm[name], join(p, name), escaped, depth+1, edge)
			}
		case "not", "if", "then", "else", "contains", "propertyNames", "contentSchema":
			w.walk(sub, p, escaped, depth+1, edge)
		}
	}
}

// localPointer returns the JSON pointer of a local reference ("#",
// "#/$defs/a"), unescaped; false for anchors and other documents.
func localPointer(ref string) (string, bool) {
	frag, ok := strings.CutPrefix(ref, "#")
	if !ok {
		return "", false
	}
	if u, err := url.PathUnescape(frag); err == nil {
		frag = u
	}
	if frag != "" && !strings.HasPrefix(frag, "/") {
		return "", false
	}
	return frag, true
}

// mayBeNull reports whether the schema v admits null by its type, a null
// branch or nullable.
func mayBeNull(v any) bool {
	m, ok := v.(map[string]any)
	if !ok {
		return false
	}
	if b, _ := m["nullable"].(bool); b {
		return true
	}
	if slices.Contains(typeNames(m["type"]), "null") {
		return true
	}
	for _, k := range []string{"anyOf", "oneOf"} {
		l, _ := m[k].([]any)
		for _, b := range l {
			if admitsNull(b) {
				return true
			}
		}
	}
	return false
}

// admitsNull reports whether v is a schema whose type admits null.
func admitsNull(v any) bool {
	m, ok := v.(map[string]any)
	return ok && slices.Contains(typeNames(m["type"]), "null")
}
