package schema

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"
)

// loadRoot builds the working tree for the whole document v, inlining
// every resolvable local $ref. v must be in the generic JSON form and owned
// by the conversion (see convertOwned): the tree and the result share it.
func (c *converter) loadRoot(v any) *node {
	c.doc = v
	c.ptrCache = map[string]resolved{}
	c.refStack = map[string]int{}
	c.memo = map[string]memoEntry{}
	if v == nil {
		return newNode("")
	}
	if c.opts.Target == JSONSchema && c.keepRefs {
		c.planKeptRefs()
	}
	return c.load(v, "", 0)
}

// maxLoadDepth bounds the nesting the loader follows; it is far beyond any
// output depth the converter keeps, and only protects against pathological
// input.
func (c *converter) maxLoadDepth() int { return 4*c.opts.MaxDepth + 16 }

// load builds the node for the JSON value v found at origin.
func (c *converter) load(v any, origin string, depth int) *node {
	c.nodes++
	if depth > c.maxLoadDepth() {
		c.cuts++
		c.log.add(origin, containerKeyword(origin), "nested too deep: replaced by an any-value placeholder")
		return &node{origin: origin, placeholder: "nested too deep"}
	}
	switch v := v.(type) {
	case bool:
		return &node{origin: origin, boolean: &v, kw: map[string]any{}}
	case map[string]any:
		if r, ok := c.keptSite(v, origin); ok {
			return r
		}
		if ref, ok := v["$ref"].(string); ok {
			if name, kept := c.keptRefFor(ref); kept && depth > 0 {
				return c.keptRef(v, ref, name, origin, depth)
			}
			return c.loadRef(v, ref, origin, depth)
		}
		return c.loadMap(v, origin, depth)
	}
	c.log.add(origin, containerKeyword(origin), fmt.Sprintf("%s is not a schema: treated as any value", article(jsonKind(v))))
	return newNode(origin)
}

// loadMap builds the node for a schema object without $ref.
func (c *converter) loadMap(m map[string]any, origin string, depth int) *node {
	n := &node{origin: origin, kw: make(map[string]any, len(m))}
	for _, k := range sortedKeys(m) {
		v := m[k]
		p := "" // join(origin, k), made only for keywords holding subschemas
		if subschemaKeys[k] {
			p = join(origin, k)
		}
		switch {
		case k == "$defs" || k == "definitions":
			if c.keyNames == nil || origin != "" {
				c.log.add(origin, k, "removed (local references are inlined)")
			} // else jsDefs reports what became of each definition

		case k == "$ref":
			c.log.add(origin, k, "not a string: dropped")
		case k == "items" || k == "prefixItems" || listSchemaKeys[k] && !singleSchemaKeys[k]:
			if l, ok := v.([]any); ok {
				if len(l) == 0 {
					c.log.add(origin, k, "empty list dropped")
					continue
				}
				nodes := make([]*node, len(l))
				for i, e := range l {
					nodes[i] = c.load(e, join(p, strconv.Itoa(i)), depth+1)
				}
				n.kw[k] = nodes
			} else if isSchemaValue(v) && singleSchemaKeys[k] {
				n.kw[k] = c.load(v, p, depth+1)
			} else {
				c.log.add(origin, k, "not a schema: dropped")
			}
		case singleSchemaKeys[k]:
			if isSchemaValue(v) {
				n.kw[k] = c.load(v, p, depth+1)
			} else {
				c.log.add(origin, k, "not a schema: dropped")
			}
		case mapSchemaKeys[k]:
			pm, ok := v.(map[string]any)
			if !ok {
				c.log.add(origin, k, "not an object: dropped")
				continue
			}
			out := make(map[string]any, len(pm))
			for _, name := range sortedKeys(pm) {
				switch {
				case isSchemaValue(pm[name]):
					out[name] = c.load(pm[name], join(p, name), depth+1)
				case k == "dependencies":
					out[name] = pm[name] // draft-7 dependencies: ["a", "b"]
				default:
					c.log.add(p, name, "not a schema: dropped")
				}
			}
			n.kw[k] = out
		default:
			n.kw[k] = v // already a private copy (loadRoot cloned the document)
		}
	}
	return n
}

// subschemaKeys are the keywords whose path loadMap needs: those that
// hold subschemas.
var subschemaKeys = func() map[string]bool {
	m := map[string]bool{}
	for _, class := range []map[string]bool{singleSchemaKeys, listSchemaKeys, mapSchemaKeys} {
		for k := range class {
			m[k] = true
		}
	}
	return m
}()

// isSchemaValue reports whether v can be a schema (an object or a boolean).
func isSchemaValue(v any) bool {
	switch v.(type) {
	case map[string]any, bool:
		return true
	}
	return false
}

// refAnnotations may sit beside $ref and simply override the target's.
var refAnnotations = map[string]bool{
	"description": true, "title": true, "default": true, "examples": true,
	"example": true, "$comment": true, "deprecated": true, "readOnly": true,
	"writeOnly": true, "$schema": true, "$id": true, "$anchor": true,
	"$defs": true, "definitions": true,
}

// overBudget reports whether the next $ref must not be expanded because
// the tree is getting too big. The limit tightens gradually for references
// nested in other references, so that when the budget runs short, the
// references near the root (every property's own type) are still expanded
// and only the deep detail is cut.
func (c *converter) overBudget() bool {
	switch {
	case c.nodes > maxNodes:
		return true
	case c.nodes > maxNodes/2:
		return c.refLevel >= 2
	case c.nodes > maxNodes/4:
		return c.refLevel >= 4
	}
	return false
}

// memoEntry is a loaded $ref target that can be reused as it is.
type memoEntry struct {
	node *node
	size int // nodes it counts against maxNodes
}

// loadRef expands the $ref in m (at origin) and merges its siblings.
func (c *converter) loadRef(m map[string]any, ref, origin string, depth int) *node {
	target, key, ok := c.resolve(ref)
	var t *node
	switch {
	case !ok:
		c.cuts++
		c.log.add(origin, "$ref", "unresolvable reference "+strconv.Quote(ref)+": any value")
		t = &node{origin: origin, placeholder: "unresolved reference " + ref}
	case c.refStack[key] >= c.opts.RefDepth:
		c.cuts++
		c.log.add(origin, "$ref", "recursive reference "+strconv.Quote(ref)+" cut after "+strconv.Itoa(c.opts.RefDepth)+" expansions")
		t = &node{origin: origin, placeholder: "recursive " + refName(key) + ", nested too deep to describe"}
	case c.overBudget():
		c.cuts++
		c.log.add(origin, "$ref", "reference "+strconv.Quote(ref)+" not expanded: schema too large")
		t = &node{origin: origin, placeholder: "schema too large to describe " + refName(key)}
	case c.cutLevel > 0 && c.refLevel+1 >= c.cutLevel && composite(target):
		c.cuts++
		c.budgetCuts++
		c.log.add(origin, "$ref", "reference "+strconv.Quote(ref)+" cut to fit the declaration's size budget")
		t = &node{origin: origin, placeholder: budgetNote(target, key)}
	default:
		c.log.add(origin, "$ref", "inlined "+strconv.Quote(ref))
		mkey := key
		if c.cutLevel > 0 {
			mkey += "@" + strconv.Itoa(c.refLevel) // what is cut inside depends on the level
		}
		if m, ok := c.memo[mkey]; ok {
			t = m.node
			c.nodes += m.size
			break
		}
		cuts, nodes := c.cuts, c.nodes
		c.refStack[key]++
		c.refLevel++
		c.maxRefLevel = max(c.maxRefLevel, c.refLevel)
		c.defTop = mapID(target) // expanded here, not referred to
		t = c.load(target, pointerOrigin(key), depth+1)
		c.refLevel--
		c.refStack[key]--
		if c.cuts == cuts {
			// Nothing was cut inside, so the target's closure has no cycle
			// and its expansion is the same wherever it is used: share it
			// (nodes are never modified once loaded).
			c.memo[mkey] = memoEntry{node: t, size: c.nodes - nodes}
		}
	}
	sib := make(map[string]any, len(m))
	plain := true
	for k, v := range m {
		if k == "$ref" {
			continue
		}
		sib[k] = v
		if !refAnnotations[k] {
			plain = false
		}
	}
	if len(sib) == 0 {
		return t
	}
	s := c.loadMap(sib, origin, depth)
	if plain {
		// Only annotations beside $ref: they override the target's.
		if t.kw == nil || t.placeholder != "" || t.boolean != nil {
			if t.placeholder != "" {
				s.placeholder = t.placeholder
			}
			if t.boolean != nil && !*t.boolean {
				s.boolean = t.boolean
			}
			return s
		}
		out := t.copy()
		out.origin = origin
		for k, v := range s.kw {
			out.kw[k] = v
		}
		return out
	}
	c.log.add(origin, "$ref", "keywords beside $ref merged with its target")
	return c.merge(s, c.mergeAllOf(t))
}

// resolve finds the value ref points to in the document. key identifies the
// target ("/$defs/a" style JSON pointer, "" for the root).
func (c *converter) resolve(ref string) (v any, key string, ok bool) {
	frag, found := strings.CutPrefix(ref, "#")
	if !found {
		// An absolute reference to the document itself: "<$id>#/...".
		id, _ := rootMap(c.doc)["$id"].(string)
		base, f, hasFrag := strings.Cut(ref, "#")
		if id == "" || strings.TrimSuffix(base, "/") != strings.TrimSuffix(strings.SplitN(id, "#", 2)[0], "/") {
			return nil, "", false
		}
		frag = ""
		if hasFrag {
			frag = f
		}
	}
	if u, err := url.PathUnescape(frag); err == nil {
		frag = u
	}
	if e, ok := c.ptrCache[frag]; ok {
		return e.value, e.key, e.value != nil
	}
	target, key := any(nil), frag
	if frag == "" || strings.HasPrefix(frag, "/") {
		target = walkPointer(c.doc, frag)
	} else {
		// An anchor: the key is the JSON pointer of the schema declaring
		// it, so that "#name" and "#/$defs/name" share expansions, the
		// recursion count and the reported paths.
		target, key = findAnchor(c.doc, frag, "")
	}
	c.ptrCache[frag] = resolved{value: target, key: key}
	return target, key, target != nil
}

// resolved is a cached reference target and its JSON pointer.
type resolved struct {
	value any
	key   string
}

func rootMap(v any) map[string]any {
	m, _ := v.(map[string]any)
	return m
}

// walkPointer follows the JSON pointer p (RFC 6901) from v; nil if absent.
func walkPointer(v any, p string) any {
	if p == "" {
		return v
	}
	for _, tok := range strings.Split(p[1:], "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		switch cur := v.(type) {
		case map[string]any:
			next, ok := cur[tok]
			if !ok {
				return nil
			}
			v = next
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(cur) {
				return nil
			}
			v = cur[i]
		default:
			return nil
		}
	}
	return v
}

// findAnchor finds the schema declaring the plain-name fragment name, via
// "$anchor": name or an old-style "$id": "#name", under v found at the JSON
// pointer ptr. It returns the schema and its JSON pointer, or nil.
func findAnchor(v any, name, ptr string) (any, string) {
	switch cur := v.(type) {
	case map[string]any:
		if a, _ := cur["$anchor"].(string); a == name {
			return cur, ptr
		}
		if id, _ := cur["$id"].(string); id == "#"+name {
			return cur, ptr
		}
		for _, k := range sortedKeys(cur) {
			tok := strings.ReplaceAll(strings.ReplaceAll(k, "~", "~0"), "/", "~1")
			if r, p := findAnchor(cur[k], name, ptr+"/"+tok); r != nil {
				return r, p
			}
		}
	case []any:
		for i, e := range cur {
			if r, p := findAnchor(e, name, ptr+"/"+strconv.Itoa(i)); r != nil {
				return r, p
			}
		}
	}
	return nil, ""
}

// containerKeyword returns the keyword holding the subschema at the dotted
// path origin ("properties" for "properties.x", "anyOf" for "anyOf.1"), or
// "type" for the root.
func containerKeyword(origin string) string {
	if origin == "" {
		return "type"
	}
	segs := strings.Split(origin, ".")
	last := "type"
	for i := 0; i < len(segs); i++ {
		k := segs[i]
		last = k
		switch {
		case mapSchemaKeys[k] || k == "$defs" || k == "definitions":
			i++ // skip the name
		case listSchemaKeys[k] && i+1 < len(segs) && isIndex(segs[i+1]):
			i++ // skip the index
		}
	}
	return last
}

// isIndex reports whether s is a list index.
func isIndex(s string) bool {
	i, err := strconv.Atoi(s)
	return err == nil && i >= 0
}

// article prefixes a JSON kind with "a" or "an".
func article(kind string) string {
	if kind == "array" || kind == "object" {
		return "an " + kind
	}
	return "a " + kind
}

// pointerOrigin turns a resolved pointer into a dotted origin path.
func pointerOrigin(key string) string {
	if key == "" || !strings.HasPrefix(key, "/") {
		return key
	}
	toks := strings.Split(key[1:], "/")
	for i, t := range toks {
		toks[i] = strings.ReplaceAll(strings.ReplaceAll(t, "~1", "/"), "~0", "~")
	}
	return strings.Join(toks, ".")
}

// refName is a short name for the target of a reference.
func refName(key string) string {
	if key == "" {
		return "root schema"
	}
	if i := strings.LastIndex(key, "/"); i >= 0 {
		key = key[i+1:]
	}
	return strconv.Quote(key)
}

// jsonKind names the JSON type of v.
func jsonKind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case string:
		return "string"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return "number"
}
