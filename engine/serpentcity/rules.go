package serpentcity

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"

	"github.com/boardmesh/boardmesh/engine"
)

// Resource indexes: the four basic Resources, then Diamonds.
const (
	Coin = iota
	Weapon
	Document
	Fuel
	Diamond
	nRes
)

var resNames = [nRes]string{"Coin", "Weapon", "Document", "Fuel", "Diamond"}
var resShort = [nRes]string{"C", "W", "D", "F", "◆"}

// Amount is a bundle of Resources as it appears in the rules file.
type Amount struct {
	Coin     int `json:"coin,omitempty"`
	Weapon   int `json:"weapon,omitempty"`
	Document int `json:"document,omitempty"`
	Fuel     int `json:"fuel,omitempty"`
	Diamond  int `json:"diamond,omitempty"`
}

func (a Amount) arr() [nRes]int { return [nRes]int{a.Coin, a.Weapon, a.Document, a.Fuel, a.Diamond} }

// TerritorySpec places one Territory on the board.
type TerritorySpec struct {
	Name string `json:"name"`
	// Type is the Resource it produces: coin, weapon, document, fuel or
	// diamond (the Diamond Mine).
	Type string `json:"type"`
	// Road is the Road space the Territory touches (0-based).
	Road int `json:"road"`
}

// RewardSpec is one face of the Reward Roll die.
type RewardSpec struct {
	Gain Amount `json:"gain"`
	// Card: the roller draws a Special Card from the deck of their choice.
	Card bool `json:"card,omitempty"`
}

// CardSpec is one kind of Special Card.
type CardSpec struct {
	// Key selects the effect (see the rules document for the list).
	Key   string `json:"key"`
	Name  string `json:"name"`
	Count int    `json:"count"`
	MinIP int    `json:"min_ip"`
	MaxIP int    `json:"max_ip"`
	// Value is the effect's number (Strength bonus, Movement Points, …).
	Value int `json:"value,omitempty"`
}

// Rules holds every table the original text leaves to the designer. The
// zero value is not usable; start from DefaultRules.
type Rules struct {
	RoadSpaces      int             `json:"road_spaces"`
	StartSlots      int             `json:"start_slots"`
	Territories     []TerritorySpec `json:"territories"`
	OccupationSlots int             `json:"occupation_slots"`
	CapitalSlots    int             `json:"capital_slots"`

	StepMP    int    `json:"step_mp"`
	EnterMP   int    `json:"enter_mp"`
	LeaveMP   int    `json:"leave_mp"`
	PromoteMP int    `json:"promote_mp"`
	Enter     Amount `json:"enter_cost"`
	Leave     Amount `json:"leave_cost"`
	Promote   Amount `json:"promote_cost"`
	Pawn      Amount `json:"pawn_cost"`
	Building  Amount `json:"building_cost"`
	EconCard  Amount `json:"economic_card_cost"`
	MilCard   Amount `json:"military_card_cost"`
	BuyIP     Amount `json:"ip_cost"`
	IPPerTurn int    `json:"ip_buys_per_turn"`
	BankRate  int    `json:"bank_rate"`
	// TradeOffers is how many offers to other players a turn allows.
	TradeOffers int `json:"trade_offers_per_turn"`

	// Levels[i] is the number of own occupying pawns for dominance level
	// i+1 (I, II, III).
	Levels        [3]int `json:"dominance_pawns"`
	Production    [3]int `json:"dominance_production"`
	DominanceIP   [3]int `json:"dominance_ip"`
	DefenceBonus  [3]int `json:"defence_bonus"`
	SharedProduce int    `json:"shared_production"`
	MineProduce   int    `json:"mine_production"`
	CapitalIP     int    `json:"capital_ip"`
	SetIP         int    `json:"set_ip"`
	ArchitectIP   int    `json:"architect_set_ip"`
	StartBonus    Amount `json:"start_bonus"`

	Reward   []RewardSpec `json:"reward_roll"`
	Economic []CardSpec   `json:"economic_cards"`
	Military []CardSpec   `json:"military_cards"`
}

// Card effect keys.
const (
	kInvestor  = "investor"
	kArchitect = "architect"
	kPatronage = "patronage"
	kWindfall  = "windfall"
	kLevy      = "levy"
	kEviction  = "eviction"
	kExpress   = "express"
	kRecruits  = "recruits"

	kAmbush    = "ambush"
	kConvoy    = "convoy"
	kTunnels   = "tunnels"
	kSmall     = "small_units"
	kRetreat   = "tactical_retreat"
	kSabotage  = "sabotage"
	kReinforce = "reinforcements"
	kBarricade = "barricade"
)

var econKeys = []string{kInvestor, kArchitect, kPatronage, kWindfall, kLevy, kEviction, kExpress, kRecruits}
var milKeys = []string{kAmbush, kConvoy, kTunnels, kSmall, kRetreat, kSabotage, kReinforce, kBarricade}

// DefaultRules returns the documented tables (docs/rules/serpentcity.md).
func DefaultRules() Rules {
	names := [5]string{"Market", "Arsenal", "Chancery", "Refinery", "Diamond Mine"}
	types := [5]string{"coin", "weapon", "document", "fuel", "diamond"}
	var terr []TerritorySpec
	for i := 0; i < 10; i++ {
		side := "North "
		if i >= 5 {
			side = "South "
		}
		terr = append(terr, TerritorySpec{Name: side + names[i%5], Type: types[i%5], Road: 2*i + 1})
	}
	return Rules{
		RoadSpaces:      20,
		StartSlots:      4,
		Territories:     terr,
		OccupationSlots: 5,
		CapitalSlots:    6,
		StepMP:          1,
		EnterMP:         1,
		LeaveMP:         1,
		PromoteMP:       2,
		Enter:           Amount{Coin: 1},
		Leave:           Amount{Fuel: 1},
		Promote:         Amount{Coin: 3, Weapon: 3, Document: 3, Fuel: 3, Diamond: 1},
		Pawn:            Amount{Coin: 1, Weapon: 1, Fuel: 1},
		Building:        Amount{Coin: 2, Document: 1, Fuel: 1},
		EconCard:        Amount{Coin: 1, Document: 1},
		MilCard:         Amount{Weapon: 1, Fuel: 1},
		BuyIP:           Amount{Coin: 2, Weapon: 2, Document: 2, Fuel: 2, Diamond: 2},
		IPPerTurn:       1,
		BankRate:        3,
		TradeOffers:     1,
		Levels:          [3]int{1, 2, 3},
		Production:      [3]int{1, 2, 3},
		DominanceIP:     [3]int{1, 2, 3},
		DefenceBonus:    [3]int{0, 0, 1},
		SharedProduce:   1,
		MineProduce:     1,
		CapitalIP:       4,
		SetIP:           1,
		ArchitectIP:     2,
		StartBonus:      Amount{Coin: 1, Weapon: 1, Document: 1, Fuel: 1},
		Reward: []RewardSpec{
			{Gain: Amount{Coin: 2}},
			{Gain: Amount{Weapon: 2}},
			{Gain: Amount{Document: 2}},
			{Gain: Amount{Fuel: 2}},
			{Gain: Amount{Diamond: 1}},
			{Card: true},
		},
		Economic: []CardSpec{
			{Key: kInvestor, Name: "Investor", Count: 2, MinIP: 0, MaxIP: 8, Value: 1},
			{Key: kArchitect, Name: "Architect", Count: 2, MinIP: 0, MaxIP: 10},
			{Key: kPatronage, Name: "Patronage", Count: 3, MinIP: 0, MaxIP: 11, Value: 1},
			{Key: kWindfall, Name: "Windfall", Count: 4, MinIP: 0, MaxIP: 14, Value: 1},
			{Key: kLevy, Name: "Levy", Count: 3, MinIP: 0, MaxIP: 14, Value: 1},
			{Key: kEviction, Name: "Eviction", Count: 3, MinIP: 0, MaxIP: 12},
			{Key: kExpress, Name: "Express", Count: 4, MinIP: 0, MaxIP: 14, Value: 4},
			{Key: kRecruits, Name: "Recruits", Count: 3, MinIP: 0, MaxIP: 10, Value: 1},
		},
		Military: []CardSpec{
			{Key: kAmbush, Name: "Ambush", Count: 2, MinIP: 0, MaxIP: 14},
			{Key: kConvoy, Name: "Convoy", Count: 3, MinIP: 0, MaxIP: 14, Value: 2},
			{Key: kTunnels, Name: "Tunnels", Count: 3, MinIP: 0, MaxIP: 14, Value: 1},
			{Key: kSmall, Name: "Small Units", Count: 3, MinIP: 0, MaxIP: 14, Value: 2},
			{Key: kRetreat, Name: "Tactical Retreat", Count: 3, MinIP: 0, MaxIP: 14},
			{Key: kSabotage, Name: "Sabotage", Count: 2, MinIP: 0, MaxIP: 14},
			{Key: kReinforce, Name: "Reinforcements", Count: 4, MinIP: 3, MaxIP: 14, Value: 2},
			{Key: kBarricade, Name: "Barricade", Count: 3, MinIP: 0, MaxIP: 14, Value: 2},
		},
	}
}

// ParseRules reads a rules file (JSON). Fields left out keep their default
// value, so a file may change one table only. Unknown fields are errors,
// so a misspelt name is not silently ignored.
func ParseRules(data []byte) (Rules, error) {
	r := DefaultRules()
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	// A field given in the file replaces the default whole: a cost of
	// {"coin": 2} means exactly 2 Coin, and a shorter card list is not
	// merged element by element into the default one.
	var probe map[string]json.RawMessage
	if err := json.Unmarshal(data, &probe); err != nil {
		return Rules{}, fmt.Errorf("serpentcity rules: %w", err)
	}
	rv := reflect.ValueOf(&r).Elem()
	for i := 0; i < rv.NumField(); i++ {
		tag, _, _ := strings.Cut(rv.Type().Field(i).Tag.Get("json"), ",")
		if _, given := probe[tag]; given {
			rv.Field(i).Set(reflect.Zero(rv.Field(i).Type()))
		}
	}
	if err := dec.Decode(&r); err != nil {
		return Rules{}, fmt.Errorf("serpentcity rules: %w", err)
	}
	if err := r.Validate(); err != nil {
		return Rules{}, err
	}
	return r, nil
}

// JSON returns the rules as indented JSON, the format ParseRules reads.
func (r Rules) JSON() []byte {
	b, _ := json.MarshalIndent(r, "", "  ") // a struct of ints and strings always marshals
	return b
}

func typeIndex(s string) int {
	for i, n := range []string{"coin", "weapon", "document", "fuel", "diamond"} {
		if n == s {
			return i
		}
	}
	return -1
}

// Validate checks that the tables make a playable game: every step of a
// turn costs something (so turns end), and every index is in range.
func (r Rules) Validate() error {
	bad := func(f string, a ...any) error { return fmt.Errorf("serpentcity rules: "+f, a...) }
	if r.RoadSpaces < 4 || r.RoadSpaces > 60 {
		return bad("road_spaces must be 4 to 60, not %d", r.RoadSpaces)
	}
	if r.StartSlots < 3 || r.StartSlots > 20 {
		return bad("start_slots must be 3 to 20 (every player starts with 3 pawns there)")
	}
	if len(r.Territories) < 2 || len(r.Territories) > 30 {
		return bad("need 2 to 30 territories")
	}
	for i, t := range r.Territories {
		if typeIndex(t.Type) < 0 {
			return bad("territory %d: type %q is not coin, weapon, document, fuel or diamond", i, t.Type)
		}
		if t.Road < 0 || t.Road >= r.RoadSpaces {
			return bad("territory %d touches road space %d, outside 0..%d", i, t.Road, r.RoadSpaces-1)
		}
		if t.Name == "" || len(t.Name) > 40 {
			return bad("territory %d needs a name of at most 40 bytes", i)
		}
	}
	if r.OccupationSlots < 1 || r.OccupationSlots > 20 || r.CapitalSlots < 1 || r.CapitalSlots > 40 {
		return bad("occupation_slots must be 1 to 20 and capital_slots 1 to 40")
	}
	if r.StepMP < 1 || r.EnterMP < 1 || r.LeaveMP < 1 || r.PromoteMP < 0 || r.PromoteMP > 12 || r.StepMP > 12 || r.EnterMP > 12 || r.LeaveMP > 12 {
		return bad("moving costs at least 1 Movement Point per step, enter and leave (at most 12)")
	}
	for _, a := range []Amount{r.Enter, r.Leave, r.Promote, r.Pawn, r.Building, r.EconCard, r.MilCard, r.BuyIP, r.StartBonus} {
		for _, x := range a.arr() {
			if x < 0 || x > 16 {
				return bad("every amount must be 0 to 16")
			}
		}
	}
	nonzero := func(a Amount) bool {
		s := 0
		for _, x := range a.arr() {
			s += x
		}
		return s > 0
	}
	if !nonzero(r.Pawn) || !nonzero(r.Building) || !nonzero(r.EconCard) || !nonzero(r.MilCard) || !nonzero(r.BuyIP) || !nonzero(r.Promote) {
		return bad("pawns, Buildings, Cards, IP and promotion must cost something, or a turn need never end")
	}
	if r.IPPerTurn < 0 || r.IPPerTurn > 15 || r.BankRate < 2 || r.BankRate > 16 || r.TradeOffers < 0 || r.TradeOffers > 10 {
		return bad("ip_buys_per_turn 0..15, bank_rate 2..16, trade_offers_per_turn 0..10")
	}
	for i := 0; i < 3; i++ {
		if r.Levels[i] < 1 || (i > 0 && r.Levels[i] <= r.Levels[i-1]) {
			return bad("dominance_pawns must rise from at least 1")
		}
		if r.Production[i] < 0 || r.Production[i] > 16 || r.DominanceIP[i] < 0 || r.DominanceIP[i] > 15 || r.DefenceBonus[i] < 0 || r.DefenceBonus[i] > 10 {
			return bad("dominance tables out of range")
		}
	}
	if r.SharedProduce < 0 || r.MineProduce < 0 || r.CapitalIP < 0 || r.SetIP < 0 || r.ArchitectIP < 0 ||
		r.SharedProduce > 16 || r.MineProduce > 16 || r.CapitalIP > 15 || r.SetIP > 15 || r.ArchitectIP > 15 {
		return bad("production and IP values out of range")
	}
	if len(r.Reward) < 1 || len(r.Reward) > 20 {
		return bad("reward_roll needs 1 to 20 faces")
	}
	for _, f := range r.Reward {
		for _, x := range f.Gain.arr() {
			if x < 0 || x > 16 {
				return bad("reward amounts must be 0 to 16")
			}
		}
	}
	if err := checkDeck("economic_cards", r.Economic, econKeys); err != nil {
		return err
	}
	return checkDeck("military_cards", r.Military, milKeys)
}

func checkDeck(name string, deck []CardSpec, keys []string) error {
	if len(deck) < 1 || len(deck) > 40 {
		return fmt.Errorf("serpentcity rules: %s needs 1 to 40 kinds", name)
	}
	total := 0
	for _, c := range deck {
		total += max(c.Count, 0)
	}
	if total > engine.MaxDeckSize {
		// The card layer deals decks of at most this many cards.
		return fmt.Errorf("serpentcity rules: %s has %d cards, at most %d", name, total, engine.MaxDeckSize)
	}
	for _, c := range deck {
		known := false
		for _, k := range keys {
			known = known || k == c.Key
		}
		if !known {
			return fmt.Errorf("serpentcity rules: %s: unknown card key %q (known: %v)", name, c.Key, keys)
		}
		if c.Count < 0 || c.Count > 50 || c.MinIP < 0 || c.MaxIP < c.MinIP || c.Value < 0 || c.Value > 16 || c.Name == "" || len(c.Name) > 40 {
			return fmt.Errorf("serpentcity rules: %s: card %q has a bad count, IP range, value or name", name, c.Key)
		}
	}
	return nil
}
