package hostlogin

import (
	"context"
	"strings"
	"testing"
)

func TestShowURL(t *testing.T) {
	var out strings.Builder
	if err := ShowURL(&out, false)(context.Background(), "tracker", "https://auth.example.com/authorize?x=1"); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"tracker"`, "https://auth.example.com/authorize?x=1"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("ShowURL wrote %q, want it to contain %q", out.String(), want)
		}
	}
}
