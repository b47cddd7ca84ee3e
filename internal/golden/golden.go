// Package golden compares a test's output with a file under testdata and,
// when the test binary runs with -update, rewrites the file instead.
//
// It owns the -update flag, so the tests of one package (internal and
// external test files alike) share it without defining it twice:
//
//	golden.Check(t, filepath.Join("testdata", "status", "all.golden"), got)
//
// Run "go test -run TestX -update" to rewrite, then review the diff.
package golden

import (
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite golden files under testdata instead of comparing with them")

// Update reports whether the test binary runs with -update.
func Update() bool { return *update }

// Check compares got with the file at path and reports a difference with
// t.Errorf, as a diff (-want +got). With -update it first writes got to
// path, creating the directory. A file that does not exist fails the test
// with t.Fatalf and a hint to run with -update.
func Check(t testing.TB, path string, got []byte) {
	t.Helper()
	if Update() {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatalf("golden: %v", err)
			return
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatalf("golden: %v", err)
			return
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("golden: %v (run with -update to create it)", err)
		return
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("%s mismatch (-want +got):\n%s", path, diff)
	}
}
