// Package completion reads a server's answer to completion/complete: the
// values an argument of a prompt or resource template may take, cleaned
// for a host to show.
//
//	c, err := completion.Parse(raw) // c.Values: at most MaxValues clean lines
package completion

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/mcpgenai/bridge/mcpbridge/internal/result"
)

// MaxValues is how many values a result may hold (the protocol's own
// limit); more are dropped and HasMore is set.
const MaxValues = 100

// maxValue bounds one value, in characters.
const maxValue = 1000

// Result is a completion/complete result.
type Result struct {
	Values  []string
	Total   int // the number of values the server has in all; 0 when not said
	HasMore bool
}

// ErrBadResult is wrapped by Parse's errors.
var ErrBadResult = errors.New("bad completion result")

// Parse reads a CompleteResult: {"completion":{"values":[...],"total":N,
// "hasMore":B}}. Each value becomes one line without control or
// bidirectional characters, cut to 1,000 characters; empty values and
// values past MaxValues are dropped (the latter sets HasMore). A negative
// or non-integer total counts as not said. A result without a list of
// string values is an error.
func Parse(raw json.RawMessage) (Result, error) {
	var r struct {
		Completion *struct {
			Values  []string `json:"values"`
			Total   float64  `json:"total"`
			HasMore bool     `json:"hasMore"`
		} `json:"completion"`
	}
	if err := json.Unmarshal(raw, &r); err != nil {
		return Result{}, fmt.Errorf("%w: %v", ErrBadResult, err)
	}
	if r.Completion == nil || r.Completion.Values == nil {
		return Result{}, fmt.Errorf("%w: no completion values", ErrBadResult)
	}
	c := r.Completion
	out := Result{Values: []string{}, HasMore: c.HasMore}
	if c.Total > 0 && c.Total == float64(int(c.Total)) {
		out.Total = int(c.Total)
	}
	for _, v := range c.Values {
		if len(out.Values) == MaxValues {
			out.HasMore = true
			break
		}
		if v = result.OneLine(v, maxValue); v != "" {
			out.Values = append(out.Values, v)
		}
	}
	return out, nil
}
