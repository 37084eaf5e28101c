package engine

import (
	"bytes"
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// forbidden lists the standard packages that would let the clock, the
// operating system, the network, shared memory or a global random source
// into the deterministic core. A name ending in "/" forbids the whole tree.
var forbidden = []string{"time", "os", "os/", "net", "net/", "sync", "sync/", "math/rand", "math/rand/v2",
	"crypto/rand", "unsafe", "syscall", "runtime/cgo", "plugin"}

// thirdParty lists the only packages from outside the module and the
// standard library that the pure core may depend on, however indirectly.
// Adding one is a decision, not an accident of a new import.
var thirdParty = map[string]bool{
	"github.com/mr-tron/base58":        true, // the text form of a peer id (crypto.PeerID.String)
	"github.com/mr-tron/base58/base58": true,
	// ed25519 signature checks by the ZIP-215 rules, single and batched
	// (crypto.Verify, crypto.BatchVerifier), and the curve arithmetic
	// under them.
	"github.com/hdevalence/ed25519consensus": true,
	"filippo.io/edwards25519":                true,
	"filippo.io/edwards25519/field":          true,
}

// allowedImport lists the only forbidden standard imports a third-party
// package of the core may make, each for a reason that cannot reach a
// result: ed25519consensus draws the random coefficients of a batch
// check from crypto/rand (they decide nothing but the 2^-128 chance that
// a batch with a bad signature passes; a batch passes exactly when every
// single check does), and edwards25519 builds its constant tables of
// multiples of the base point once, under a sync.Once.
var allowedImport = map[string]string{
	"github.com/hdevalence/ed25519consensus": "crypto/rand",
	"filippo.io/edwards25519":                "sync",
}

const module = "github.com/boardmesh/boardmesh/"

// pureRoots are the deterministic core: the engine with its games, and
// the protocol. (engine/enginetest is test support and may use testing.)
var pureRoots = []string{"./", "./dominion", "./dragonslair", "./infinitecity", "./serpentcity", "./games", "../lockstep"}

type listedPkg struct {
	ImportPath string
	Dir        string
	Standard   bool
	Imports    []string
	GoFiles    []string
}

// depsOf lists every package the roots need to build, transitively, with
// go list -deps (test files not included: tests may use the clock).
func depsOf(t *testing.T, roots []string) []listedPkg {
	t.Helper()
	args := append([]string{"list", "-deps", "-json=ImportPath,Dir,Standard,Imports,GoFiles"}, roots...)
	cmd := exec.Command("go", args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, stderr.String())
	}
	var pkgs []listedPkg
	dec := json.NewDecoder(bytes.NewReader(out))
	for dec.More() {
		var p listedPkg
		if err := dec.Decode(&p); err != nil {
			t.Fatal(err)
		}
		pkgs = append(pkgs, p)
	}
	return pkgs
}

func isForbidden(p string) bool {
	for _, bad := range forbidden {
		if p == bad || strings.HasSuffix(bad, "/") && strings.HasPrefix(p, bad) {
			return true
		}
	}
	return false
}

// impurities returns one line per violation in the transitive build of
// roots: a libp2p package anywhere in it; a third-party package not in
// thirdParty; a forbidden standard import by any package that is not
// itself standard (the standard library's own crypto/sha256 may use
// sync inside, our code and our dependencies may not); a go statement in
// a package of the module; and, for the engine (engineOnly), any package
// outside the standard library and engine itself.
func impurities(t *testing.T, roots []string, engineOnly bool) []string {
	var bad []string
	for _, p := range depsOf(t, roots) {
		if p.Standard {
			continue
		}
		ours := strings.HasPrefix(p.ImportPath, module)
		if strings.Contains(p.ImportPath, "libp2p") {
			bad = append(bad, p.ImportPath+" is a libp2p package")
		} else if !ours && !thirdParty[p.ImportPath] {
			bad = append(bad, p.ImportPath+" is a third-party package the pure core may not depend on")
		}
		if engineOnly && !strings.HasPrefix(p.ImportPath, module+"engine") {
			bad = append(bad, p.ImportPath+": the engine may depend only on the standard library and itself")
		}
		for _, imp := range p.Imports {
			if isForbidden(imp) && !(!ours && allowedImport[p.ImportPath] == imp) {
				bad = append(bad, p.ImportPath+" imports "+imp)
			}
		}
		if !ours {
			continue
		}
		for _, f := range p.GoFiles {
			path := filepath.Join(p.Dir, f)
			fset := token.NewFileSet()
			file, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
			if err != nil {
				bad = append(bad, path+": "+err.Error())
				continue
			}
			ast.Inspect(file, func(n ast.Node) bool {
				if g, ok := n.(*ast.GoStmt); ok {
					bad = append(bad, "goroutine at "+fset.Position(g.Pos()).String())
				}
				return true
			})
		}
	}
	return bad
}

// TestDeterministicCoreIsPure checks the whole transitive build of
// engine/ and lockstep/ (their own files and everything they import):
// see impurities for the rules.
func TestDeterministicCoreIsPure(t *testing.T) {
	for _, v := range impurities(t, pureRoots[:len(pureRoots)-1], true) {
		t.Errorf("engine: %s", v)
	}
	for _, v := range impurities(t, []string{"../lockstep"}, false) {
		t.Errorf("lockstep: %s", v)
	}
	for _, v := range cardImpurities(t, []string{"../lockstep/deal"}) {
		t.Errorf("lockstep/deal: %s", v)
	}
	// A secret table's card source stands on deal: the same exceptions.
	for _, v := range cardImpurities(t, []string{"../lockstep/cardsource"}) {
		t.Errorf("lockstep/cardsource: %s", v)
	}
	// Every exception must still be needed, so the list cannot silently
	// grow stale and then cover something new.
	all := strings.Join(impurities(t, []string{"../lockstep/deal"}, false), "\n")
	for _, ex := range cardExceptions {
		if !strings.Contains(all, ex) {
			t.Errorf("lockstep/deal: the exception %q is no longer needed; remove it", ex)
		}
	}
}

// cardExceptions are the findings the hidden-card protocol (lockstep/deal)
// may have, and only it: the reviewed mental-poker library it stands on,
// crypto/mentalpoker over go.dedis.ch/kyber/v4 v4.0.2 (the issue pins it)
// and the golang.org/x/crypto hashes kyber uses. None of them brings in
// the clock or shared randomness: mentalpoker hands kyber the caller's
// io.Reader for every random pick (crypto/rand is kyber's fallback when no
// stream is given, which mentalpoker never does); its sync is a OnceValue
// that builds a constant table; x/sys/cpu reads the CPU's features (which
// code path, not which result); sha3's unsafe is its word-level Keccak;
// ristretto255 (github.com/gtank/ristretto255, the group) is pure
// arithmetic on filippo.io/edwards25519, which the core's signature
// checks use already.
// deal's own files and every other package of the module stay under the
// full rules.
var cardExceptions = []string{
	"go.dedis.ch/kyber/v4 is a third-party package",
	"go.dedis.ch/kyber/v4/compatible is a third-party package",
	"go.dedis.ch/kyber/v4/compatible/compatiblemod is a third-party package",
	"go.dedis.ch/kyber/v4/group/internal/marshalling is a third-party package",
	"go.dedis.ch/kyber/v4/group/mod is a third-party package",
	"go.dedis.ch/kyber/v4/group/edwards25519 is a third-party package",
	"go.dedis.ch/kyber/v4/proof is a third-party package",
	"go.dedis.ch/kyber/v4/shuffle is a third-party package",
	"go.dedis.ch/kyber/v4/util/random is a third-party package",
	"go.dedis.ch/kyber/v4/xof/blake2xb is a third-party package",
	"go.dedis.ch/fixbuf is a third-party package",
	"golang.org/x/crypto/blake2b is a third-party package",
	"golang.org/x/crypto/sha3 is a third-party package",
	"golang.org/x/sys/cpu is a third-party package",
	"github.com/gtank/ristretto255 is a third-party package",
	"go.dedis.ch/kyber/v4/compatible imports crypto/rand",
	"go.dedis.ch/kyber/v4/util/random imports crypto/rand",
	"golang.org/x/sys/cpu imports os",
	"golang.org/x/sys/cpu imports unsafe",
	"golang.org/x/crypto/sha3 imports unsafe",
	"github.com/boardmesh/boardmesh/crypto/mentalpoker imports sync",
}

// cardImpurities is impurities without the findings in cardExceptions.
func cardImpurities(t *testing.T, roots []string) []string {
	var bad []string
	for _, v := range impurities(t, roots, false) {
		allowed := false
		for _, ex := range cardExceptions {
			if v == ex || strings.HasPrefix(v, ex+" ") {
				allowed = true
			}
		}
		if !allowed {
			bad = append(bad, v)
		}
	}
	return bad
}

// TestPurityCheckCanFail runs the same check on packages that are not
// pure (the libp2p runner, and the engine's own test support, which uses
// testing), so a check that silently stopped seeing anything would fail
// here.
func TestPurityCheckCanFail(t *testing.T) {
	got := strings.Join(impurities(t, []string{"../p2p"}, false), "\n")
	for _, want := range []string{"github.com/libp2p/go-libp2p/core/peer is a libp2p package",
		"github.com/boardmesh/boardmesh/p2p imports time", "github.com/boardmesh/boardmesh/p2p imports os",
		"goroutine at "} {
		if !strings.Contains(got, want) {
			t.Errorf("the purity check does not report %q for p2p; it reports:\n%.2000s", want, got)
		}
	}
	// The card protocol's exceptions cover kyber, not the rest: p2p's
	// clock and goroutines are still found through them.
	got = strings.Join(cardImpurities(t, []string{"../p2p"}), "\n")
	for _, want := range []string{"github.com/boardmesh/boardmesh/p2p imports time", "goroutine at "} {
		if !strings.Contains(got, want) {
			t.Errorf("the card protocol's purity check does not report %q for p2p; it reports:\n%.2000s", want, got)
		}
	}
	got = strings.Join(impurities(t, []string{"../cli"}, true), "\n")
	if !strings.Contains(got, "the engine may depend only on the standard library and itself") {
		t.Errorf("the engine-only rule does not fire for cli:\n%.2000s", got)
	}
}
