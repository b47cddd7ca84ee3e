// Package args prepares a model's function-call arguments before they are
// sent to an MCP server: [Check] refuses values that cannot be encoded (a
// cycle, nesting too deep), [Encode] gives the JSON to send together with
// the value a JSON Schema validator reads, and [Schema] validates that
// value against the tool's original input schema, with a quick check for
// the plain schemas most tools have and the full validator
// (github.com/santhosh-tekuri/jsonschema/v6) for the rest. [Detail] words a
// validation failure for the model.
package args

import (
	"fmt"
	"reflect"
	"strings"
)

// maxArgsDepth is how deeply a call's arguments may nest. It matches the
// nesting limit of Go's JSON decoder, so any arguments the model can send
// pass; deeper ones can only come from host code.
const maxArgsDepth = 10000

// MaxBytes bounds the size of one call's arguments: the bytes of every
// string and member name, and valueCost for every other value and every
// container. Arguments a model streams in pieces are bounded the same way
// (package streamargs).
const MaxBytes = 8 << 20

// valueCost is what a value other than a string counts towards MaxBytes.
const valueCost = 8

// Check reports why v cannot be a call's arguments: a map, slice or
// pointer that contains itself (host code can build one; walking it would
// never end), nesting deeper than maxArgsDepth, or a size past MaxBytes,
// found before anything is copied or encoded. It returns nil for
// everything else, leaving other problems to the JSON encoder. v is not
// modified.
func Check(v any) error {
	var w argsWalker
	if w.walk(v, 0) {
		return nil
	}
	if w.problem == tooLarge {
		return fmt.Errorf("arguments of more than %d bytes", MaxBytes)
	}
	return fmt.Errorf("%s at '%s'", w.problem, w.path())
}

// tooLarge is the problem of arguments past MaxBytes.
const tooLarge = "too large"

// argsWalker walks a value depth first, keeping the maps, slices and
// pointers on the current path.
type argsWalker struct {
	onPath  map[uintptr]bool
	keys    []any // the keys and indexes of the path, deepest last, kept on failure
	problem string
	size    int // what was walked so far counts towards MaxBytes
}

// grow counts n bytes more and reports whether the size is within
// MaxBytes.
func (w *argsWalker) grow(n int) bool {
	w.size += n
	if w.size > MaxBytes {
		w.problem = tooLarge
		return false
	}
	return true
}

// walk reports whether v is fine; on failure problem and keys say why and
// where.
func (w *argsWalker) walk(v any, depth int) bool {
	switch v := v.(type) {
	case string:
		return w.grow(len(v))
	case nil, bool, float64, int, int64:
		return w.grow(valueCost)
	case map[string]any:
		if len(v) == 0 {
			return w.grow(valueCost)
		}
		if depth < maxArgsDepth {
			if n, ok := flat(v); ok {
				return w.grow(n)
			}
		}
		if !w.grow(valueCost) {
			return false
		}
		return w.container(reflect.ValueOf(v).Pointer(), depth, func() bool {
			for k, e := range v {
				if !w.grow(len(k)) {
					return false
				}
				if !w.walk(e, depth+1) {
					w.keys = append(w.keys, k)
					return false
				}
			}
			return true
		})
	case []any:
		if !w.grow(valueCost) {
			return false
		}
		if len(v) == 0 {
			return true
		}
		return w.container(reflect.ValueOf(v).Pointer()+uintptr(len(v))<<1, depth, func() bool {
			for i, e := range v {
				if !w.walk(e, depth+1) {
					w.keys = append(w.keys, i)
					return false
				}
			}
			return true
		})
	}
	return w.walkValue(reflect.ValueOf(v), depth)
}

// flat reports whether every value of m is a string, number, boolean or
// null, and then m's size as MaxBytes counts it: such a map cannot contain
// itself, so walk needs no bookkeeping for it (the usual arguments of a
// call).
func flat(m map[string]any) (int, bool) {
	n := valueCost
	for k, e := range m {
		switch e := e.(type) {
		case string:
			n += len(k) + len(e)
		case nil, bool, float64, int, int64:
			n += len(k) + valueCost
		default:
			return 0, false
		}
	}
	return n, true
}

// walkValue is walk for types other than JSON's own, through reflection.
func (w *argsWalker) walkValue(v reflect.Value, depth int) bool {
	switch v.Kind() {
	case reflect.Interface:
		if v.IsNil() {
			return true
		}
		return w.walk(v.Elem().Interface(), depth)
	case reflect.String:
		return w.grow(v.Len())
	case reflect.Pointer, reflect.Map, reflect.Slice:
		if v.Kind() == reflect.Slice && v.Type().Elem().Kind() == reflect.Uint8 {
			return w.grow(v.Len()) // base64 in JSON: a little more
		}
		if !w.grow(valueCost) {
			return false
		}
		if v.IsNil() || v.Kind() != reflect.Pointer && v.Len() == 0 {
			return true
		}
		// A slice is identified by its first element and its length, so
		// that two windows of one array are not taken for a cycle.
		id := v.Pointer()
		if v.Kind() == reflect.Slice {
			id += uintptr(v.Len()) << 1
		}
		return w.container(id, depth, func() bool {
			switch v.Kind() {
			case reflect.Pointer:
				return w.elem(v.Elem(), nil, depth)
			case reflect.Map:
				for it := v.MapRange(); it.Next(); {
					if !w.grow(valueCost) || !w.elem(it.Value(), it.Key().Interface(), depth) {
						return false
					}
				}
			default:
				for i := range v.Len() {
					if !w.elem(v.Index(i), i, depth) {
						return false
					}
				}
			}
			return true
		})
	case reflect.Array:
		for i := range v.Len() {
			if !w.elem(v.Index(i), i, depth) {
				return false
			}
		}
	case reflect.Struct:
		for i := range v.NumField() {
			if f := v.Type().Field(i); f.IsExported() && !w.elem(v.Field(i), f.Name, depth) {
				return false
			}
		}
	}
	return true
}

// elem walks e, an element of a container at depth, found under key (nil
// for a pointer's target).
func (w *argsWalker) elem(e reflect.Value, key any, depth int) bool {
	var ok bool
	if e.CanInterface() {
		ok = w.walk(e.Interface(), depth+1)
	} else {
		ok = w.walkValue(e, depth+1)
	}
	if !ok && key != nil {
		w.keys = append(w.keys, key)
	}
	return ok
}

// container walks the elements of the container id at depth with each,
// failing when it is already on the path or too deep.
func (w *argsWalker) container(id uintptr, depth int, each func() bool) bool {
	if depth >= maxArgsDepth {
		w.problem = fmt.Sprintf("nested more than %d levels deep", maxArgsDepth)
		return false
	}
	if w.onPath == nil {
		w.onPath = map[uintptr]bool{}
	}
	if w.onPath[id] {
		w.problem = "a value that contains itself"
		return false
	}
	w.onPath[id] = true
	ok := each()
	delete(w.onPath, id)
	return ok
}

// path returns the JSON-pointer-like path of the failure, shortened to its
// last 200 bytes.
func (w *argsWalker) path() string {
	var b strings.Builder
	for i := len(w.keys) - 1; i >= 0; i-- {
		fmt.Fprintf(&b, "/%v", w.keys[i])
	}
	p := b.String()
	if len(p) > 200 {
		p = "…" + p[len(p)-200:]
	}
	return p
}
