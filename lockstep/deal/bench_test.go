package deal

import (
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/boardmesh/boardmesh/crypto"
)

// cpuNow is this thread's CPU time, or the wall clock where there is none.
func cpuNow() int64 {
	if c := threadCPU(); c >= 0 {
		return c
	}
	return time.Now().UnixNano()
}

// schedule replays a table's setup as if every seat had a core of its
// own and the network took latency per broadcast: each Step and Work is
// run for real, its CPU time measured, and the seat's clock advanced by
// it; an envelope leaves when the step that made it ends and reaches the
// others latency later. A seat steps every envelope that has arrived
// before it works (its own shuffle first, then the checks: Machine.Work's
// order), and idles when it has nothing. The result is the time at which
// every seat has its deck ready: the pipelined schedule's critical path.
type schedule struct {
	tb      *table
	latency int64
	clock   []int64
	inbox   [][]arrival
	ready   []int64 // by seat: when its deck got ready, -1 before
	escrow  []int64 // by seat: when its escrows had all checked, -1 before (or with 2 seats)
	cpu     []int64 // by seat
	steps   int
	maxStep int64
	// CPU of Work by what it did: a shuffle made (prove) or checked.
	prove, check   int64
	proves, checks int
}

type arrival struct {
	at  int64
	env *crypto.Envelope
}

func newSchedule(tb *table, latency time.Duration) *schedule {
	n := len(tb.ms)
	s := &schedule{tb: tb, latency: int64(latency), clock: make([]int64, n), inbox: make([][]arrival, n),
		ready: make([]int64, n), escrow: make([]int64, n), cpu: make([]int64, n)}
	for i := range s.ready {
		s.ready[i], s.escrow[i] = -1, -1
	}
	// The keys New signed, which newTable has collected already.
	for _, env := range tb.queue {
		for k := range tb.ms {
			if tb.ids[k].ID() != env.Author {
				s.inbox[k] = append(s.inbox[k], arrival{s.latency, env})
			}
		}
	}
	tb.queue = nil
	s.drain(-1, 0)
	return s
}

// drain takes seat i's Ready (all seats' when i < 0) at time t.
func (s *schedule) drain(i int, t int64) {
	for j, m := range s.tb.ms {
		if i >= 0 && j != i {
			continue
		}
		for m.HasReady() {
			rd := m.Ready()
			for _, env := range rd.Messages {
				s.tb.bytes += env.Size()
				s.tb.sent++
				for k := range s.tb.ms {
					if k != j {
						s.inbox[k] = append(s.inbox[k], arrival{t + s.latency, env})
					}
				}
			}
			for _, e := range rd.Events {
				if e.Kind == EventDeckReady {
					s.ready[j] = t
				}
				if e.Kind == EventEscrows {
					s.escrow[j] = t
				}
				if e.Kind == EventCheat {
					s.tb.t.Fatalf("seat %d: %s", j+1, e.Text)
				}
			}
			s.tb.events[j] = append(s.tb.events[j], rd.Events...)
			m.Advance()
		}
	}
}

// next is seat i's next action and when it can start: an arrived
// envelope first, then work, then the earliest envelope still on its way.
func (s *schedule) next(i int) (start int64, idx int, work bool, ok bool) {
	best := -1
	for k, a := range s.inbox[i] {
		if best < 0 || a.at < s.inbox[i][best].at {
			best = k
		}
	}
	if best >= 0 && s.inbox[i][best].at <= s.clock[i] {
		return s.clock[i], best, false, true
	}
	if s.tb.ms[i].HasWork() {
		return s.clock[i], -1, true, true
	}
	if best >= 0 {
		return s.inbox[i][best].at, best, false, true
	}
	return 0, 0, false, false
}

func (s *schedule) run() {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	for {
		who, start, idx, work := -1, int64(0), 0, false
		for i := range s.tb.ms {
			st, k, w, ok := s.next(i)
			if ok && (who < 0 || st < start) {
				who, start, idx, work = i, st, k, w
			}
		}
		if who < 0 {
			return
		}
		m := s.tb.ms[who]
		t0 := cpuNow()
		if work {
			m.Work()
		} else {
			env := s.inbox[who][idx].env
			s.inbox[who] = append(s.inbox[who][:idx], s.inbox[who][idx+1:]...)
			if err := m.Step(env); err != nil {
				s.tb.t.Fatalf("seat %d: %v", who+1, err)
			}
		}
		d := cpuNow() - t0
		if work {
			made := false
			for _, e := range m.rd.Messages {
				made = made || e.Kind == crypto.KindShuffle
			}
			if made {
				s.prove += d
				s.proves++
			} else {
				s.check += d
				s.checks++
			}
		}
		s.steps++
		s.maxStep = max(s.maxStep, d)
		s.cpu[who] += d
		s.clock[who] = start + d
		s.drain(who, s.clock[who])
	}
}

// BenchmarkSetup is the setup of one 120-card deck (keys, then the
// shuffle chain, and the escrows at 3+ seats) at 2, 4 and 8 seats, scheduled as on separate machines
// (schedule): critical-ms is when the last seat has the deck ready, with a
// broadcast taking latency-ms; seat-cpu-ms the most CPU one seat spent;
// max-step-ms the longest single Step or Work (a shuffle proof check);
// shuffle-ms and check-ms the mean CPU of a Work that made a shuffle
// (with its proof) and of one that checked another seat's;
// bytes everything broadcast once (a gossip fan-out multiplies it).
func BenchmarkSetup(b *testing.B) {
	for _, peers := range []int{2, 4, 8} {
		for _, lat := range []time.Duration{0, 2 * time.Millisecond} {
			b.Run(fmt.Sprintf("peers=%d/cards=120/latency=%v", peers, lat), func(b *testing.B) {
				var crit, seatCPU, maxStep, bytes, msgs, prove, check float64
				for it := 0; it < b.N; it++ {
					tb := newTable(b, peers, []Deck{seqDeck(0, 120, 0)})
					s := newSchedule(tb, lat)
					s.run()
					end := int64(0)
					for i, r := range s.ready {
						if r < 0 || (peers >= 3 && s.escrow[i] < 0) {
							b.Fatalf("seat %d never got its deck or its escrows", i+1)
						}
						end = max(end, r, s.escrow[i])
					}
					most := int64(0)
					for _, c := range s.cpu {
						most = max(most, c)
					}
					crit += float64(end) / 1e6
					seatCPU += float64(most) / 1e6
					maxStep += float64(s.maxStep) / 1e6
					bytes += float64(tb.bytes)
					prove += float64(s.prove) / float64(s.proves) / 1e6
					check += float64(s.check) / float64(max(s.checks, 1)) / 1e6
					msgs += float64(tb.sent)
				}
				n := float64(b.N)
				b.ReportMetric(crit/n, "critical-ms")
				b.ReportMetric(seatCPU/n, "seat-cpu-ms")
				b.ReportMetric(maxStep/n, "max-step-ms")
				b.ReportMetric(prove/n, "shuffle-ms")
				b.ReportMetric(check/n, "check-ms")
				b.ReportMetric(bytes/n, "bytes")
				b.ReportMetric(msgs/n, "envelopes")
			})
		}
	}
}

// BenchmarkDraw is one private draw after setup: the batch from Open
// until the drawer knows its card, every seat's CPU in one process
// (ns/op), and its bytes (one share envelope per other seat).
func BenchmarkDraw(b *testing.B) {
	for _, peers := range []int{2, 4, 8} {
		b.Run(fmt.Sprintf("peers=%d", peers), func(b *testing.B) {
			tb := newTable(b, peers, []Deck{seqDeck(0, 120, 0)})
			tb.run()
			b.ResetTimer()
			tb.bytes = 0
			for it := 0; it < b.N; it++ {
				p := uint16(it % 120)
				if it >= 120 {
					b.Skip("deck exhausted")
				}
				tb.open(Opening{Deck: 0, Pos: p, To: 0})
				tb.run()
				if _, ok := tb.ms[0].Card(Handle{Deck: 0, Pos: p}); !ok {
					b.Fatal("not drawn")
				}
			}
			b.ReportMetric(float64(tb.bytes)/float64(b.N), "bytes/draw")
		})
	}
}
