package engine

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// forbidden lists imports that would let the clock, the operating system,
// the network or a global random source into the deterministic core.
var forbidden = []string{"time", "os", "os/exec", "net", "math/rand", "math/rand/v2", "crypto/rand", "sync", "unsafe", "syscall"}

// TestDeterministicCoreIsPure checks every non-test Go file of engine/ and
// lockstep/: no forbidden import, no goroutine, and (for engine/) nothing
// outside the standard library but engine itself.
func TestDeterministicCoreIsPure(t *testing.T) {
	for _, root := range []string{".", "../lockstep"} {
		err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				if root != "." && path == root {
					return filepath.SkipDir // lockstep may not exist yet in a partial checkout
				}
				return err
			}
			if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
				return nil
			}
			// docs/rules embeds files; enginetest is test support that may use testing.
			checkPureFile(t, path, root == ".")
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}

func checkPureFile(t *testing.T, path string, engineOnly bool) {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
	if err != nil {
		t.Errorf("%s: %v", path, err)
		return
	}
	for _, imp := range f.Imports {
		p, _ := strconv.Unquote(imp.Path.Value)
		for _, bad := range forbidden {
			if p == bad || strings.HasPrefix(p, bad+"/") && bad == "net" {
				t.Errorf("%s imports %q: the deterministic core may not use it", path, p)
			}
		}
		if engineOnly {
			firstElem := strings.Split(p, "/")[0]
			if strings.Contains(firstElem, ".") && !strings.HasPrefix(p, "github.com/boardmesh/boardmesh/engine") {
				t.Errorf("%s imports %q: engine may import only the standard library and itself", path, p)
			}
		}
	}
	ast.Inspect(f, func(n ast.Node) bool {
		if g, ok := n.(*ast.GoStmt); ok {
			t.Errorf("%s: goroutine at %s: the deterministic core is single-threaded", path, fset.Position(g.Pos()))
		}
		return true
	})
}
