package infinitecity

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"
)

var ansi = regexp.MustCompile("\x1b\\[[0-9;]*m")

func checkWidth(t *testing.T, out string, width int) {
	t.Helper()
	for _, l := range strings.Split(out, "\n") {
		if n := len(ansi.ReplaceAllString(l, "")); n > width {
			t.Fatalf("line of %d columns in a %d-column view: %q", n, width, l)
		}
	}
}

func TestRenderSmallCityWithFullNames(t *testing.T) {
	s := table(t, 2)
	s.put(t, 0, 0, "Construction Site", 1, 0)
	s.put(t, 1, 0, "Security Guardpost", 1, 2)
	s.put(t, 0, 1, "")
	s.give(t, 0, "Library")
	s.give(t, 1, "Embassy")
	for _, color := range []bool{false, true} {
		out := s.View(0).Render(80, color)
		checkWidth(t, out, 80)
		plain := ansi.ReplaceAllString(out, "")
		for _, want := range []string{"Construction", "Site", "Security", "Guardpost", "(face down)", "Your hand:",
			"Library: Look at the top 5", "seat 1 (you)", "seat 1 lays a tile"} {
			if !strings.Contains(plain, want) {
				t.Fatalf("view (colour %v) lacks %q:\n%s", color, want, out)
			}
		}
		if strings.Contains(out, "Embassy") {
			t.Fatalf("seat 0 sees seat 1's hand:\n%s", out)
		}
		// Markers show the seat numbers counted from 1, as the players know
		// them: the first seat's in red, the second's (two of them) in blue.
		if got := strings.Contains(out, "\x1b[31m1\x1b[0m"); got != color {
			t.Fatalf("colour %v: the first seat's marker coloured red: %v\n%s", color, got, out)
		}
		if color && !strings.Contains(out, "\x1b[34m22\x1b[0m") {
			t.Fatalf("the second seat's two markers are not shown in blue:\n%s", out)
		}
		if !color && !strings.Contains(out, "|1 22 ") {
			t.Fatalf("the Guardpost's markers are not shown as 1 22:\n%s", out)
		}
	}
	// Squares where a tile may go are marked.
	if out := s.View(0).Render(80, false); !strings.Contains(out, "      .") {
		t.Fatalf("no free square marked:\n%s", out)
	}
}

func TestRenderFullCityCompactly(t *testing.T) {
	s := fullCity(t)
	valid(t, s)
	for _, width := range []int{80, 120, 150} {
		out := s.View(-1).Render(width, true)
		checkWidth(t, out, width)
		if strings.Contains(out, "|Construction") {
			t.Fatalf("at %d columns 14 wide squares do not fit, but full names are drawn", width)
		}
		for _, want := range []string{"PWR", "HSG", "Tiles on the table:", "PWR Power Station (+1, rings)"} {
			if !strings.Contains(out, want) {
				t.Fatalf("compact view at %d columns lacks %q:\n%s", width, want, out)
			}
		}
		if strings.Contains(out, "Your hand") {
			t.Fatalf("a spectator's view shows a hand")
		}
	}
	// At 40 columns, 14 columns of squares do not fit even compactly: the
	// grid comes in bands, each with its own x coordinates.
	out := s.View(-1).Render(40, false)
	checkWidth(t, out, 40)
	first := regexp.MustCompile(`(?m)^\s+-1\s+0\s+1\s+2\s+3\s+4\s+5\s+6\s+7\s*$`)
	second := regexp.MustCompile(`(?m)^\s+8\s+9\s+10\s+11\s+12\s*$`)
	if !first.MatchString(out) || !second.MatchString(out) {
		t.Fatalf("at 40 columns the grid is not cut into two bands with coordinates:\n%s", out)
	}
	wide := s.View(-1).Render(200, false)
	checkWidth(t, wide, 200)
	if !strings.Contains(wide, "|Construction") || strings.Contains(wide, "Tiles on the table:") {
		t.Fatalf("at 200 columns the full names should fit:\n%s", wide)
	}
}

func TestViewHidesOtherHandsAndTheLibrary(t *testing.T) {
	s := table(t, 3)
	s.put(t, 0, 0, "Factory")
	s.give(t, 0, "Library", "Bank")
	s.give(t, 1, "Temple")
	play(t, s, "Library", 1, 0)
	anyChance(t, s)
	for seat := -1; seat < 3; seat++ {
		b, err := json.Marshal(s.View(seat))
		if err != nil {
			t.Fatal(err)
		}
		v := s.View(seat).(*View)
		switch seat {
		case 0:
			if len(v.Hand) != 1 || len(v.Peek) != 5 {
				t.Fatalf("seat 0 sees %d hand tiles and %d Library tiles", len(v.Hand), len(v.Peek))
			}
		case 1:
			if len(v.Hand) != 1 || v.Hand[0].Name != "Temple" || len(v.Peek) != 0 || strings.Contains(string(b), "Bank") {
				t.Fatalf("seat 1 sees %s", b)
			}
		default:
			if len(v.Hand) != 0 || len(v.Peek) != 0 {
				t.Fatalf("seat %d sees %s", seat, b)
			}
		}
		if v.HandSizes[0] != 1 || v.HandSizes[1] != 1 {
			t.Fatalf("hand sizes %v", v.HandSizes)
		}
	}
}
