package agent

import (
	"fmt"
	"math"
	"math/rand/v2"
	"syscall"
	"testing"
	"time"

	"github.com/cbandit/cbandit/bandit"
	"github.com/cbandit/cbandit/domain"
)

// BenchmarkOfflineDecide: one decision of lognei on a d-dimensional box
// with m constraints (Ackley with SCBO's two constraints, and m − 2
// half-spaces that hold at the origin) after 200 observations, half of
// them imposed at random points so the fit sees the box; fitted models in
// place, nothing pending. d = 4 with 5 constraints and 7 with 11 (the
// shapes of the welded beam and the speed reducer): the whole box's search
// (BFGS from every start, box-polish=each), also with generation 12's
// polish-trials=full ("/full"), the opt-in polish-search=interp
// ("/interp") and polish-grad=adjoint ("/adjoint"); 10
// and 20: the trust region with an evaluation that met every limit
// (region-points candidates);
// "20/none-feasible": ‖x‖ ≤ −1, which no point meets, so the region draws
// SCBO's 4,000 candidates (levy20's rounds before its first feasible
// evaluation). cpu-ns/op is the figure to hold against a third of Optuna
// GPSampler's CPU time per trial over 200 trials (docs/offline.md,
// "Cost").
func BenchmarkOfflineDecide(b *testing.B) {
	for _, c := range []struct {
		d, m int
		none bool   // no point feasible
		k, v string // a parameter
	}{{4, 5, false, "", ""}, {4, 5, false, "polish-trials", "full"}, {4, 5, false, "polish-search", "interp"}, {4, 5, false, "polish-grad", "adjoint"},
		{7, 11, false, "", ""}, {7, 11, false, "polish-trials", "full"}, {7, 11, false, "polish-search", "interp"}, {7, 11, false, "polish-grad", "adjoint"},
		{10, 2, false, "", ""}, {20, 2, false, "", ""}, {20, 2, true, "", ""}} {
		name := fmt.Sprintf("d=%d/m=%d", c.d, c.m)
		if c.none {
			name += "/none-feasible"
		}
		var ps bandit.Params
		if c.k != "" {
			name += "/" + c.v
			ps = bandit.Params{c.k: c.v}
		}
		b.Run(name, func(b *testing.B) {
			d := c.d
			lo, hi := make([]float64, d), make([]float64, d)
			for i := range lo {
				lo[i], hi[i] = -5, 10
			}
			box, _ := domain.NewBox(lo, hi)
			limit := 5.0 // ‖x‖ ≤ 5
			if c.none {
				limit = -1
			}
			f := func(x []float64) (float64, []float64) {
				var s2, sc, sum float64
				for _, v := range x {
					s2 += v * v
					sc += math.Cos(2 * math.Pi * v)
					sum += v
				}
				n := float64(len(x))
				ack := -20*math.Exp(-0.2*math.Sqrt(s2/n)) - math.Exp(sc/n) + 20 + math.E
				g := []float64{sum, math.Sqrt(s2) - limit}
				for j := 2; j < c.m; j++ { // Σ_i sin(j + i)·x_i ≤ 2
					h := -2.0
					for i, v := range x {
						h += math.Sin(float64(j+i)) * v
					}
					g = append(g, h)
				}
				return -ack, g
			}
			ag, err := New("lognei", Config{Info: bandit.Info{Domain: box, M: c.m}, Params: ps, Horizon: 400, Seed: 1})
			if err != nil {
				b.Fatal(err)
			}
			rng := rand.New(rand.NewPCG(1, 2))
			for r := 1; r <= 200; r++ {
				var dec bandit.Decision
				if rng.Float64() < 0.5 {
					x := make([]float64, d)
					for i := range x {
						x[i] = lo[i] + rng.Float64()*(hi[i]-lo[i])
					}
					dec, err = ag.(bandit.Imposer).Impose(&bandit.Round{T: r}, bandit.PointAction(x))
				} else {
					dec, err = ag.Decide(&bandit.Round{T: r})
				}
				if err != nil {
					b.Fatal(err)
				}
				y, c := f(dec.Action.X)
				if err := ag.Observe(bandit.Feedback{ID: dec.ID, Reward: y, HasReward: true, Costs: c}); err != nil {
					b.Fatal(err)
				}
			}
			if got := ag.(*LogNEI).ledger.anyFeasible(); got == c.none {
				b.Fatalf("an evaluation met every limit: %v, want %v", got, !c.none)
			}
			b.ResetTimer()
			c0 := cpuTime()
			for i := 0; i < b.N; i++ {
				dec, err := ag.Decide(&bandit.Round{T: 201})
				if err != nil {
					b.Fatal(err)
				}
				b.StopTimer()
				if err := ag.(bandit.Abandoner).Abandon(dec.ID); err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
			}
			b.ReportMetric(float64(cpuTime()-c0)/float64(b.N), "cpu-ns/op") // with the abandons, O(1) each
		})
	}
}

// cpuTime is the process's user and system time: on a machine shared with
// other work, a benchmark's CPU time per op is what its wall time is not.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
