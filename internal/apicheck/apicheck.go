// Package apicheck finds, in the module's public packages, the names that
// are only another name for an internal type or value: a type alias of an
// internal type, or a package-level var or const that is an internal
// package's value as it is (var ErrX = internalpkg.ErrY). go doc shows
// neither the fields nor the contract of such a name, and every change
// inside the internal package becomes an API change unseen. A public name
// is defined where it is public, and converted at the boundary.
//
// Its test runs the check over the module, so CI fails on a new one.
package apicheck

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// Finding is one alias of an internal name.
type Finding struct {
	// Pos is the declaration's file:line:col.
	Pos string
	// Dir is the package's directory, slash-separated, relative to the
	// root given to Check; Name is the name declared.
	Dir, Name string
	// What says which kind of alias: "type alias", "var" or "const".
	What string
}

func (f Finding) String() string {
	return fmt.Sprintf("%s: %s %s is another name for an internal one", f.Pos, f.What, f.Name)
}

// Check walks the Go packages under root and returns the findings in the
// non-test files of every package outside an internal directory (testdata
// and directories whose names start with "." or "_" are skipped), sorted by
// position.
func Check(root string) ([]Finding, error) {
	var out []Finding
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			name := d.Name()
			if path != root && (name == "internal" || name == "testdata" || name == "node_modules" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, filepath.Dir(path))
		if err != nil {
			return err
		}
		found, err := checkFile(path, src)
		if err != nil {
			return err
		}
		for i := range found {
			found[i].Dir = filepath.ToSlash(rel)
		}
		out = append(out, found...)
		return nil
	})
	slices.SortFunc(out, func(a, b Finding) int { return strings.Compare(a.Pos, b.Pos) })
	return out, err
}

// checkFile returns the findings of one file.
func checkFile(path string, src []byte) ([]Finding, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, src, parser.SkipObjectResolution)
	if err != nil {
		return nil, err
	}
	internal := map[string]bool{} // the file's names of internal packages
	for _, im := range f.Imports {
		p, err := strconv.Unquote(im.Path.Value)
		if err != nil {
			return nil, err
		}
		if !isInternal(p) {
			continue
		}
		name := p[strings.LastIndex(p, "/")+1:]
		if im.Name != nil {
			name = im.Name.Name
		}
		internal[name] = true
	}
	if len(internal) == 0 {
		return nil, nil
	}
	mentions := func(e ast.Expr) bool {
		found := false
		ast.Inspect(e, func(n ast.Node) bool {
			if s, ok := n.(*ast.SelectorExpr); ok {
				if id, ok := s.X.(*ast.Ident); ok && internal[id.Name] {
					found = true
				}
			}
			return !found
		})
		return found
	}
	var out []Finding
	add := func(pos token.Pos, what, name string) {
		out = append(out, Finding{Pos: fset.Position(pos).String(), Name: name, What: what})
	}
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok {
			continue
		}
		for _, s := range g.Specs {
			switch s := s.(type) {
			case *ast.TypeSpec:
				if s.Assign.IsValid() && mentions(s.Type) {
					add(s.Pos(), "type alias", s.Name.Name)
				}
			case *ast.ValueSpec:
				for i, v := range s.Values {
					if sel, ok := ast.Unparen(v).(*ast.SelectorExpr); ok && i < len(s.Names) && mentions(sel) {
						add(s.Names[i].Pos(), g.Tok.String(), s.Names[i].Name)
					}
				}
			}
		}
	}
	return out, nil
}

// isInternal reports whether import path p is an internal package.
func isInternal(p string) bool {
	return strings.HasPrefix(p, "internal/") || strings.Contains(p, "/internal/") || strings.HasSuffix(p, "/internal") || p == "internal"
}
