package p2p

import (
	"github.com/boardmesh/boardmesh/crypto"
	"github.com/libp2p/go-libp2p/core/peer"
)

// Stage is a point on the way of another peer's envelope through this
// peer, from gossipsub to the log: `bench net` times an action at each
// one, at the first and the last peer to reach it, to show where its
// commit latency goes (RunnerConfig.OnStage).
type Stage int

const (
	// StageValidating: the topic validator has the envelope, before the
	// guard's checks and the signature check.
	StageValidating Stage = iota
	// StageValidated: the validator accepted it; gossipsub then forwards
	// it and hands it to the subscription.
	StageValidated
	// StageReceived: the runner's reader took it from the subscription.
	StageReceived
	// StageStepped: the node has stepped it (lockstep's checks, and the
	// engine if it committed).
	StageStepped
	// StageLogged: the batch that committed it is written to the log
	// (before the runner's update, and before any fsync).
	StageLogged
	stageCount
)

var stageNames = [stageCount]string{"validating", "validated", "received", "stepped", "logged"}

func (s Stage) String() string {
	if s < 0 || s >= stageCount {
		return "stage?"
	}
	return stageNames[s]
}

// stagedVerifier is verify, reporting each envelope it accepts to
// onStage before and after the checks. Without onStage it is verify
// itself; with it, each message is decoded once more before the checks,
// which only a measurement pays for.
func stagedVerifier(verify Verifier, onStage func(Stage, *crypto.Envelope)) Verifier {
	if onStage == nil {
		return verify
	}
	return func(from peer.ID, data []byte) (Verdict, any) {
		envs, _ := crypto.UnmarshalMessage(data)
		for _, env := range envs {
			onStage(StageValidating, env)
		}
		v, checked := verify(from, data)
		if envs, ok := checked.([]*crypto.Envelope); ok && v == Accept {
			for _, e := range envs {
				onStage(StageValidated, e)
			}
		}
		return v, checked
	}
}
