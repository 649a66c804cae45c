package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"
)

// TestCommandHoldsOnlyWiring keeps the command line a thin client of the
// runner: package main declares no agent (no Execute or ValidateOutput
// method, no import of an agent implementation), no tool (no tool.Spec, no
// tool.Define), and no projection of
// events (it reads no event body, and decodes events only to print the
// envelope `ledger show` lists). Such code belongs to the package that owns
// the concept, where a Go program can use it too.
func TestCommandHoldsOnlyWiring(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	for _, file := range files {
		if strings.HasSuffix(file, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, file, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range f.Imports {
			// Agents are made by the runner from a playbook, not here.
			if p := strings.Trim(imp.Path.Value, `"`); strings.HasPrefix(p, "github.com/sanadhq/sanad/agent/") {
				t.Errorf("%s: imports %s: package main does not make agents; the runner does", fset.Position(imp.Pos()), p)
			}
		}
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.FuncDecl:
				if n.Recv != nil && (n.Name.Name == "Execute" || n.Name.Name == "ValidateOutput") {
					t.Errorf("%s: method %s: an agent implementation belongs in agent/ or a playbook, not in package main", fset.Position(n.Pos()), n.Name.Name)
				}
			case *ast.CompositeLit:
				if sel, ok := n.Type.(*ast.SelectorExpr); ok && isPkg(sel.X, "tool") && sel.Sel.Name == "Spec" {
					t.Errorf("%s: tool.Spec{…}: a tool implementation belongs in tool/builtin or a playbook, not in package main", fset.Position(n.Pos()))
				}
			case *ast.CallExpr:
				fn := n.Fun
				if ix, ok := fn.(*ast.IndexListExpr); ok {
					fn = ix.X
				}
				if sel, ok := fn.(*ast.SelectorExpr); ok && isPkg(sel.X, "tool") && (sel.Sel.Name == "Define" || sel.Sel.Name == "MustDefine" || sel.Sel.Name == "NewRegistry") {
					t.Errorf("%s: tool.%s: a tool implementation belongs in tool/builtin or a playbook, not in package main", fset.Position(n.Pos()), sel.Sel.Name)
				}
			case *ast.SelectorExpr:
				pkg, ok := n.X.(*ast.Ident)
				name := n.Sel.Name
				switch {
				case name == "Body" || name == "BodyField" || name == "BodyString" || strings.HasSuffix(name, "Body") && ok && pkg.Name != "ledger":
					t.Errorf("%s: %s: reading event bodies is a projection; it belongs in the package that owns the events", fset.Position(n.Pos()), name)
				case ok && pkg.Name == "ledger" && name == "Decode" && file != "ledger.go":
					t.Errorf("%s: ledger.Decode: decoding events is a projection; it belongs in runner or the package that owns the events", fset.Position(n.Pos()))
				}
			}
			return true
		})
	}
}

func isPkg(x ast.Expr, name string) bool {
	id, ok := x.(*ast.Ident)
	return ok && id.Name == name
}
