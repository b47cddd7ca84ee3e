package testserver

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// NPMInstall is how the third-party servers the tests start are
// installed (from the repository's root).
const NPMInstall = "cd mcpbridge/testdata/npm && npm ci --no-audit --no-fund"

// NPMBin returns the absolute path of an installed npm server program,
// dir being mcpbridge/testdata/npm relative to the test's directory. When
// it is missing the test is skipped, or fails when CI is "true" or
// MCPBRIDGE_REQUIRE_NPM is "1".
func NPMBin(t testing.TB, dir, name string) string {
	t.Helper()
	p, err := filepath.Abs(filepath.Join(dir, "node_modules", ".bin", name))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(p); err != nil {
		msg := fmt.Sprintf("npm server %s not installed (%v); install with: %s", name, err, NPMInstall)
		if os.Getenv("CI") == "true" || os.Getenv("MCPBRIDGE_REQUIRE_NPM") == "1" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	if _, err := exec.LookPath("node"); err != nil {
		t.Fatalf("node not found for %s: %v", name, err)
	}
	return p
}
