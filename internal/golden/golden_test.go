package golden

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// recorder is a testing.TB that records failures instead of failing.
type recorder struct {
	testing.TB
	errors, fatals []string
}

func (r *recorder) Helper() {}
func (r *recorder) Errorf(format string, args ...any) {
	r.errors = append(r.errors, fmt.Sprintf(format, args...))
}
func (r *recorder) Fatalf(format string, args ...any) {
	r.fatals = append(r.fatals, fmt.Sprintf(format, args...))
}

func TestCheck(t *testing.T) {
	dir := t.TempDir()
	same := filepath.Join(dir, "same.golden")
	if err := os.WriteFile(same, []byte("line 1\nline 2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name       string
		path       string
		got        string
		wantError  string // substring of the one Errorf; "" means none
		wantFatal  string // substring of the one Fatalf; "" means none
		wantUpdate bool
	}{
		{name: "equal", path: same, got: "line 1\nline 2\n"},
		{name: "different", path: same, got: "line 1\nline two\n", wantError: `line two`},
		{name: "missing", path: filepath.Join(dir, "none.golden"), got: "x", wantFatal: "run with -update to create it"},
		{name: "update writes", path: filepath.Join(dir, "new", "made.golden"), got: "made\n", wantUpdate: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			old := *update
			*update = tt.wantUpdate
			defer func() { *update = old }()
			r := &recorder{TB: t}
			Check(r, tt.path, []byte(tt.got))
			check := func(kind string, got []string, want string) {
				switch {
				case want == "" && len(got) > 0:
					t.Errorf("Check(%s) %s = %q, want none", tt.name, kind, got)
				case want != "" && (len(got) != 1 || !strings.Contains(got[0], want)):
					t.Errorf("Check(%s) %s = %q, want one containing %q", tt.name, kind, got, want)
				}
			}
			check("errors", r.errors, tt.wantError)
			check("fatals", r.fatals, tt.wantFatal)
			if tt.wantUpdate {
				if b, err := os.ReadFile(tt.path); err != nil || string(b) != tt.got {
					t.Errorf("Check(%s) with -update wrote %q, %v; want %q", tt.name, b, err, tt.got)
				}
			}
		})
	}
}
