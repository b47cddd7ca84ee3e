// Package roots checks the roots a host offers MCP servers (the
// directories and files a server may work in, as file: URIs) and makes
// them from paths.
//
//	uri, err := roots.FileURI("/home/ada/project") // "file:///home/ada/project"
//	err = roots.Check(uri)
package roots

import (
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
	"strings"
	"unicode"
	"unicode/utf8"
)

// ErrBadRoot is wrapped by the errors of Check and FileURI.
var ErrBadRoot = errors.New("bad root")

// Check reports why uri cannot be a root, or nil: a root is a file: URI
// with an absolute path (and no query or fragment), in valid UTF-8 without
// control characters.
func Check(uri string) error {
	if !utf8.ValidString(uri) || strings.IndexFunc(uri, unicode.IsControl) >= 0 {
		return fmt.Errorf("%w: %q has control characters or invalid UTF-8", ErrBadRoot, uri)
	}
	u, err := url.Parse(uri)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrBadRoot, err)
	}
	switch {
	case u.Scheme != "file":
		return fmt.Errorf("%w: %q is not a file: URI", ErrBadRoot, uri)
	case u.Opaque != "" || !strings.HasPrefix(u.Path, "/"):
		return fmt.Errorf("%w: %q has no absolute path", ErrBadRoot, uri)
	case u.RawQuery != "" || u.Fragment != "":
		return fmt.Errorf("%w: %q has a query or fragment", ErrBadRoot, uri)
	}
	return nil
}

// FileURI returns the file: URI of path, made absolute against the
// working directory and cleaned (on Windows, C:\x becomes file:///C:/x).
func FileURI(path string) (string, error) {
	if path == "" {
		return "", fmt.Errorf("%w: empty path", ErrBadRoot)
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", fmt.Errorf("%w: %v", ErrBadRoot, err)
	}
	p := filepath.ToSlash(abs)
	if !strings.HasPrefix(p, "/") {
		p = "/" + p
	}
	uri := (&url.URL{Scheme: "file", Path: p}).String()
	if err := Check(uri); err != nil {
		return "", err
	}
	return uri, nil
}
