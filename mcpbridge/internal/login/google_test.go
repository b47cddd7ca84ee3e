package login

import "testing"

func TestGoogleHost(t *testing.T) {
	tests := []struct {
		url  string
		want bool
	}{
		{"https://x.googleapis.com/mcp", true},
		{"https://X.GoogleAPIs.com/mcp", true},
		{"https://luci.app/mcp", true},
		{"https://a.b.luci.app/x", true},
		{"https://x.googleapis.com:8443/mcp", true},
		{"http://x.googleapis.com/mcp", false},
		{"https://googleapis.com/mcp", false},
		{"https://googleapis.com.evil.example/mcp", false},
		{"https://evilgoogleapis.com/", false},
		{"https://evil.example/?h=x.googleapis.com", false},
		{"://bad", false},
		{"", false},
	}
	for _, tc := range tests {
		if got := GoogleHost(tc.url); got != tc.want {
			t.Errorf("GoogleHost(%q) = %t, want %t", tc.url, got, tc.want)
		}
	}
}
