package mentalpoker_test

import (
	"fmt"
	"math/rand/v2"

	mp "github.com/boardmesh/boardmesh/crypto/mentalpoker"
)

// Example plays the usage loop at a 3-seat table with a 10-card deck: each
// seat's key and proof, the shuffle chain, a private draw to seat 2, and
// seat 2 revealing the card. In a game, every []byte below travels in a
// signed envelope and every Verify runs on every peer.
func Example() {
	rnd := rand.NewChaCha8([32]byte{7}) // a seeded reader: the output is reproducible
	ctx := func(kind string, seq uint64) mp.Context {
		return mp.Context{Session: [32]byte{0xab}, Seq: seq, Kind: kind}
	}
	const seats, cards = 3, 10

	// Setup: keys with proofs, the joint key.
	var sks []*mp.SecretKey
	var pks []mp.PublicKey
	for seat := 0; seat < seats; seat++ {
		sk, _ := mp.GenerateKey(rnd)
		prf, _ := mp.ProveKey(rnd, ctx("setup", 1), seat, sk)
		pk, _ := mp.ParsePublicKey(sk.Public().Bytes()) // as a peer receives it
		if err := mp.VerifyKey(ctx("setup", 1), seat, pk, prf); err != nil {
			fmt.Println(err)
			return
		}
		sks, pks = append(sks, sk), append(pks, pk)
	}
	joint, _ := mp.JointKey(pks)

	// The shuffle chain, in seat order.
	deck, _ := mp.OpenDeck(cards)
	for seat := 0; seat < seats; seat++ {
		out, prf, _ := mp.Shuffle(rnd, ctx("shuffle", uint64(2+seat)), seat, joint, deck)
		if err := mp.VerifyShuffle(ctx("shuffle", uint64(2+seat)), seat, joint, deck, out, prf); err != nil {
			fmt.Println(err)
			return
		}
		deck = out
	}

	// Seat 2 (index 1) draws the top card: seats 1 and 3 post shares.
	top := deck[0]
	var shares []mp.Share
	for _, seat := range []int{0, 2} {
		s, _ := mp.MakeShare(rnd, ctx("draw", 5), seat, sks[seat], top)
		v, err := mp.VerifyShare(ctx("draw", 5), seat, pks[seat], top, s.Bytes())
		if err != nil {
			fmt.Println(err)
			return
		}
		shares = append(shares, v)
	}
	card, _ := mp.OpenPrivate(sks[1], 1, top, shares, seats, cards)
	fmt.Println("seat 2 privately drew card", card)

	// Later seat 2 reveals it: its own share completes the set.
	own, _ := mp.MakeShare(rnd, ctx("reveal", 9), 1, sks[1], top)
	ownV, _ := mp.VerifyShare(ctx("reveal", 9), 1, pks[1], top, own.Bytes())
	fmt.Println("the reveal checks:", mp.VerifyReveal(top, append(shares, ownV), seats, cards, card) == nil)
	// Output:
	// seat 2 privately drew card 0
	// the reveal checks: true
}
