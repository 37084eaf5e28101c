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

// Check fails t for each vector that the document at path lacks or
// states differently. With print set it first prints every vector in the
// document's format, to paste into it after a deliberate change.
func Check(t testing.TB, path string, vs []Vector, print bool) {
	t.Helper()
	if print {
		for _, v := range vs {
			fmt.Printf("    %s = %s\n", v[0], v[1])
		}
	}
	doc, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range vs {
		m := regexp.MustCompile(`(?m)^    ` + regexp.QuoteMeta(v[0]) + ` = (.+)$`).FindSubmatch(doc)
		if m == nil {
			t.Errorf("%s lacks vector %s", path, v[0])
			continue
		}
		if string(m[1]) != v[1] {
			t.Errorf("vector %s: code gives %s, %s says %s", v[0], v[1], path, m[1])
		}
	}
}
