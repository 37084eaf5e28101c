package p2p

import (
	"bufio"
	"bytes"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"flag"
	"fmt"
	"testing"

	"github.com/boardmesh/boardmesh/engine/golden"

	"github.com/boardmesh/boardmesh/crypto"
	"github.com/boardmesh/boardmesh/lockstep"
)

var printNetVectors = flag.Bool("print-net", false, "print the network vectors in the format of docs/protocol.md")

// TestNetworkVectors checks the stream framings and the admit challenge
// of docs/protocol.md §9 against the code, so an implementer can test
// theirs against the same bytes.
func TestNetworkVectors(t *testing.T) {
	t.Parallel()
	seed := make([]byte, 32)
	for i := range seed {
		seed[i] = byte(i)
	}
	id, err := crypto.GenerateIdentity(bytes.NewReader(seed))
	if err != nil {
		t.Fatal(err)
	}
	fill := func(b byte) (h crypto.Hash) {
		for i := range h {
			h[i] = b
		}
		return h
	}
	// The envelope of §8's vectors.
	env := &crypto.Envelope{Session: fill(0x11), Seq: 7, Kind: crypto.KindAction, StateHash: fill(0x22), Body: []byte{1, 1, 4}}
	crypto.Sign(id, env)
	frames := func(items [][]byte) []byte {
		var b bytes.Buffer
		w := bufio.NewWriter(&b)
		if err := writeFrames(w, items); err != nil {
			t.Fatal(err)
		}
		w.Flush()
		return b.Bytes()
	}
	frame := func(q []byte) []byte {
		var b bytes.Buffer
		w := bufio.NewWriter(&b)
		writeFrame(w, q)
		w.Flush()
		return b.Bytes()
	}
	var nonce [32]byte
	copy(nonce[:], bytes.Repeat([]byte{0x55}, 32))
	msg := AdmitMessage(fill(0x44), nonce)
	logHash := sha256.New()
	for _, e := range [][]byte{env.Marshal(), env.Marshal()} {
		logHash.Write(binary.BigEndian.AppendUint32(nil, uint32(len(e))))
		logHash.Write(e)
	}
	v := []golden.Vector{
		{"net.topic_lobby44", TopicName(fill(0x44).String())},
		{"net.max_envelope", fmt.Sprint(MaxEnvelope)},
		{"net.message_id_of_envelope", hex.EncodeToString(func() []byte { s := sha256.Sum256(env.Marshal()); return s[:] }())},
		{"net.query_serve_300", hex.EncodeToString(binary.AppendUvarint(nil, 300))},
		{"net.query_committed_300", hex.EncodeToString(CommittedQuery(300))},
		{"net.query_answer_300", hex.EncodeToString(AnswerQuery(300))},
		{"net.request_answer_300", hex.EncodeToString(frame(AnswerQuery(300)))},
		{"net.query_answer_no_cards_300", hex.EncodeToString(NoCardsQuery(300))},
		{"net.reply_serve_one_envelope", hex.EncodeToString(frames([][]byte{env.Marshal()}))},
		{"net.reply_answer_from5_1entry_1pending", hex.EncodeToString(frames(EncodeAnswer(lockstep.GapAnswer{From: 5,
			Entries: []*crypto.Envelope{env}, Pending: []*crypto.Envelope{env}})))},
		{"net.admit_message_lobby44_nonce55", hex.EncodeToString(msg)},
		{"net.admit_signature", hex.EncodeToString(ed25519.Sign(id.PrivateKey(), msg))},
		{"net.log_hash_of_envelope_twice", hex.EncodeToString(logHash.Sum(nil))},
	}
	golden.Check(t, "../docs/protocol.md", v, *printNetVectors)
}
