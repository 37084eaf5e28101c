package tui

import (
	"fmt"
	"strings"
	"unicode"
)

// An item is one line of the action menu: an action (idx into
// Snapshot.Legal) or, when a long menu is grouped, a group of actions
// whose descriptions share their leading words (idx -1).
type item struct {
	label string
	idx   int
	group string
}

// groupKey is the leading words of an action's description, up to the
// first word that names a place or a number: "Play Post Office at (1,2)"
// groups under "Play Post Office", "Move a pawn from START to Road space 3"
// under "Move a pawn from START to Road space".
func groupKey(desc string) string {
	words := strings.Fields(desc)
	n := len(words)
	for i, w := range words {
		if strings.ContainsFunc(w, func(r rune) bool { return unicode.IsDigit(r) || r == '(' || r == '$' }) {
			n = i
			break
		}
	}
	for n > 1 {
		switch strings.ToLower(words[n-1]) {
		case "at", "to", "on", "onto", "from", "in", "into", "with", "for", "of", "a", "the", "-", "—":
			n--
			continue
		}
		break
	}
	if n == 0 {
		return desc
	}
	return strings.Join(words[:n], " ")
}

// matches reports whether every word of the filter occurs in desc,
// ignoring case.
func matches(desc, filter string) bool {
	d := strings.ToLower(desc)
	for _, w := range strings.Fields(strings.ToLower(filter)) {
		if !strings.Contains(d, w) {
			return false
		}
	}
	return true
}

// items is the menu as it stands: the actions matching the filter; else
// the actions of the open group; else, for a long menu whose actions
// share leading words, the groups (a group of one is its action); else
// every action.
func (m *Model) items() []item {
	legal := m.snap.Legal
	if len(legal) == 0 || m.snap.State == nil {
		out := make([]item, len(legal))
		for i := range legal {
			out[i] = item{label: fmt.Sprintf("action %d", i+1), idx: i}
		}
		return out
	}
	desc := make([]string, len(legal))
	for i, a := range legal {
		desc[i] = m.snap.State.Describe(a)
	}
	var out []item
	if m.filter != "" {
		for i, d := range desc {
			if matches(d, m.filter) {
				out = append(out, item{label: d, idx: i})
			}
		}
		return out
	}
	if m.group != "" {
		for i, d := range desc {
			if groupKey(d) == m.group {
				out = append(out, item{label: d, idx: i})
			}
		}
		if len(out) > 0 {
			return out
		}
	}
	flat := make([]item, len(desc))
	for i, d := range desc {
		flat[i] = item{label: d, idx: i}
	}
	if len(legal) <= groupAbove {
		return flat
	}
	count := map[string]int{}
	first := map[string]int{}
	var keys []string
	for i, d := range desc {
		k := groupKey(d)
		if count[k] == 0 {
			keys = append(keys, k)
			first[k] = i
		}
		count[k]++
	}
	if len(keys) == len(legal) || len(keys) == 1 {
		return flat // grouping would not shorten the menu
	}
	for _, k := range keys {
		if count[k] == 1 {
			out = append(out, item{label: desc[first[k]], idx: first[k]})
		} else {
			out = append(out, item{label: fmt.Sprintf("%s …  (%d choices)", k, count[k]), idx: -1, group: k})
		}
	}
	return out
}

// groupAbove is the menu length from which actions are grouped: up to it,
// number keys reach every action.
const groupAbove = 9
