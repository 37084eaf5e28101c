package p2p

import (
	"errors"
	"strings"
	"testing"

	"github.com/boardmesh/boardmesh/engine"
	"github.com/boardmesh/boardmesh/engine/dragonslair"
)

func TestCheckLobbyRefusals(t *testing.T) {
	t.Parallel()
	g := dragonslair.Game
	games := func(name string) (*engine.Game, error) {
		if name == g.Name {
			return g, nil
		}
		return nil, errors.New("unknown game")
	}
	ok := LobbyInfo{Game: g.Name, Version: g.Version, Players: 2, Max: g.MaxPlayers}
	if err := CheckLobby(ok, games); err != nil {
		t.Fatalf("a lobby with room refused: %v", err)
	}
	cases := []struct {
		name   string
		change func(*LobbyInfo)
		is     error
		says   string
	}{
		{"other rules version", func(l *LobbyInfo) { l.Version = "dragonslair/99" }, ErrRulesVersion, `"dragonslair/99"`},
		{"full", func(l *LobbyInfo) { l.Players = l.Max }, ErrLobbyFull, "seats taken"},
		{"started", func(l *LobbyInfo) { l.Started = true }, ErrLobbyStarted, "already started"},
		{"unknown game", func(l *LobbyInfo) { l.Game = "chess" }, nil, `"chess"`},
	}
	for _, c := range cases {
		l := ok
		c.change(&l)
		err := CheckLobby(l, games)
		if err == nil || (c.is != nil && !errors.Is(err, c.is)) || !strings.Contains(err.Error(), c.says) {
			t.Errorf("%s: %v", c.name, err)
		}
	}
}
