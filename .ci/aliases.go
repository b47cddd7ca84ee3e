//go:build ignore

// Command aliases lists the exported declarations of public packages that
// alias a name of an internal package: `type X = internal.Y` (generic too)
// and `var X = internal.Y` or `const X = internal.Y`, whatever the import's
// local name (an unexported alias is no API). A public package is one whose import path has no "internal"
// element; test files are not read. It reads the directories given as
// arguments, prints one line per alias ("file:line: ..."), and exits 1
// when it found any. It is run by .ci/api-check.
package main

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

func main() {
	found := 0
	for _, dir := range os.Args[1:] {
		n, err := checkDir(dir)
		if err != nil {
			fmt.Fprintln(os.Stderr, "aliases:", err)
			os.Exit(2)
		}
		found += n
	}
	if found > 0 {
		os.Exit(1)
	}
}

// internalPath reports whether an import path names an internal package.
func internalPath(p string) bool {
	return p == "internal" || strings.HasPrefix(p, "internal/") || strings.HasSuffix(p, "/internal") || strings.Contains(p, "/internal/")
}

// checkDir prints the aliases of internal names in the non-test Go files
// of dir and returns how many it found.
func checkDir(dir string) (int, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		return 0, err
	}
	found := 0
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
		if err != nil {
			return found, err
		}
		internal := map[string]string{} // local name -> import path
		for _, imp := range f.Imports {
			p, err := strconv.Unquote(imp.Path.Value)
			if err != nil || !internalPath(p) {
				continue
			}
			local := p[strings.LastIndex(p, "/")+1:]
			if imp.Name != nil {
				local = imp.Name.Name
			}
			internal[local] = p
		}
		if len(internal) == 0 {
			continue
		}
		// of returns the internal package and name x refers to, if it is
		// a qualified name of an internal package (instantiated or not).
		of := func(x ast.Expr) (string, bool) {
			for {
				switch e := x.(type) {
				case *ast.ParenExpr:
					x = e.X
					continue
				case *ast.IndexExpr:
					x = e.X
					continue
				case *ast.IndexListExpr:
					x = e.X
					continue
				case *ast.SelectorExpr:
					if id, ok := e.X.(*ast.Ident); ok {
						if p, ok := internal[id.Name]; ok {
							return p + "." + e.Sel.Name, true
						}
					}
				}
				return "", false
			}
		}
		for _, d := range f.Decls {
			g, ok := d.(*ast.GenDecl)
			if !ok {
				continue
			}
			for _, s := range g.Specs {
				switch s := s.(type) {
				case *ast.TypeSpec:
					if s.Assign.IsValid() && s.Name.IsExported() {
						if target, ok := of(s.Type); ok {
							fmt.Printf("%s: type %s = %s: a type alias of an internal name\n", fset.Position(s.Pos()), s.Name.Name, target)
							found++
						}
					}
				case *ast.ValueSpec:
					for i, v := range s.Values {
						if target, ok := of(v); ok && i < len(s.Names) && s.Names[i].IsExported() {
							fmt.Printf("%s: %s %s = %s: an alias of an internal name\n", fset.Position(s.Names[i].Pos()), g.Tok, s.Names[i].Name, target)
							found++
						}
					}
				}
			}
		}
	}
	return found, nil
}
