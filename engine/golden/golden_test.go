package golden

import (
	"os"
	"path/filepath"
	"testing"
)

// recorder is a testing.TB that keeps what Check reports.
type recorder struct {
	testing.TB
	errs []string
}

func (r *recorder) Helper() {}
func (r *recorder) Errorf(format string, args ...any) {
	r.errs = append(r.errs, format)
}

// TestCheckFailsOnDrift: a vector that is missing, or whose value
// differs, is reported; equal ones are not.
func TestCheckFailsOnDrift(t *testing.T) {
	path := filepath.Join(t.TempDir(), "doc.md")
	doc := "Text.\n\n    a.one = 0102\n    a.two = [1 0]\n    a.three = ff\n"
	if err := os.WriteFile(path, []byte(doc), 0o600); err != nil {
		t.Fatal(err)
	}
	r := &recorder{TB: t}
	Check(r, path, []Vector{{"a.one", "0102"}, {"a.two", "[1 0]"}}, false)
	if len(r.errs) != 0 {
		t.Fatalf("equal vectors reported: %v", r.errs)
	}
	Check(r, path, []Vector{{"a.three", "fe"}, {"a.four", "00"}, {"a", "0102"}}, false)
	if len(r.errs) != 3 {
		t.Fatalf("want 3 reports (a differing value, a missing name, a prefix of a name), got %d: %v", len(r.errs), r.errs)
	}
}

// TestUpdateRewritesVectors: Update rewrites a stale value in place, leaves
// the rest of the document alone and adds no missing vector; Check then
// passes for what the document has.
func TestUpdateRewritesVectors(t *testing.T) {
	path := filepath.Join(t.TempDir(), "doc.md")
	doc := "Text.\n\n    a.one = 0102\n    a.two = ff\nMore text.\n"
	if err := os.WriteFile(path, []byte(doc), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := Update(path, []Vector{{"a.two", "fe"}, {"a.three", "00"}}); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if want := "Text.\n\n    a.one = 0102\n    a.two = fe\nMore text.\n"; string(got) != want {
		t.Fatalf("after Update the document is %q, want %q", got, want)
	}
	r := &recorder{TB: t}
	Check(r, path, []Vector{{"a.one", "0102"}, {"a.two", "fe"}}, false)
	if len(r.errs) != 0 {
		t.Fatalf("the updated vectors are reported: %v", r.errs)
	}
}
