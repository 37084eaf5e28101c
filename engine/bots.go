package engine

// RandomBot picks uniformly among the legal actions. Every game offers it:
// it is the fuzzer of the random-playout tests and the weakest opponent.
type RandomBot struct{}

// Choose picks one of legal at random.
func (RandomBot) Choose(_ State, legal []Action, r *Rand) Action { return legal[r.Intn(len(legal))] }

// RandomBotSpec is the BotSpec of RandomBot, for games' bot lists.
var RandomBotSpec = BotSpec{
	Name: "random",
	Help: "picks any legal move at random",
	New:  func() Bot { return RandomBot{} },
}
