package games

import (
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"testing"

	"github.com/boardmesh/boardmesh/engine"
)

func TestRegistryIsComplete(t *testing.T) {
	all := All()
	if len(all) == 0 {
		t.Fatal("no games registered")
	}
	seen := map[string]bool{}
	for _, g := range all {
		if g.Name == "" || g.Title == "" || g.Version == "" {
			t.Errorf("game %+v lacks a name, title or version", g.Name)
		}
		// One form for every rules version: NAME/N, which says whose it is
		// in a refusal message.
		if !strings.HasPrefix(g.Version, g.Name+"/") || len(g.Version) == len(g.Name)+1 {
			t.Errorf("%s: rules version %q, want %s/N", g.Name, g.Version, g.Name)
		}
		if seen[g.Name] {
			t.Errorf("game %s registered twice", g.Name)
		}
		seen[g.Name] = true
		if len(g.Bots) < 2 {
			t.Errorf("%s has %d bot kinds; every game has at least random and one strategy bot", g.Name, len(g.Bots))
		}
		if _, err := g.Bot("random"); err != nil {
			t.Errorf("%s: %v", g.Name, err)
		}
		if g.DefaultPlayers < g.MinPlayers || g.DefaultPlayers > g.MaxPlayers {
			t.Errorf("%s: default player count %d outside %d..%d", g.Name, g.DefaultPlayers, g.MinPlayers, g.MaxPlayers)
		}
		for n := g.MinPlayers; n <= g.MaxPlayers; n++ {
			if _, err := g.Setup(n, nil); err != nil {
				t.Errorf("%s with %d players and default options: %v", g.Name, n, err)
			}
		}
		if _, err := g.Setup(g.MaxPlayers+1, nil); err == nil {
			t.Errorf("%s accepted %d players", g.Name, g.MaxPlayers+1)
		}
	}
	if Default().Name != "dragonslair" {
		t.Errorf("default game is %s, want dragonslair", Default().Name)
	}
}

func TestLookupUnknownListsGames(t *testing.T) {
	_, err := Lookup("chess")
	if err == nil || !strings.Contains(err.Error(), "chess") || !strings.Contains(err.Error(), All()[0].Name) {
		t.Fatalf("Lookup(chess) = %v", err)
	}
}

// TestHashesAgreeAcrossArchitectures plays one seeded game of every game
// natively and in a GOARCH=386 build of the same code, and compares the final
// state hashes. A 32-bit int, an unordered map walk or a float in the rules
// would make them differ and split a table of mixed machines.
func TestHashesAgreeAcrossArchitectures(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: builds the engine for GOARCH=386 (run without -short)")
	}
	if runtime.GOARCH == "386" {
		t.Skip("already running as 386; the amd64 side runs this test")
	}
	native, err := finalHashes()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("go", "test", "-count=1", "-v", ".")
	cmd.Env = append(os.Environ(), "GOARCH=386", "BOARDMESH_PRINT_HASHES=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("GOARCH=386 run failed: %v\n%s", err, out)
	}
	for name, h := range native {
		if !strings.Contains(string(out), name+" "+h) {
			t.Errorf("%s: native final hash %s not reproduced by the 386 build:\n%s", name, h, out)
		}
	}
}

// TestMain doubles as the 386 half of TestHashesAgreeAcrossArchitectures:
// run with BOARDMESH_PRINT_HASHES set, it prints the final hashes for the
// parent process to compare and runs no test.
func TestMain(m *testing.M) {
	if os.Getenv("BOARDMESH_PRINT_HASHES") != "" {
		hashes, err := finalHashes()
		if err != nil {
			fmt.Println(err)
			os.Exit(1)
		}
		for name, h := range hashes {
			fmt.Println(name, h)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func finalHashes() (map[string]string, error) {
	out := map[string]string{}
	for _, g := range All() {
		for n := g.MinPlayers; n <= g.MaxPlayers; n++ {
			s, err := g.Setup(n, nil)
			if err != nil {
				return nil, err
			}
			bots := make([]engine.Bot, n)
			for i := range bots {
				bots[i] = g.Bots[i%len(g.Bots)].New()
			}
			seed := []byte("arch/" + g.Name)
			if _, err := engine.PlayOut(s, bots, engine.SeededChance{Seed: seed}, engine.NewRand(seed), 1_000_000, false, nil); err != nil {
				return nil, fmt.Errorf("%s, %d players: %w", g.Name, n, err)
			}
			h := engine.Hash(s)
			out[fmt.Sprintf("%s/%dp", g.Name, n)] = hex.EncodeToString(h[:])
		}
	}
	return out, nil
}
