package agent

import (
	"fmt"
	"testing"

	"github.com/cbandit/cbandit/bandit"
)

// BenchmarkRunGardner is the cost of docs/defaults.md, "Cost": one op is a whole
// run of T rounds (Decide + Observe, fits included) of an agent on
// gardner; us/round is the amortised cost of a round. practical is what
// whoever names no setting gets; fixed is the same agent with the
// problem's fixed prior (hyper=fixed); paper is PaperDefaults (the
// experiment files'). Target: practical within 3× of fixed. T=5000 takes
// minutes: run it with -benchtime 1x.
func BenchmarkRunGardner(b *testing.B) {
	settings := []struct {
		name string
		ps   bandit.Params
	}{
		{"practical", nil},
		{"fixed", bandit.Params{"hyper": "fixed"}},
		{"paper", bandit.Params{"standardise": "off", "hyper": "fixed", "widths": "theory", "candidates": "grid", "pending": "ignore", "refine": "step", "region": "global"}}, // experiment.PaperDefaults
	}
	for _, T := range []int{300, 5000} {
		for _, algo := range []string{"rpol-ucb", "config", "ckb-ucb"} {
			for _, s := range settings {
				b.Run(fmt.Sprintf("T=%d/%s/%s", T, algo, s.name), func(b *testing.B) {
					for i := 0; i < b.N; i++ {
						replayTrial(b, "gardner", algo, s.ps, 1, 0, T)
					}
					b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N*T), "us/round")
				})
			}
		}
	}
}
