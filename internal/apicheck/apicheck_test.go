package apicheck

import (
	"strings"
	"testing"
)

// TestModule: no public package of the module declares another name for
// an internal type or value.
func TestModule(t *testing.T) {
	found, err := Check("../..")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range found {
		t.Errorf("%v: define it in the public package and convert at the boundary", f)
	}
}

// TestCheckFile: what is found and what is not.
func TestCheckFile(t *testing.T) {
	const src = `package p

import (
	"errors"

	"example.com/m/internal/wire"
	in "example.com/m/mcpbridge/internal/sampling"
	"example.com/m/schema"
)

type Request = in.Request           // found
type list = []wire.Item             // found, unexported too
type Target = schema.Target         // public: not found
type Own struct{ r in.Request }     // a definition: not found

var ErrRefused = in.ErrRefused      // found
var ErrOwn = errors.New("own")      // not found
var wrapped = fmt.Errorf("%w", in.ErrRefused) // a new value: not found

const Max = (wire.Max)              // found
const Twice = 2 * wire.Max          // a new value: not found
`
	found, err := checkFile("p.go", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range found {
		got = append(got, f.What+" "+f.Name)
	}
	want := "type alias Request, type alias list, var ErrRefused, const Max"
	if g := strings.Join(got, ", "); g != want {
		t.Errorf("checkFile() found %q, want %q", g, want)
	}
}
