package tui

import (
	"fmt"
	"sort"
	"strings"

	"github.com/boardmesh/boardmesh/cli/present"
)

// An item is one line of the action menu: an action (idx into
// Snapshot.Legal) or, when a long menu is grouped, a group of actions
// whose descriptions share their leading words (idx -1).
type item struct {
	label string
	idx   int
	group string
	key   string // the key that picks it, "" past the last key
}

// menuKeys are the keys that pick menu lines: the digits, then the
// letters no other command uses.
const menuKeys = "123456789abcefimnoprtuvwxyz"

// withKeys gives every item a key, keeping the key a label had before
// (a digit must not change meaning between moves), and sorts the items by
// key. New labels take the first key that is free now and, where one is,
// was never used by another label.
func (m *Model) withKeys(items []item) []item {
	if m.group != "" || m.filter != "" {
		// An open group or a filter is a passing sub-menu: its lines are
		// keyed in order.
		for i := range items {
			if i < len(menuKeys) {
				items[i].key = menuKeys[i : i+1]
			}
		}
		return items
	}
	// keyOf is the previous menu's keys: a move that was in it keeps its
	// key; a new move takes the first key free now that the previous menu
	// did not use for something else (else any free key).
	mem := func(it item) string {
		if it.group != "" {
			return it.group
		}
		// By the move's leading words, so "Turn over the next card (into
		// hall 3)" keeps the key of "… (into hall 2)".
		return groupKey(it.label)
	}
	used := map[string]bool{}
	now := map[string]string{}
	for i := range items {
		if k, ok := m.keyOf[mem(items[i])]; ok && !used[k] {
			items[i].key = k
			used[k] = true
			now[mem(items[i])] = k
		}
	}
	before := map[string]bool{}
	for _, k := range m.keyOf {
		before[k] = true
	}
	for pass := 0; pass < 2; pass++ {
		for i := range items {
			if items[i].key != "" {
				continue
			}
			for _, r := range menuKeys {
				k := string(r)
				if used[k] || (pass == 0 && before[k]) {
					continue
				}
				items[i].key = k
				used[k] = true
				if _, taken := now[mem(items[i])]; !taken {
					now[mem(items[i])] = k
				}
				break
			}
		}
	}
	m.keyOf = now
	rank := func(k string) int {
		if k == "" {
			return len(menuKeys)
		}
		return strings.Index(menuKeys, k)
	}
	sort.SliceStable(items, func(a, b int) bool { return rank(items[a].key) < rank(items[b].key) })
	return items
}

// groupKey is the leading words of an action's description (the
// presentation model's groups).
func groupKey(desc string) string { return present.GroupOf(desc) }

// matches reports whether every word of the filter starts a word of desc,
// ignoring case: "3,2" matches "(3,2)" but not "(-3,2)" or "(13,2)".
func matches(desc, filter string) bool {
	d := strings.ToLower(desc)
	for _, w := range strings.Fields(strings.ToLower(filter)) {
		if !startsWord(d, w) {
			return false
		}
	}
	return true
}

// startsWord reports whether w occurs in d where no letter, digit or minus
// sign comes right before it.
func startsWord(d, w string) bool {
	for from := 0; from <= len(d); {
		i := strings.Index(d[from:], w)
		if i < 0 {
			return false
		}
		i += from
		if i == 0 {
			return true
		}
		prev := d[i-1]
		if !(prev >= 'a' && prev <= 'z' || prev >= '0' && prev <= '9' || prev == '-') {
			return true
		}
		from = i + 1
	}
	return false
}

// items is the menu as it stands: the actions matching the filter; else
// the actions of the open group; else, for a long menu whose actions
// share leading words, the groups (a group of one is its action); else
// every action.
func (m *Model) items() []item { return m.withKeys(m.rawItems()) }

func (m *Model) rawItems() []item {
	legal := m.snap.Legal
	if len(legal) == 0 || m.snap.State == nil {
		out := make([]item, len(legal))
		for i := range legal {
			out[i] = item{label: fmt.Sprintf("action %d", i+1), idx: i}
		}
		return out
	}
	desc := make([]string, len(legal))
	t := m.snap.Table
	for i, a := range legal {
		if t != nil && len(t.Actions) == len(legal) {
			desc[i] = t.Actions[i].Label // a combo's label, not its first step's
		} else {
			desc[i] = m.snap.State.Describe(a)
		}
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
// the menu keys reach every action.
const groupAbove = len(menuKeys)
