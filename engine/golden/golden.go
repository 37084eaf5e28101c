package golden

import (
	"fmt"
	"os"
	"regexp"
	"testing"
)

// Vector is one golden vector: its name, then its value as the document
// prints it (lower-case hex for bytes).
type Vector [2]string

// UpdateEnv names the environment variable that turns Check into an
// update: with GOLDEN_UPDATE=1, Check rewrites every vector line the
// document has to the code's value (after a deliberate change to an
// encoding), and still fails for a vector the document lacks. One command
// regenerates every golden vector:
//
//	GOLDEN_UPDATE=1 go test -count=1 -run 'Vector' ./...
const UpdateEnv = "GOLDEN_UPDATE"

// Check fails t for each vector that the document at path lacks or
// states differently. With print set it first prints every vector in the
// document's format, to paste into it after a deliberate change; with
// GOLDEN_UPDATE=1 in the environment it rewrites the document instead
// (Update).
func Check(t testing.TB, path string, vs []Vector, print bool) {
	t.Helper()
	if print {
		for _, v := range vs {
			fmt.Printf("    %s = %s\n", v[0], v[1])
		}
	}
	if os.Getenv(UpdateEnv) == "1" {
		if err := Update(path, vs); err != nil {
			t.Fatal(err)
		}
	}
	doc, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range vs {
		m := vectorLine(v[0]).FindSubmatch(doc)
		if m == nil {
			t.Errorf("%s lacks vector %s", path, v[0])
			continue
		}
		if string(m[1]) != v[1] {
			t.Errorf("vector %s: code gives %s, %s says %s", v[0], v[1], path, m[1])
		}
	}
}

// vectorLine matches the document line of the vector named name, its
// value as the first group.
func vectorLine(name string) *regexp.Regexp {
	return regexp.MustCompile(`(?m)^    ` + regexp.QuoteMeta(name) + ` = (.+)$`)
}

// Update rewrites, in the document at path, the line of every vector of vs
// that it has to the vector's value; vectors it lacks are left for Check
// to report. The file is written only if a line changed.
func Update(path string, vs []Vector) error {
	doc, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	out := doc
	for _, v := range vs {
		line := []byte("    " + v[0] + " = " + v[1])
		re := vectorLine(v[0])
		if loc := re.FindIndex(out); loc != nil {
			out = append(append(append([]byte(nil), out[:loc[0]]...), line...), out[loc[1]:]...)
		}
	}
	if string(out) == string(doc) {
		return nil
	}
	return os.WriteFile(path, out, 0o644)
}
