package schema

import (
	"encoding/json"
	"math"
	"testing"
)

func TestNumbers(t *testing.T) {
	floats := []struct {
		in   any
		want float64
		ok   bool
	}{
		{json.Number("1e3"), 1000, true},
		{json.Number("1e400"), 0, false},
		{2.5, 2.5, true},
		{math.Inf(1), 0, false},
		{7, 7, true},
		{int64(-3), -3, true},
		{"5", 0, false},
	}
	for _, tc := range floats {
		got, ok := toFloat(tc.in)
		if ok != tc.ok || ok && got != tc.want {
			t.Errorf("toFloat(%#v) = %v, %v; want %v, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
	counts := []struct {
		in   any
		want int64
		ok   bool
	}{
		{json.Number("3"), 3, true},
		{3.0, 3, true},
		{2.5, 0, false},
		{-1.0, 0, false},
		{1e300, 0, false},
	}
	for _, tc := range counts {
		got, ok := toCount(tc.in)
		if ok != tc.ok || ok && got != tc.want {
			t.Errorf("toCount(%#v) = %v, %v; want %v, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
	for in, want := range map[any]string{json.Number("1.50"): "1.50", 0.1: "0.1", 1e21: "1e+21", 5: "5"} {
		if got := numText(in); got != want {
			t.Errorf("numText(%#v) = %q, want %q", in, got, want)
		}
	}
}
