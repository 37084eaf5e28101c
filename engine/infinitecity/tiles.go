package infinitecity

import (
	"fmt"
	"strconv"
	"strings"
)

// Instr is what a tile does when it turns face up.
type Instr uint8

// The instructions. Protect and Plaza act while their tile is face up
// rather than once; every other instruction is carried out once, by the
// player who laid or flipped the tile.
const (
	InNone Instr = iota
	InProtect
	InPlayAnother
	InLibrary
	InPlaza
	InReturnMarkers
	InRemoveMarkers
	InSwapTiles
	InDrawTiles
	InSwapHands
	InMarkAdjacent
	InMarkLine
	InMarkNearOwn
	InMoveMarker
	InRecycle
	numInstr
)

// Numbers printed in the instructions.
const (
	libraryLook = 5 // tiles a Library shows
	drawCount   = 2 // tiles a draw-2 tile draws
	recycleMax  = 2 // tiles a recycle tile may put back
)

var instrInfo = [numInstr]struct{ key, text string }{
	{"none", "No instruction."},
	{"protect", "This tile and the four tiles next to it cannot be affected by tile or marker actions."},
	{"play-another", "Play another tile from your hand."},
	{"library", "Look at the top 5 tiles of the pile and play one of them at once; the rest go to the bottom of the pile."},
	{"plaza", "While a Plaza is face up, every new tile must be placed next to a Plaza."},
	{"return-markers", "Return all markers on one tile to their owners."},
	{"remove-markers", "Remove all markers on one tile from the game."},
	{"swap-tiles", "Swap two tiles on the table, together with their markers."},
	{"draw-2", "Draw 2 tiles into your hand."},
	{"swap-hands", "Swap your hand with another player's hand."},
	{"mark-adjacent", "Put one of your markers on a tile next to this one."},
	{"mark-line", "Put one of your markers on a tile in this tile's row or column."},
	{"mark-near-own", "Put one of your markers on a tile next to a tile you control."},
	{"move-marker", "Move one of your markers from another tile onto a tile next to this one."},
	{"recycle", "Put up to 2 tiles from your hand at the bottom of the pile, then draw as many."},
}

// Key is the instruction's name in a tile-set text.
func (in Instr) Key() string { return instrInfo[in].key }

// Text is the instruction as printed on the tile.
func (in Instr) Text() string { return instrInfo[in].text }

// TileKind is one kind of tile: a name, how many copies the set has, and
// what is printed on it.
type TileKind struct {
	Name  string `json:"name"`
	Abbr  string `json:"abbr"` // up to 3 characters, for the compact board
	Count int    `json:"count"`
	Instr Instr  `json:"instr"`
	Bonus int    `json:"bonus"` // printed bonus points
	Rings bool   `json:"rings"` // silver border with rings
}

// TileSet is a complete set of tiles. Kind ids are indexes into Kinds.
type TileSet struct {
	Kinds []TileKind
	Total int
	Power int // copies of Power Stations (InProtect tiles): all on the table ends the game
	text  string
}

// StandardTiles is the tile set of boardmesh's Infinite City: 120 tiles
// using the names of the published game. One entry per kind, separated by
// semicolons: COUNT NAME [ABBR]: INSTRUCTION [+BONUS] [rings]. The game
// option "tiles" takes text in the same form to replace it.
const StandardTiles = `5 Power Station [PWR]: protect +1 rings;
6 Construction Site [CON]: play-another rings;
4 Library [LIB]: library;
4 Plaza [PLZ]: plaza;
4 Security Guardpost [GRD]: return-markers;
4 Police HQ [POL]: return-markers +1;
3 Disaster Site [DIS]: remove-markers;
4 Transit Station [TRN]: swap-tiles rings;
5 Post Office [PST]: draw-2;
3 Embassy [EMB]: swap-hands +1 rings;
16 Housing [HSG]: mark-adjacent;
8 Hotel [HTL]: mark-adjacent rings;
6 Shopping Complex [SHP]: mark-adjacent +1;
4 Stadium [STD]: mark-line +1 rings;
5 Guild Hall [GLD]: mark-near-own;
5 Port [PRT]: move-marker;
4 Salvage Yard [SLV]: recycle;
10 Factory [FAC]: none;
7 Arboretum [ARB]: none +1;
4 Bank [BNK]: none +2 rings;
3 Mausoleum [MAU]: none +2;
6 Temple [TMP]: none +1 rings`

// Limits of a tile-set text, so a hostile option cannot make a huge state.
const (
	maxKinds = 64
	maxTiles = 400
)

var standard = mustParse(StandardTiles)

func mustParse(text string) *TileSet {
	ts, err := ParseTiles(text)
	if err != nil {
		panic("infinitecity: standard tile set: " + err.Error())
	}
	return ts
}

// Standard returns the standard tile set. Callers must not change it.
func Standard() *TileSet { return standard }

// ParseTiles reads a tile-set text (see StandardTiles). Entries may be
// separated by semicolons or new lines. Names and abbreviations must be
// unique; a missing abbreviation is the name's first three letters.
func ParseTiles(text string) (*TileSet, error) {
	ts := &TileSet{}
	entries := strings.FieldsFunc(text, func(r rune) bool { return r == ';' || r == '\n' })
	for _, raw := range entries {
		e := strings.TrimSpace(raw)
		if e == "" {
			continue
		}
		k, err := parseKind(e)
		if err != nil {
			return nil, fmt.Errorf("tile entry %q: %w", e, err)
		}
		for _, o := range ts.Kinds {
			if strings.EqualFold(o.Name, k.Name) {
				return nil, fmt.Errorf("tile %q is listed twice", k.Name)
			}
			if o.Abbr == k.Abbr {
				return nil, fmt.Errorf("tiles %q and %q have the same short name %q; give one of them [ABC]", o.Name, k.Name, k.Abbr)
			}
		}
		ts.Kinds = append(ts.Kinds, k)
		ts.Total += k.Count
		if k.Instr == InProtect {
			ts.Power += k.Count
		}
		if len(ts.Kinds) > maxKinds || ts.Total > maxTiles {
			return nil, fmt.Errorf("a tile set has at most %d kinds and %d tiles", maxKinds, maxTiles)
		}
	}
	if len(ts.Kinds) == 0 {
		return nil, fmt.Errorf("the tile set is empty")
	}
	ts.text = ts.format()
	return ts, nil
}

func parseKind(e string) (TileKind, error) {
	var k TileKind
	head, tail, ok := strings.Cut(e, ":")
	if !ok {
		return k, fmt.Errorf("want COUNT NAME [ABBR]: INSTRUCTION [+BONUS] [rings]")
	}
	head = strings.TrimSpace(head)
	countText, name, _ := strings.Cut(head, " ")
	n, err := strconv.Atoi(countText)
	if err != nil || n < 1 || n > maxTiles {
		return k, fmt.Errorf("count %q is not a number from 1 to %d", countText, maxTiles)
	}
	k.Count = n
	name = strings.TrimSpace(name)
	if i := strings.IndexByte(name, '['); i >= 0 {
		if !strings.HasSuffix(name, "]") {
			return k, fmt.Errorf("short name must be written [ABC] after the name")
		}
		k.Abbr = strings.TrimSpace(name[i+1 : len(name)-1])
		name = strings.TrimSpace(name[:i])
	}
	if name == "" || len(name) > 24 || strings.ContainsAny(name, "[]:;=,") || !isASCII(strings.ReplaceAll(name, " ", "")) {
		return k, fmt.Errorf("name %q: want 1 to 24 plain letters without brackets, colons, semicolons, commas or =", name)
	}
	k.Name = name
	if k.Abbr == "" {
		k.Abbr = strings.ToUpper(strings.ReplaceAll(name, " ", ""))
		if len(k.Abbr) > 3 {
			k.Abbr = k.Abbr[:3]
		}
	}
	if len(k.Abbr) > 3 || strings.ContainsAny(k.Abbr, " []:;=,") || !isASCII(k.Abbr) {
		return k, fmt.Errorf("short name %q: want 1 to 3 letters", k.Abbr)
	}
	fields := strings.Fields(tail)
	if len(fields) == 0 {
		return k, fmt.Errorf("missing instruction; instructions are: %s", instrKeys())
	}
	found := false
	for in := Instr(0); in < numInstr; in++ {
		if in.Key() == fields[0] {
			k.Instr, found = in, true
		}
	}
	if !found {
		return k, fmt.Errorf("unknown instruction %q; instructions are: %s", fields[0], instrKeys())
	}
	for _, f := range fields[1:] {
		switch {
		case f == "rings":
			k.Rings = true
		case strings.HasPrefix(f, "+"):
			b, err := strconv.Atoi(f[1:])
			if err != nil || b < 0 || b > 9 {
				return k, fmt.Errorf("bonus %q: want +0 to +9", f)
			}
			k.Bonus = b
		default:
			return k, fmt.Errorf("unknown word %q: want +BONUS or rings", f)
		}
	}
	return k, nil
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x21 || s[i] > 0x7e {
			return false
		}
	}
	return true
}

func instrKeys() string {
	keys := make([]string, numInstr)
	for in := Instr(0); in < numInstr; in++ {
		keys[in] = in.Key()
	}
	return strings.Join(keys, ", ")
}

// format writes the set in its canonical text form, so that two texts
// describing the same set give the same state encoding.
func (ts *TileSet) format() string {
	var b strings.Builder
	for i, k := range ts.Kinds {
		if i > 0 {
			b.WriteString("; ")
		}
		fmt.Fprintf(&b, "%d %s [%s]: %s", k.Count, k.Name, k.Abbr, k.Instr.Key())
		if k.Bonus > 0 {
			fmt.Fprintf(&b, " +%d", k.Bonus)
		}
		if k.Rings {
			b.WriteString(" rings")
		}
	}
	return b.String()
}

// String returns the canonical text of the set.
func (ts *TileSet) String() string { return ts.text }
