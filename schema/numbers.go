package schema

import (
	"encoding/json"
	"math"
	"strconv"
	"strings"
)

// toFloat returns the number v as a float64.
func toFloat(v any) (float64, bool) {
	switch v := v.(type) {
	case float64:
		return v, !math.IsNaN(v) && !math.IsInf(v, 0)
	case json.Number:
		f, err := v.Float64()
		return f, err == nil && !math.IsInf(f, 0)
	case int:
		return float64(v), true
	case int64:
		return float64(v), true
	}
	return 0, false
}

// toCount returns the number v as a non-negative int64 (lengths, counts).
func toCount(v any) (int64, bool) {
	f, ok := toFloat(v)
	if !ok || f < 0 || f != math.Trunc(f) || f > math.MaxInt64/2 {
		return 0, false
	}
	return int64(f), true
}

// numText formats a number as it was written (json.Number) or in the
// shortest form that reads back the same.
func numText(v any) string {
	switch v := v.(type) {
	case json.Number:
		return v.String()
	case float64:
		return strconv.FormatFloat(v, 'g', -1, 64)
	}
	f, _ := toFloat(v)
	return strconv.FormatFloat(f, 'g', -1, 64)
}

func lower(s string) string { return strings.ToLower(strings.TrimSpace(s)) }

func ptr[T any](v T) *T { return &v }
