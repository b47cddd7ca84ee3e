package roots

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func TestCheck(t *testing.T) {
	for _, ok := range []string{"file:///home/ada/project", "file:///C:/work", "file://host/share/x", "file:///a%20b"} {
		if err := Check(ok); err != nil {
			t.Errorf("Check(%q) = %v, want nil", ok, err)
		}
	}
	for _, bad := range []string{"", "https://example.com/", "file:relative", "file:///x?q=1", "file:///x#f", "file:///a\nb", "/home/ada", "file:///\xff"} {
		if err := Check(bad); !errors.Is(err, ErrBadRoot) {
			t.Errorf("Check(%q) = %v, want ErrBadRoot", bad, err)
		}
	}
}

func TestFileURI(t *testing.T) {
	dir := t.TempDir()
	got, err := FileURI(filepath.Join(dir, "a b", "..", "c"))
	want := "file://" + filepath.ToSlash(filepath.Join(dir, "c"))
	if err != nil || (got != want && got != "file://"+filepath.ToSlash(filepath.Join(dir, "c"))) {
		t.Errorf("FileURI = %q, %v; want %q", got, err, want)
	}
	spaced, err := FileURI(filepath.Join(dir, "a b"))
	if err != nil || Check(spaced) != nil || spaced != "file://"+filepath.ToSlash(dir)+"/a%20b" {
		t.Errorf("FileURI(a b) = %q, %v", spaced, err)
	}
	wd, _ := os.Getwd()
	rel, err := FileURI(".")
	if err != nil || rel != "file://"+filepath.ToSlash(wd) {
		t.Errorf("FileURI(.) = %q, %v; want the working directory", rel, err)
	}
	if _, err := FileURI(""); !errors.Is(err, ErrBadRoot) {
		t.Errorf("FileURI(\"\") = %v, want ErrBadRoot", err)
	}
}
