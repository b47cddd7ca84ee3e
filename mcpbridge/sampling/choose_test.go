package sampling

import "testing"

func TestChoose(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	allowed := []string{"gemini-2.5-pro", "gemini-2.5-flash-lite", "gemini-2.5-flash"}
	for _, tc := range []struct {
		name string
		p    Preferences
		want string
	}{
		{"none", Preferences{}, "gemini-2.5-flash"},
		{"hint", Preferences{Hints: []string{"PRO"}}, "gemini-2.5-pro"},
		{"first matching hint", Preferences{Hints: []string{"claude", "lite", "pro"}}, "gemini-2.5-flash-lite"},
		{"hint then priority", Preferences{Hints: []string{"flash"}, Cost: f(1)}, "gemini-2.5-flash-lite"},
		{"hint tie keeps default", Preferences{Hints: []string{"flash"}}, "gemini-2.5-flash"},
		{"intelligence", Preferences{Intelligence: f(0.8), Speed: f(0.3)}, "gemini-2.5-pro"},
		{"speed ties flash and lite: default", Preferences{Intelligence: f(0.3), Speed: f(0.8)}, "gemini-2.5-flash"},
		{"cost", Preferences{Cost: f(0.5)}, "gemini-2.5-flash-lite"},
		{"no match", Preferences{Hints: []string{"gpt"}}, "gemini-2.5-flash"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Gemini(nil, "gemini-2.5-flash", allowed...).ChooseModel(&Request{Preferences: tc.p}); got != tc.want {
				t.Errorf("ChooseModel(%+v) = %q, want %q", tc.p, got, tc.want)
			}
		})
	}
}
