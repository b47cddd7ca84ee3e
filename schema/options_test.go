package schema

import "testing"

func TestOptionsNormalized(t *testing.T) {
	cases := []struct {
		name string
		in   *Options
		want Options
	}{
		{"nil", nil, Options{MaxDepth: DefaultMaxDepth, RefDepth: DefaultRefDepth}},
		{"zero", &Options{}, Options{MaxDepth: DefaultMaxDepth, RefDepth: DefaultRefDepth}},
		{"negative", &Options{MaxDepth: -1, RefDepth: -5}, Options{MaxDepth: DefaultMaxDepth, RefDepth: DefaultRefDepth}},
		{"set", &Options{Target: Vertex, MaxDepth: 7, RefDepth: 1}, Options{Target: Vertex, MaxDepth: 7, RefDepth: 1}},
	}
	for _, tc := range cases {
		if got := tc.in.normalized(); got != tc.want {
			t.Errorf("%s: normalized() = %+v, want %+v", tc.name, got, tc.want)
		}
	}
}

func TestConvertNilOptionsIsGemini(t *testing.T) {
	res, err := Convert([]byte(`{"type":"object"}`), nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Target != Gemini || res.Parameters == nil {
		t.Errorf("Convert(nil options) = target %v, Parameters %v; want gemini with Parameters", res.Target, res.Parameters)
	}
}
