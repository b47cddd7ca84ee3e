// Package streamargs assembles the arguments of a function call that
// Vertex AI streams in pieces (FunctionCallingConfig.StreamFunctionCallArguments):
// each piece, a genai.PartialArg, puts a value at a JSON path (RFC 9535,
// "$.foo.bar[0].data"); a string value comes in pieces, joined in the
// order they arrive, each but the last saying willContinue; numbers,
// booleans and nulls come whole. The
// result is the arguments object the call would have carried had it come
// whole.
//
//	asm := streamargs.New(nil)
//	for _, pieces := range chunksOfTheCall {
//		if err := asm.Add(pieces); err != nil { ... }
//	}
//	args, err := asm.Args()
//
// Bad pieces are errors wrapping [ErrMalformed], never a panic: a path
// that is not a singular query, a value put twice at one place, a string
// piece after the string's last one or joined to a number, an array index that skips elements, a piece with
// two values. [Limits] bound the depth, size and number of pieces.
package streamargs

import (
	"errors"
	"fmt"
	"strings"

	"google.golang.org/genai"
)

// ErrMalformed is wrapped by the errors of pieces that do not make
// arguments.
var ErrMalformed = errors.New("malformed piece")

// ErrTooLarge is wrapped by the errors of arguments past a [Limits] bound.
var ErrTooLarge = errors.New("arguments too large")

// Limits bound one call's arguments. A zero field means its default.
type Limits struct {
	// MaxDepth bounds how deep values nest (segments of a path); default 64.
	MaxDepth int
	// MaxBytes bounds the size of the arguments: the bytes of every
	// string piece and member name, and 8 bytes for every other value and
	// container; default 8 MiB.
	MaxBytes int
	// MaxPieces bounds how many pieces make the arguments; default 1<<20.
	MaxPieces int
}

// Defaults of [Limits].
const (
	DefaultMaxDepth  = 64
	DefaultMaxBytes  = 8 << 20 // as the arguments of a call that comes whole (see TestBoundsAgree)
	DefaultMaxPieces = 1 << 20
)

// valueCost is what a value other than a string counts towards MaxBytes,
// as for a call's arguments that come whole (package args).
const valueCost = 8

// Assembler assembles one call's arguments. Create it with [New]. It is
// not safe for concurrent use.
type Assembler struct {
	lim    Limits
	root   map[string]any
	pieces int
	size   int
	err    error
}

// array is an array being assembled.
type array struct{ items []any }

// text is a string being assembled from its pieces; ended once a piece
// did not say more would follow.
type text struct {
	b     strings.Builder
	ended bool
}

// New returns an empty Assembler. If lim is nil, the default limits are
// used.
func New(lim *Limits) *Assembler {
	a := &Assembler{root: map[string]any{}}
	if lim != nil {
		a.lim = *lim
	}
	if a.lim.MaxDepth <= 0 {
		a.lim.MaxDepth = DefaultMaxDepth
	}
	if a.lim.MaxBytes <= 0 {
		a.lim.MaxBytes = DefaultMaxBytes
	}
	if a.lim.MaxPieces <= 0 {
		a.lim.MaxPieces = DefaultMaxPieces
	}
	return a
}

// Add adds the pieces of one chunk, in order. A nil piece is ignored. A
// piece with no value (no string, number, boolean or null) is an empty
// string piece: genai cannot tell an empty stringValue from none. Once Add
// has failed, the Assembler keeps its first error and takes nothing more.
func (a *Assembler) Add(pieces []*genai.PartialArg) error {
	if a.err != nil {
		return a.err
	}
	for _, p := range pieces {
		if p == nil {
			continue
		}
		a.pieces++
		if a.pieces > a.lim.MaxPieces {
			a.err = fmt.Errorf("%w: more than %d pieces", ErrTooLarge, a.lim.MaxPieces)
			return a.err
		}
		if err := a.add(p); err != nil {
			a.err = fmt.Errorf("piece %d, path %q: %w", a.pieces, clip(p.JsonPath), err)
			return a.err
		}
	}
	return nil
}

// Args returns the arguments assembled so far, a new map of plain JSON
// values (map[string]any, []any, string, float64, bool, nil); a string
// whose last piece said more would follow ends here. It returns the error
// Add returned, if any.
func (a *Assembler) Args() (map[string]any, error) {
	if a.err != nil {
		return nil, a.err
	}
	return finish(a.root).(map[string]any), nil
}

func (a *Assembler) add(p *genai.PartialArg) error {
	segs, err := parsePath(p.JsonPath, a.lim.MaxDepth)
	if err != nil {
		if errors.Is(err, ErrTooLarge) {
			return err
		}
		return fmt.Errorf("%w: %w", ErrMalformed, err)
	}
	val, isText, err := value(p)
	more := p.WillContinue != nil && *p.WillContinue
	if err != nil {
		return fmt.Errorf("%w: %w", ErrMalformed, err)
	}
	cost := valueCost
	if isText {
		cost = len(val.(string))
	}
	if err := a.grow(cost); err != nil {
		return err
	}
	// Walk to the container of the last segment, making what is missing.
	var cur any = a.root
	for i, s := range segs[:len(segs)-1] {
		next, err := a.child(cur, s, segs[i+1].isIndex)
		if err != nil {
			return fmt.Errorf("%w: at %s: %w", ErrMalformed, where(segs[:i+1]), err)
		}
		cur = next
	}
	if err := a.put(cur, segs[len(segs)-1], val, isText, more); err != nil {
		return fmt.Errorf("%w: at %s: %w", ErrMalformed, where(segs), err)
	}
	return nil
}

// grow counts n more bytes towards MaxBytes.
func (a *Assembler) grow(n int) error {
	a.size += n
	if a.size > a.lim.MaxBytes {
		return fmt.Errorf("%w: more than %d bytes", ErrTooLarge, a.lim.MaxBytes)
	}
	return nil
}

// value returns the one value p carries, and whether it is a string piece.
func value(p *genai.PartialArg) (any, bool, error) {
	var vals []any
	if p.NumberValue != nil {
		vals = append(vals, *p.NumberValue)
	}
	if p.BoolValue != nil {
		vals = append(vals, *p.BoolValue)
	}
	if p.NULLValue != "" {
		if p.NULLValue != "NULL_VALUE" {
			return nil, false, fmt.Errorf("nullValue %q is not NULL_VALUE", clip(p.NULLValue))
		}
		vals = append(vals, nil)
	}
	switch {
	case len(vals) > 1 || len(vals) == 1 && p.StringValue != "":
		return nil, false, errors.New("the piece carries more than one value")
	case len(vals) == 1:
		return vals[0], false, nil
	}
	return p.StringValue, true, nil
}

// child returns the container that s names in cur, making it (an array
// when wantArray) when it is missing.
func (a *Assembler) child(cur any, s segment, wantArray bool) (any, error) {
	made := func() (any, error) {
		if err := a.grow(valueCost + len(s.name)); err != nil {
			return nil, err
		}
		if wantArray {
			return &array{}, nil
		}
		return map[string]any{}, nil
	}
	check := func(v any) (any, error) {
		switch v.(type) {
		case *array:
			if wantArray {
				return v, nil
			}
			return nil, errors.New("an array is used as an object")
		case map[string]any:
			if !wantArray {
				return v, nil
			}
			return nil, errors.New("an object is used as an array")
		}
		return nil, fmt.Errorf("%s is used as a container", kind(v))
	}
	switch c := cur.(type) {
	case map[string]any:
		if s.isIndex {
			return nil, errors.New("an object is indexed like an array")
		}
		if v, ok := c[s.name]; ok {
			return check(v)
		}
		v, err := made()
		if err == nil {
			c[s.name] = v
		}
		return v, err
	case *array:
		if !s.isIndex {
			return nil, errors.New("an array is used as an object")
		}
		switch {
		case s.index < len(c.items):
			return check(c.items[s.index])
		case s.index > len(c.items):
			return nil, fmt.Errorf("index %d skips elements (the array has %d)", s.index, len(c.items))
		}
		v, err := made()
		if err == nil {
			c.items = append(c.items, v)
		}
		return v, err
	}
	return nil, fmt.Errorf("%s is used as a container", kind(cur))
}

// put puts val at s in cur: a string piece is joined to the string there
// when the piece before it said more would follow (more says it of this
// one); any other value must find the place empty.
func (a *Assembler) put(cur any, s segment, val any, isText, more bool) error {
	var old any
	var exists bool
	var set func(any)
	switch c := cur.(type) {
	case map[string]any:
		if s.isIndex {
			return errors.New("an object is indexed like an array")
		}
		old, exists = c[s.name]
		set = func(v any) { c[s.name] = v }
		if !exists {
			if err := a.grow(len(s.name)); err != nil {
				return err
			}
		}
	case *array:
		if !s.isIndex {
			return errors.New("an array is used as an object")
		}
		switch {
		case s.index < len(c.items):
			old, exists = c.items[s.index], true
			set = func(v any) { c.items[s.index] = v }
		case s.index > len(c.items):
			return fmt.Errorf("index %d skips elements (the array has %d)", s.index, len(c.items))
		default:
			set = func(v any) { c.items = append(c.items, v) }
		}
	default:
		return fmt.Errorf("%s is used as a container", kind(cur))
	}
	if !exists {
		if isText {
			t := &text{ended: !more}
			t.b.WriteString(val.(string))
			val = t
		}
		set(val)
		return nil
	}
	if t, ok := old.(*text); ok && isText {
		if t.ended {
			return errors.New("a string piece comes after the string's last piece")
		}
		t.b.WriteString(val.(string))
		t.ended = !more
		return nil
	}
	if isText {
		return fmt.Errorf("a string piece is joined to %s", kind(old))
	}
	return fmt.Errorf("a value is put where %s already is", kind(old))
}

// kind names what v is, for errors.
func kind(v any) string {
	switch v.(type) {
	case map[string]any:
		return "an object"
	case *array:
		return "an array"
	case *text:
		return "a string"
	case float64:
		return "a number"
	case bool:
		return "a boolean"
	case nil:
		return "null"
	}
	return fmt.Sprintf("%T", v)
}

// where writes segs as a path in the normalized form of RFC 9535.
func where(segs []segment) string {
	var b strings.Builder
	b.WriteString("$")
	for _, s := range segs {
		b.WriteString(s.String())
	}
	return clip(b.String())
}

// finish turns an assembled value into plain JSON values.
func finish(v any) any {
	switch c := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(c))
		for k, e := range c {
			out[k] = finish(e)
		}
		return out
	case *array:
		out := make([]any, len(c.items))
		for i, e := range c.items {
			out[i] = finish(e)
		}
		return out
	case *text:
		return c.b.String()
	}
	return v
}
