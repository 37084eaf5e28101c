package engine

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// The limits on options, the same on the command line, in the lobby's
// signed messages and in every peer's check of a roster. A Serpent City
// rules table is about 5 KiB of JSON and an Infinite City tile table under
// 1 KiB, so a value may be several times either; all of a lobby's options
// together stay far inside one pubsub message (1 MiB), and inside the
// lobby stream's answer, which carries them as JSON text (escaped, up to
// six bytes a byte) beside the members.
const (
	// MaxOptionValue bounds one option's value (32 KiB).
	MaxOptionValue = 32 << 10
	// MaxOptionsSize bounds all of a game's option names and values
	// together (64 KiB).
	MaxOptionsSize = 64 << 10
)

// OptionKind is the type of a game option's value.
type OptionKind uint8

const (
	// OptionInt is a whole number between Min and Max.
	OptionInt OptionKind = iota
	// OptionBool is true or false.
	OptionBool
	// OptionChoice is one of Choices.
	OptionChoice
	// OptionText is free text the game validates itself (a list of card names).
	OptionText
)

// OptionSpec declares one named option of a game.
type OptionSpec struct {
	Name     string
	Kind     OptionKind
	Default  string
	Min, Max int
	Choices  []string
	Help     string
}

// Allowed says in words which values the option takes.
func (o OptionSpec) Allowed() string {
	switch o.Kind {
	case OptionInt:
		return fmt.Sprintf("a whole number from %d to %d", o.Min, o.Max)
	case OptionBool:
		return "true or false"
	case OptionChoice:
		return "one of " + strings.Join(o.Choices, ", ")
	default:
		return "text"
	}
}

func (o OptionSpec) check(v string) (string, error) {
	switch o.Kind {
	case OptionInt:
		n, err := strconv.Atoi(v)
		if err != nil || n < o.Min || n > o.Max {
			return "", fmt.Errorf("option %s=%q: want %s", o.Name, v, o.Allowed())
		}
		return strconv.Itoa(n), nil
	case OptionBool:
		b, err := strconv.ParseBool(v)
		if err != nil {
			return "", fmt.Errorf("option %s=%q: want %s", o.Name, v, o.Allowed())
		}
		return strconv.FormatBool(b), nil
	case OptionChoice:
		for _, c := range o.Choices {
			if c == v {
				return v, nil
			}
		}
		return "", fmt.Errorf("option %s=%q: want %s", o.Name, v, o.Allowed())
	}
	return v, nil
}

// Option is one name=value pair.
type Option struct {
	Name, Value string
}

// Options is a list of options sorted by name, each name once. It is a
// slice, not a map, because it is hashed into a session's roster and must
// have one canonical order.
type Options []Option

// Get returns the value of name and whether it is set.
func (o Options) Get(name string) (string, bool) {
	for _, x := range o {
		if x.Name == name {
			return x.Value, true
		}
	}
	return "", false
}

// Int returns the option as a number; resolved options always parse.
func (o Options) Int(name string) int {
	v, _ := o.Get(name)
	n, _ := strconv.Atoi(v)
	return n
}

// Bool returns the option as a boolean.
func (o Options) Bool(name string) bool {
	v, _ := o.Get(name)
	return v == "true"
}

// String returns the options as "a=1,b=x".
func (o Options) String() string {
	parts := make([]string, len(o))
	for i, x := range o {
		parts[i] = x.Name + "=" + x.Value
	}
	return strings.Join(parts, ",")
}

// ParseOptions reads "name=value" items, each item either separate or
// joined with commas. It checks only the syntax; ResolveOptions checks
// names and values against a game.
func ParseOptions(items []string) (Options, error) {
	var out Options
	for _, item := range items {
		for _, part := range strings.Split(item, ",") {
			part = strings.TrimSpace(part)
			if part == "" {
				continue
			}
			name, value, ok := strings.Cut(part, "=")
			if !ok || name == "" {
				return nil, fmt.Errorf("option %q: want name=value", part)
			}
			out = append(out, Option{Name: strings.TrimSpace(name), Value: strings.TrimSpace(value)})
		}
	}
	return out, nil
}

// ResolveOptions checks given against specs and returns every option of
// the game, given or default, sorted by name. Unknown names, repeated
// names and bad values are errors that list what is allowed.
func ResolveOptions(specs []OptionSpec, given Options) (Options, error) {
	total := 0
	for _, g := range given {
		if len(g.Value) > MaxOptionValue {
			return nil, fmt.Errorf("option %s is %d bytes long; an option value may hold at most %d KiB", g.Name, len(g.Value), MaxOptionValue>>10)
		}
		total += len(g.Name) + len(g.Value)
	}
	if total > MaxOptionsSize {
		return nil, fmt.Errorf("the options are %d bytes long together; a game's options may hold at most %d KiB", total, MaxOptionsSize>>10)
	}
	seen := make([]bool, len(specs))
	out := make(Options, 0, len(specs))
	for _, g := range given {
		i := -1
		for j, s := range specs {
			if s.Name == g.Name {
				i = j
			}
		}
		if i < 0 {
			names := make([]string, len(specs))
			for j, s := range specs {
				names[j] = s.Name
			}
			if len(names) == 0 {
				return nil, fmt.Errorf("unknown option %q: this game has no options", g.Name)
			}
			return nil, fmt.Errorf("unknown option %q; options are: %s", g.Name, strings.Join(names, ", "))
		}
		if seen[i] {
			return nil, fmt.Errorf("option %s given twice", g.Name)
		}
		seen[i] = true
		v, err := specs[i].check(g.Value)
		if err != nil {
			return nil, err
		}
		out = append(out, Option{Name: g.Name, Value: v})
	}
	for i, s := range specs {
		if !seen[i] {
			out = append(out, Option{Name: s.Name, Value: s.Default})
		}
	}
	sort.Slice(out, func(a, b int) bool { return out[a].Name < out[b].Name })
	return out, nil
}
