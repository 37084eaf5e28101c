package lockstep

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestPureCore fails if a non-test file of lockstep or engine imports the
// network, the operating system, the clock or a global random source, or
// starts a goroutine: the protocol must be a pure state machine.
func TestPureCore(t *testing.T) {
	forbidden := map[string]bool{"net": true, "os": true, "time": true, "math/rand": true, "math/rand/v2": true,
		"crypto/rand": true, "syscall": true, "os/exec": true}
	var files []string
	for _, dir := range []string{".", "../engine"} {
		err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if !d.IsDir() && strings.HasSuffix(path, ".go") && !strings.HasSuffix(path, "_test.go") &&
				!strings.Contains(path, "enginetest") {
				files = append(files, path)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if len(files) < 10 {
		t.Fatalf("found only %d files; is the walk wrong?", len(files))
	}
	for _, path := range files {
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			if forbidden[p] || strings.HasPrefix(p, "net/") {
				t.Errorf("%s imports %s", path, p)
			}
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if g, ok := n.(*ast.GoStmt); ok {
				t.Errorf("%s: go statement at %s", path, fset.Position(g.Pos()))
			}
			return true
		})
	}
}
