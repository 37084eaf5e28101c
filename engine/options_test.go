package engine

import (
	"fmt"
	"strings"
	"testing"
)

var testSpecs = []OptionSpec{
	{Name: "rounds", Kind: OptionInt, Default: "10", Min: 1, Max: 60, Help: "rounds"},
	{Name: "short", Kind: OptionBool, Default: "false", Help: "short game"},
	{Name: "deck", Kind: OptionChoice, Default: "full", Choices: []string{"full", "free"}, Help: "deck"},
}

func TestResolveOptionsDefaultsAndOrder(t *testing.T) {
	given, err := ParseOptions([]string{"short=1,deck=free"})
	if err != nil {
		t.Fatal(err)
	}
	got, err := ResolveOptions(testSpecs, given)
	if err != nil {
		t.Fatal(err)
	}
	if s := got.String(); s != "deck=free,rounds=10,short=true" {
		t.Fatalf("resolved = %s", s)
	}
	if got.Int("rounds") != 10 || !got.Bool("short") {
		t.Fatal("typed getters disagree with resolved values")
	}
}

func TestResolveOptionsErrorsSayWhatIsAllowed(t *testing.T) {
	cases := []struct{ in, want string }{
		{"colour=red", "options are: rounds, short, deck"},
		{"rounds=0", "a whole number from 1 to 60"},
		{"rounds=x", "a whole number from 1 to 60"},
		{"deck=huge", "one of full, free"},
		{"short=maybe", "true or false"},
		{"rounds=3,rounds=4", "given twice"},
	}
	for _, c := range cases {
		given, err := ParseOptions([]string{c.in})
		if err == nil {
			_, err = ResolveOptions(testSpecs, given)
		}
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want it to mention %q", c.in, err, c.want)
		}
	}
	if _, err := ParseOptions([]string{"novalue"}); err == nil {
		t.Error("option without = accepted")
	}
}

// TestOptionLimits: one value over engine.MaxOptionValue, or options over
// MaxOptionsSize together, are refused with the limit in words; a value
// at the limit passes (the wire carries as much, see lockstep).
func TestOptionLimits(t *testing.T) {
	specs := []OptionSpec{{Name: "rules", Kind: OptionText}, {Name: "more", Kind: OptionText}}
	if _, err := ResolveOptions(specs, Options{{Name: "rules", Value: strings.Repeat("x", MaxOptionValue)}}); err != nil {
		t.Fatalf("value at the limit: %v", err)
	}
	_, err := ResolveOptions(specs, Options{{Name: "rules", Value: strings.Repeat("x", MaxOptionValue+1)}})
	if err == nil || !strings.Contains(err.Error(), "at most 32 KiB") {
		t.Fatalf("value over the limit: %v", err)
	}
	many := make([]OptionSpec, 8)
	var given Options
	for i := range many {
		many[i] = OptionSpec{Name: fmt.Sprintf("o%d", i), Kind: OptionText}
		given = append(given, Option{Name: many[i].Name, Value: strings.Repeat("y", MaxOptionValue)})
	}
	if _, err := ResolveOptions(many, given); err == nil || !strings.Contains(err.Error(), "at most 64 KiB") {
		t.Fatalf("options over the total limit: %v", err)
	}
}
