package cli

import (
	"os"
	"runtime"
	"runtime/debug"
	"strings"
)

// This file holds how a boardmesh process keeps its memory small: the Go
// collector's settings and heap profiling (issue 14's aims and
// figures are in docs/performance.md, "Memory").

// peerMemoryLimit is the Go runtime's soft memory limit in a process that
// runs one peer (host, join, resume). Every buffer of a peer is bounded
// (lockstep's per author, the topic's and gossipsub's per peer and in
// time, the stream windows), and what is live stays under 30 MB even
// under a member's flood (heap profiles of TestFloodMemory's peers); but
// the collector's default lets the heap grow to twice what is live before
// it collects, idle heap goes back to the system slowly, and a flood of
// 1 MiB messages, each read and decoded before gossipsub can cut it,
// makes garbage fast. Under the limit it collects sooner and gives memory
// back, so a flooded peer stays well under the 100 MB resident that
// issue 10 allows (the binary's own pages are some 20 MB of it). It is a
// soft limit: a peer that really needs more gets it (the collector then
// runs more often, at most half the CPU). GOMEMLIMIT, if set, wins.
const peerMemoryLimit = 64 << 20

// tableMemoryLimit is the soft limit of `play`, which runs a whole local
// table (up to eight peers) in one process. What is live stays small: a
// heap profile of a 4-peer secret Dragon's Lair table at step 150 holds
// about 11 MB (card points, buffers, gossipsub's caches), but with the
// collector's default the heap grew to two or three times that and the
// process to 67-69 MB resident (issue 14 asks for under 60). At 32 MiB the
// collector runs a little more often for the same CPU (3.3-3.7 s of a game
// either way in `/usr/bin/time`; 24 MiB cost 40% more CPU), and the
// process stays at 53-55 MB. It is soft: a table that needs more gets it.
const tableMemoryLimit = 32 << 20

// peerGCPercent is the collector's GOGC in a process that runs one peer.
// What a peer keeps live is small, 4-6 MB at a 4-peer secret table
// (gctrace of a `join`), so the default of 100 lets the heap reach 10-12
// MB before each collection, and the resident set with it. At 50 the heap
// stayed within 1.5 times what is live, 3-4 MB less resident; at 30,
// since the card envelopes went to disk (a Dominion peer holds 4.5 MB
// live at the end), a Dominion peer is another 1-1.5 MB under (37.3-39.7
// MB against 38.9-39.9 in alternated tables), which is what keeps it
// under issue 14's 40 MB with a margin, for collections about 1.7 times
// as often, each of a few milliseconds over so small a heap (the
// processes' CPU was the same within the games' spread). A flood makes
// garbage fast, but what is live stays bounded, so this costs a flooded
// peer collections, not memory. GOGC, if set, wins.
const peerGCPercent = 30

// limitPeerMemory sets the collector for the command about to run: the
// soft limit for the commands that run peers, GOGC for one peer, and no
// heap profiling in either.
//
// Heap profiling is on by default in every Go program (one allocation in
// 512 KiB is sampled), and each call stack it samples takes a bucket in a
// hash table of 1.4 MB that the runtime allocates at the first sample and
// touches at random: at a Dominion table, where the peers run many
// different paths, 2.2 MB of the runtime's memory was that table and its
// buckets, and turning it off took 2-3 MB off each peer's resident set.
// boardmesh writes no heap profiles; GODEBUG=memprofilerate=N, if set,
// wins, for a developer who wants one.
func limitPeerMemory(command string) {
	limit := int64(peerMemoryLimit)
	switch command {
	case "host", "join", "resume":
		if os.Getenv("GOGC") == "" {
			debug.SetGCPercent(peerGCPercent)
		}
	case "play":
		limit = tableMemoryLimit
	default:
		return
	}
	if !strings.Contains(os.Getenv("GODEBUG"), "memprofilerate") {
		runtime.MemProfileRate = 0
	}
	if os.Getenv("GOMEMLIMIT") != "" {
		return
	}
	debug.SetMemoryLimit(limit)
}
