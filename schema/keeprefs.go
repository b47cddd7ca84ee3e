package schema

import (
	"reflect"
	"strconv"
	"strings"
)

// For [JSONSchema], local references stay references: every schema a
// $ref points to becomes one entry of the root's $defs (a target outside
// $defs, such as "#/properties/a/items", is moved there and its original
// place refers to it too), and each $ref points there. This keeps the
// declaration about as large as the server's own schema, where inlining
// copies a definition at every use. The API takes "#/$defs/<name>"
// references with only description and default beside them, so other
// keywords beside a $ref go into an allOf with it. It rejects loops of
// references that no value can end (see refLoopMessage): the schemas on
// such a loop are inlined instead, and the recursion cut as for the other
// targets.

// planKeptRefs finds the reference targets of the document that the
// output keeps as $defs entries and names them. Only for [JSONSchema].
func (c *converter) planKeptRefs() {
	var keys []string
	seen := map[string]bool{}
	collectRefs(c.doc, 0, func(ref string) {
		target, key, ok := c.resolve(ref)
		if _, isMap := target.(map[string]any); !ok || !isMap || key == "" || seen[key] || c.excluded[key] {
			return
		}
		seen[key] = true
		keys = append(keys, key)
	})
	c.keyNames = map[string]string{}
	c.nameKeys = map[string]string{}
	c.sites = map[uintptr]string{}
	c.usedDefs = map[string]bool{}
	if len(keys) == 0 {
		return
	}
	// Names: those of $defs first, then of definitions, then the last
	// element of other pointers; a taken name gets a number.
	groups := [3][]string{}
	for _, k := range sortedKeys(boolSet(keys)) {
		switch {
		case defsName(k, "$defs") != "":
			groups[0] = append(groups[0], k)
		case defsName(k, "definitions") != "":
			groups[1] = append(groups[1], k)
		default:
			groups[2] = append(groups[2], k)
		}
	}
	for _, g := range groups {
		for _, k := range g {
			want := defsName(k, "$defs")
			if want == "" {
				want = defsName(k, "definitions")
			}
			if want == "" {
				want = lastPointerName(k)
			}
			name := safeDefName(want)
			for i := 2; c.nameKeys[name] != ""; i++ {
				name = safeDefName(want) + "_" + strconv.Itoa(i)
			}
			c.keyNames[k] = name
			c.nameKeys[name] = k
			if id := mapID(walkPointer(c.doc, k)); id != 0 {
				if _, dup := c.sites[id]; !dup {
					c.sites[id] = name
				}
			}
		}
	}
}

// boolSet returns the set of keys.
func boolSet(keys []string) map[string]bool {
	m := make(map[string]bool, len(keys))
	for _, k := range keys {
		m[k] = true
	}
	return m
}

// defsName returns X for the pointer "/<container>/X", else "".
func defsName(key, container string) string {
	rest, ok := strings.CutPrefix(key, "/"+container+"/")
	if !ok || rest == "" || strings.Contains(rest, "/") {
		return ""
	}
	return strings.ReplaceAll(strings.ReplaceAll(rest, "~1", "/"), "~0", "~")
}

// lastPointerName names a target by the last element of its pointer that
// is neither a list index nor a keyword.
func lastPointerName(key string) string {
	toks := strings.Split(strings.TrimPrefix(key, "/"), "/")
	for i := len(toks) - 1; i >= 0; i-- {
		t := strings.ReplaceAll(strings.ReplaceAll(toks[i], "~1", "/"), "~0", "~")
		if t == "" || isIndex(t) || subschemaKeys[t] || t == "$defs" || t == "definitions" {
			continue
		}
		return t
	}
	return "def"
}

// safeDefName keeps letters, digits, '_', '.' and '-' of s (others become
// '_'), so that the name needs no escaping in a reference.
func safeDefName(s string) string {
	b := []byte(s)
	for i, ch := range b {
		if !(ch == '_' || ch == '.' || ch == '-' || '0' <= ch && ch <= '9' || 'a' <= ch && ch <= 'z' || 'A' <= ch && ch <= 'Z') {
			b[i] = '_'
		}
	}
	if len(b) == 0 {
		return "def"
	}
	if len(b) > 64 {
		b = b[:64]
	}
	return string(b)
}

// mapID identifies a JSON object of the document; 0 for other values.
func mapID(v any) uintptr {
	if m, ok := v.(map[string]any); ok && m != nil {
		return reflect.ValueOf(m).Pointer()
	}
	return 0
}

// collectRefs calls f with every $ref string of the schema v, following
// the keywords that hold subschemas (and $defs and definitions).
func collectRefs(v any, depth int, f func(string)) {
	m, ok := v.(map[string]any)
	if !ok || depth > 4*DefaultMaxDepth+16 {
		return
	}
	if r, ok := m["$ref"].(string); ok {
		f(r)
	}
	for _, k := range sortedKeys(m) {
		sub := m[k]
		switch {
		case mapSchemaKeys[k] || k == "$defs" || k == "definitions":
			sm, _ := sub.(map[string]any)
			for _, name := range sortedKeys(sm) {
				collectRefs(sm[name], depth+1, f)
			}
		case listSchemaKeys[k] || singleSchemaKeys[k]:
			if l, isList := sub.([]any); isList {
				for _, e := range l {
					collectRefs(e, depth+1, f)
				}
			} else {
				collectRefs(sub, depth+1, f)
			}
		}
	}
}

// keptSite returns the reference standing for m when m is a kept target
// met in its original place, and not the one being expanded.
func (c *converter) keptSite(m map[string]any, origin string) (*node, bool) {
	if len(c.sites) == 0 {
		return nil, false
	}
	id := mapID(m)
	if id == c.defTop {
		c.defTop = 0
		return nil, false
	}
	name, ok := c.sites[id]
	if !ok {
		return nil, false
	}
	if !strings.HasPrefix(c.nameKeys[name], "/$defs/") || defsName(c.nameKeys[name], "$defs") != name {
		c.log.add(origin, containerKeyword(origin), "moved to $defs."+name+" (it is referenced)")
	}
	return &node{origin: origin, ref: name, kw: map[string]any{}}, true
}

// keptRef returns the node for m, a $ref to a kept target named name:
// a reference with the description and default beside it, or, when other
// keywords stand beside the $ref, those keywords with the reference added
// to their allOf.
func (c *converter) keptRef(m map[string]any, ref, name, origin string, depth int) *node {
	if want := "#/$defs/" + name; ref != want {
		c.log.add(origin, "$ref", "rewritten as "+strconv.Quote(want))
	}
	r := &node{origin: origin, ref: name, kw: map[string]any{}}
	var others map[string]any
	for k, v := range m {
		switch {
		case k == "$ref":
		case k == "description" || k == "default":
			r.kw[k] = v
		default:
			if others == nil {
				others = map[string]any{}
			}
			others[k] = v
		}
	}
	if others == nil {
		return r
	}
	c.log.add(origin, "$ref", "keywords beside $ref moved beside an allOf holding it")
	s := c.loadMap(others, origin, depth)
	for k, v := range r.kw {
		s.kw[k] = v
	}
	r.kw = map[string]any{}
	s.kw["allOf"] = append(append([]*node{}, s.list("allOf")...), r)
	return s
}

// jsRef writes a kept reference and marks its definition as used.
func (c *converter) jsRef(n *node) map[string]any {
	c.usedDefs[n.ref] = true
	out := map[string]any{"$ref": "#/$defs/" + n.ref}
	for _, k := range []string{"description", "default"} {
		if v, ok := n.kw[k]; ok {
			if fixed, ok := c.jsCheck(n, k, v, out); ok {
				out[k] = clone(fixed)
			}
		}
	}
	return out
}

// jsDefs converts the definitions the output refers to, those they refer
// to in turn, and so on, in name order, and reports what became of the
// definitions of the input's root.
func (c *converter) jsDefs() map[string]any {
	defs := map[string]any{}
	for {
		var pending []string
		for _, name := range sortedKeys(c.usedDefs) {
			if _, done := defs[name]; !done {
				pending = append(pending, name)
			}
		}
		if len(pending) == 0 {
			break
		}
		for _, name := range pending {
			key := c.nameKeys[name]
			target := walkPointer(c.doc, key)
			c.defTop = mapID(target)
			n := c.load(target, pointerOrigin(key), 1)
			c.defTop = 0
			defs[name] = c.js(n, 1)
		}
	}
	root := rootMap(c.doc)
	for _, container := range []string{"$defs", "definitions"} {
		m, _ := root[container].(map[string]any)
		for _, name := range sortedKeys(m) {
			key := "/" + container + "/" + strings.ReplaceAll(strings.ReplaceAll(name, "~", "~0"), "/", "~1")
			kept, ok := c.keyNames[key]
			switch {
			case c.excluded[key]:
				c.log.add("", container, strconv.Quote(name)+" is on a loop of references through required fields, which the API rejects: inlined")
			case !ok || !c.usedDefs[kept]:
				c.log.add("", container, strconv.Quote(name)+" is not referenced: dropped")
			case container != "$defs" || kept != name:
				c.log.add("", container, strconv.Quote(name)+" kept as $defs."+kept)
			}
		}
	}
	return defs
}

// keptRefFor returns the name of the kept target ref points to, if any.
func (c *converter) keptRefFor(ref string) (string, bool) {
	if len(c.keyNames) == 0 {
		return "", false
	}
	_, key, ok := c.resolve(ref)
	if !ok {
		return "", false
	}
	name, kept := c.keyNames[key]
	return name, kept
}
