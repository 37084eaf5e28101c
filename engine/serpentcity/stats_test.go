package serpentcity

import (
	"math"
	"strings"
	"testing"
)

func TestWilsonInterval(t *testing.T) {
	lo, hi := wilson(50, 100)
	if math.Abs(lo-0.404) > 0.001 || math.Abs(hi-0.596) > 0.001 {
		t.Fatalf("Wilson(50/100) = %.3f–%.3f, want 0.404–0.596", lo, hi)
	}
	if lo, hi := wilson(0, 10); lo > 1e-9 || hi < 0.27 || hi > 0.29 {
		t.Fatalf("Wilson(0/10) = %.3f–%.3f", lo, hi)
	}
}

func TestStatsReportEndsAndSources(t *testing.T) {
	st := NewStats()
	for i := 0; i < 6; i++ {
		s := playBotGame(t, 3, "strategy", i)
		st.Finish(s)
	}
	byIP, sum := 0.0, 0.0
	for _, m := range st.Report() {
		if m.Name == "ended by IP" {
			byIP = m.Value
		}
		if strings.HasPrefix(m.Name, "IP share ") {
			sum += m.Value
		}
	}
	if byIP <= 0 || math.Abs(sum-1) > 1e-9 {
		t.Fatalf("ended by IP %.2f, source shares add to %.3f", byIP, sum)
	}
}
