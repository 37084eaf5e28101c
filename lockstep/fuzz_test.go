package lockstep

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/boardmesh/boardmesh/crypto"
	"github.com/boardmesh/boardmesh/engine"
)

// The fuzz targets of every decoder of peer bytes in this package, and of
// the state envelope's path through a node and through ExplainDesync.
// Each has a small seed corpus committed under testdata/fuzz/<target>/
// (written by go test -run TestWriteFuzzSeeds -write-fuzz-seeds), which
// plain go test runs as regression cases; .ci/run fuzzes each for a
// bounded time.

var writeFuzzSeeds = flag.Bool("write-fuzz-seeds", false, "rewrite the seed corpora under testdata/fuzz")

// roundTrip checks the one property every body decoder has: it never
// panics, and whatever it accepts is canonical (encoding the decoded
// value gives the input back), so one message has one signature.
func roundTrip[T any](t *testing.T, b []byte, dec func([]byte) (T, error), enc func(T) []byte) {
	v, err := dec(b)
	if err != nil {
		if !errors.Is(err, ErrBadBody) && !errors.Is(err, ErrMalformed) {
			t.Fatalf("decoder error %v is neither ErrBadBody nor ErrMalformed", err)
		}
		return
	}
	if re := enc(v); !bytes.Equal(re, b) {
		t.Fatalf("accepted a non-canonical body: %x re-encodes as %x", b, re)
	}
}

func FuzzDecodeJoin(f *testing.F) {
	f.Fuzz(func(t *testing.T, b []byte) {
		roundTrip(t, b, decodeJoin, func(j *joinBody) []byte { return j.encode() })
	})
}

// FuzzDecodeClaim: a claim of the win may carry another peer's envelope
// as the proof of a cheat (claim.go), bytes a hostile claimant chooses.
func FuzzDecodeClaim(f *testing.F) {
	f.Add((&claimBody{Seat: 1}).encode())
	f.Add((&claimBody{Seat: 0, Cheat: "share", Proof: []byte{1, 2, 3}}).encode())
	f.Fuzz(func(t *testing.T, b []byte) {
		roundTrip(t, b, decodeClaim, func(c *claimBody) []byte { return c.encode() })
	})
}

func FuzzDecodeRoster(f *testing.F) {
	f.Fuzz(func(t *testing.T, b []byte) {
		roundTrip(t, b, decodeRoster, func(r *rosterBody) []byte { return r.encode() })
	})
}

func FuzzDecodeExtend(f *testing.F) {
	f.Fuzz(func(t *testing.T, b []byte) {
		roundTrip(t, b, decodeExtend, func(x *extendBody) []byte { return x.encode() })
	})
}

func FuzzDecodeSeats(f *testing.F) {
	f.Fuzz(func(t *testing.T, b []byte, players uint8) {
		roundTrip(t, b, func(b []byte) ([]int, error) { return decodeSeats(b, int(players)) }, encodeSeats)
	})
}

func FuzzDecodeEvidence(f *testing.F) {
	f.Fuzz(func(t *testing.T, b []byte) {
		type pair struct{ a, b *crypto.Envelope }
		roundTrip(t, b, func(b []byte) (pair, error) {
			x, y, err := decodeEvidence(b)
			return pair{x, y}, err
		}, func(p pair) []byte { return encodeEvidence(p.a, p.b) })
		_, _ = CheckEvidence(&crypto.Envelope{Kind: crypto.KindEvidence, Body: b})
	})
}

func FuzzDecodeState(f *testing.F) {
	f.Fuzz(func(t *testing.T, b []byte) {
		roundTrip(t, b, decodeState, func(s *stateBody) []byte { return s.encode() })
	})
}

// fuzzGame is one dice game, played once per process: a log to restart
// nodes from and to explain desyncs against, and the players' keys.
var fuzzGame struct {
	once sync.Once
	log  []*crypto.Envelope
	net  *simNet
	cfg  Config
}

func fuzzBase(t testing.TB) ([]*crypto.Envelope, *simNet) {
	fuzzGame.once.Do(func() {
		n := newSimNet(t, "fuzz-state", 3, faults{maxDelay: 1}, testGames, Config{})
		n.setBots(diceGame)
		n.lobby(diceGame, nil)
		// Half a game: the node is mid-play, with hashes behind and ahead.
		n.run(100000, func() bool { return n.peers[0].node.Status().Seq >= 12 })
		fuzzGame.log = append([]*crypto.Envelope(nil), n.peers[0].node.Log()...)
		fuzzGame.net = n
	})
	if fuzzGame.net == nil {
		t.Fatal("the base game of the fuzz targets failed")
	}
	return fuzzGame.log, fuzzGame.net
}

// fuzzNode is peer 0 of the base game, restarted from its log: a node
// mid-play for one fuzz input.
func fuzzNode(t testing.TB) ([]*crypto.Envelope, *simNet, *Node) {
	log, n := fuzzBase(t)
	c := n.peers[0].cfg
	c.Log, c.Sent = log, nil
	node, err := New(c)
	if err != nil {
		t.Fatal(err)
	}
	return log, n, node
}

// FuzzStateEnvelope steps a member's signed state envelope, built from
// the fuzzer's fields, into a node restarted mid-game, and gives it to
// ExplainDesync. Neither may panic; an envelope whose hashes agree with
// the log must neither stop the node nor explain a desync.
func FuzzStateEnvelope(f *testing.F) {
	f.Fuzz(func(t *testing.T, seq, from uint64, nHashes uint16, realHashes bool, state []byte, author uint8) {
		log, n, node := fuzzNode(t)
		hashes := node.Hashes()
		body := &stateBody{From: from, State: state}
		for i := uint64(0); i < uint64(nHashes%64); i++ {
			var h crypto.Hash
			if s := from + i; realHashes && s >= from && s < uint64(len(hashes)) {
				h = hashes[s]
			} else {
				h[0], h[1] = byte(i), byte(i>>8)
			}
			body.Hashes = append(body.Hashes, h)
		}
		var hash crypto.Hash
		if len(body.Hashes) > 0 {
			hash = body.Hashes[len(body.Hashes)-1]
		}
		who := 1 + int(author)%2
		env := n.signAs(who, &crypto.Envelope{Session: node.Status().Session, Seq: seq, Kind: crypto.KindState,
			StateHash: hash, Body: body.encode()})
		agrees := body.fits(env) == nil && seq < uint64(len(hashes)) && realHashes && from+uint64(len(body.Hashes)) <= uint64(len(hashes))
		_ = node.Step(env)
		for node.HasReady() {
			rd := node.Ready()
			for _, ev := range rd.Events {
				if agrees && ev.Kind == EventDesync {
					t.Fatalf("a state envelope that agrees with our hashes raised a desync: %s", ev.Text)
				}
			}
			node.Advance()
		}
		if agrees && node.Status().Phase == PhaseStopped {
			t.Fatal("a state envelope that agrees with our hashes stopped the node")
		}
		rep, err := ExplainDesync(log, testGames, env)
		if agrees && (rep != nil || err != nil) {
			t.Fatalf("ExplainDesync of an agreeing state: %v, %v", rep, err)
		}
	})
}

// FuzzDropVotes steps drop votes and settles signed by the members of a
// three-seat table, built from the fuzzer's bytes (three per envelope:
// kind and author, log position around the node's own, seats), into a
// node restarted mid-game, ticking it between them. Nothing may panic,
// and whatever the members signed, the node's log must still verify: a
// settle is never a log entry, and a drop is taken only as a complete
// round.
func FuzzDropVotes(f *testing.F) {
	f.Fuzz(func(t *testing.T, ops []byte, realHash bool) {
		_, n, node := fuzzNode(t)
		at := uint64(len(node.Log()))
		session := node.Status().Session
		for i := 0; i+2 < len(ops) && i < 3*64; i += 3 {
			kind := crypto.KindDrop
			if ops[i]&1 == 1 {
				kind = crypto.KindSettle
			}
			who := int(ops[i]>>1) % len(n.peers)
			seq := at + uint64(ops[i+1]%4) - 1
			var seats []int
			for s := 0; s < 3; s++ {
				if ops[i+2]&(1<<s) != 0 {
					seats = append(seats, s)
				}
			}
			body := encodeSeats(seats)
			if ops[i+2]&0x80 != 0 {
				body = []byte{ops[i+2]} // whatever a modified client sends
			}
			env := &crypto.Envelope{Session: session, Seq: seq, Kind: kind, Body: body}
			if hashes := node.Hashes(); kind == crypto.KindDrop && realHash && len(hashes) > 0 {
				env.StateHash = hashes[len(hashes)-1]
			}
			_ = node.Step(n.signAs(who, env))
			node.Tick(int64(i) * 1000)
			for node.HasReady() {
				node.Ready()
				node.Advance()
			}
		}
		if _, err := Verify(node.Log(), testGames); err != nil {
			t.Fatalf("the node's log no longer verifies: %v", err)
		}
	})
}

// fuzzSeeds are the committed seed corpora: the golden bodies, each
// truncated and extended, and the edge cases that once crashed a node.
func fuzzSeeds(t *testing.T) map[string][][]any {
	a, b := vectorIdentity(t, 0x00), vectorIdentity(t, 0x20)
	join := (&joinBody{Name: "Ada", Commitment: fillHash(0x55), ChainLen: 1024, Game: "dicerace", Version: "dicerace/1",
		Options: engine.Options{{Name: "goal", Value: "20"}}}).encode()
	members := []Member{{ID: a.ID(), Name: "Ada", Commitment: fillHash(0x55), ChainLen: 1024},
		{ID: b.ID(), Name: "Bo", Commitment: fillHash(0x66), ChainLen: 1024}}
	if members[0].ID > members[1].ID {
		members[0], members[1] = members[1], members[0]
	}
	roster := (&rosterBody{Lobby: fillHash(0x44), Game: "dicerace", Version: "dicerace/1", Members: members}).encode()
	x := &crypto.Envelope{Session: fillHash(1), Seq: 3, Kind: crypto.KindAction, Body: []byte{1, 1, 0}}
	y := &crypto.Envelope{Session: fillHash(1), Seq: 3, Kind: crypto.KindAction, Body: []byte{1, 2, 0}}
	crypto.Sign(a, x)
	crypto.Sign(a, y)
	evidence := encodeEvidence(x, y)
	state := (&stateBody{From: 2, Hashes: []crypto.Hash{fillHash(1), fillHash(2)}, State: []byte{3}}).encode()
	variants := func(b []byte) [][]any {
		return [][]any{{b}, {b[:len(b)/2]}, {append(append([]byte(nil), b...), 0)}, {[]byte{}}}
	}
	return map[string][][]any{
		"FuzzDecodeJoin":     variants(join),
		"FuzzDecodeRoster":   variants(roster),
		"FuzzDecodeExtend":   variants((&extendBody{Commitment: fillHash(0x88), ChainLen: 1024}).encode()),
		"FuzzDecodeSeats":    {{encodeSeats([]int{1, 3}), uint8(4)}, {encodeSeats([]int{3, 1}), uint8(4)}, {encodeSeats([]int{1, 3}), uint8(2)}, {[]byte{0}, uint8(0)}},
		"FuzzDecodeEvidence": variants(evidence),
		"FuzzDecodeState":    variants(state),
		"FuzzDropVotes": {
			{[]byte{}, false},
			// Seats 1 and 2 vote seat 0 (this node) out at its position,
			// then settle on it, then settle on another drop.
			{[]byte{2, 1, 1, 4, 1, 1, 3, 1, 1, 5, 1, 1, 3, 1, 2}, true},
			{[]byte{1, 1, 6, 3, 1, 6, 5, 1, 6, 0, 0, 0x81, 1, 3, 7}, true},
		},
		"FuzzStateEnvelope": {
			{uint64(math.MaxUint64), uint64(0), uint16(0), false, []byte{}, uint8(0)}, // seq-from+1 wraps to 0
			{uint64(math.MaxUint64), uint64(math.MaxUint64), uint16(1), false, []byte{}, uint8(1)},
			{uint64(5), uint64(0), uint16(6), true, []byte{}, uint8(0)},   // agrees with the log
			{uint64(5), uint64(2), uint16(4), false, []byte{1}, uint8(0)}, // a made-up history
			{uint64(40), uint64(30), uint16(11), true, []byte{}, uint8(1)},
			{uint64(7), uint64(8), uint16(1), true, []byte{}, uint8(1)},
		},
	}
}

// TestWriteFuzzSeeds writes the seed corpora with -write-fuzz-seeds, and
// otherwise checks that the committed ones are what fuzzSeeds says.
func TestWriteFuzzSeeds(t *testing.T) {
	for target, seeds := range fuzzSeeds(t) {
		dir := filepath.Join("testdata", "fuzz", target)
		for i, args := range seeds {
			var b bytes.Buffer
			b.WriteString("go test fuzz v1\n")
			for _, a := range args {
				switch v := a.(type) {
				case []byte:
					fmt.Fprintf(&b, "[]byte(%q)\n", v)
				default:
					fmt.Fprintf(&b, "%T(%v)\n", v, v)
				}
			}
			path := filepath.Join(dir, fmt.Sprintf("seed%d", i))
			if *writeFuzzSeeds {
				if err := os.MkdirAll(dir, 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
				continue
			}
			got, err := os.ReadFile(path)
			if err != nil || !bytes.Equal(got, b.Bytes()) {
				t.Errorf("%s is missing or stale (go test -run TestWriteFuzzSeeds -write-fuzz-seeds): %v", path, err)
			}
		}
	}
}
