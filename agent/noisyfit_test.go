package agent

import (
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	"github.com/cbandit/cbandit/bandit"
	"github.com/cbandit/cbandit/domain"
	"github.com/cbandit/cbandit/gp"
	"github.com/cbandit/cbandit/model"
)

// TestNoisyFitSettles: lognei with noisy-prior=optuna and noisy-refit=1 on
// the 2-D problem of lockInRun decides once, at FirstFit = 8 observations,
// whether the study is noisy: observed exactly, it is not (its models are
// left to the doubling schedule); observed with noise of std 0.3 on f and
// g (their spreads about 0.4), it is.
func TestNoisyFitSettles(t *testing.T) {
	for _, noise := range []float64{0, 0.3} {
		ag := lognei2D(t, 30, bandit.Params{"noisy-prior": "optuna", "noisy-refit": "1"})
		rng := rand.New(rand.NewPCG(3, 4))
		for r := 1; r <= 12; r++ {
			noisy2DRound(t, ag, r, noise, rng)
			if nf := ag.(*LogNEI).noisyFit; nf.settled != (r >= 9) || nf.noisy != (r >= 9 && noise > 0) {
				t.Fatalf("noise %v, round %d: settled %v, noisy %v", noise, r, nf.settled, nf.noisy)
			}
		}
	}
}

// TestNoisyFinalRefitsKept: with noisy-prior=optuna, lognei with
// noisy-final=kept decides as with noisy-final=search until the
// confirmation's first round (28 of 30), where every model refits under
// the kept priors, so the fitted kernels differ from there; noise-free the
// study is not noisy and nothing refits.
func TestNoisyFinalRefitsKept(t *testing.T) {
	for _, noise := range []float64{0, 0.3} {
		ags := []bandit.Agent{
			lognei2D(t, 30, bandit.Params{"noisy-prior": "optuna", "noisy-final": "search"}),
			lognei2D(t, 30, bandit.Params{"noisy-prior": "optuna", "noisy-final": "kept"}),
		}
		rngs := []*rand.Rand{rand.New(rand.NewPCG(3, 4)), rand.New(rand.NewPCG(3, 4))}
		for r := 1; r <= 28; r++ {
			var xs [2][]float64
			for i, ag := range ags {
				xs[i] = noisy2DRound(t, ag, r, noise, rngs[i])
			}
			if r < 28 && !slices.Equal(xs[0], xs[1]) {
				t.Fatalf("noise %v, round %d: %v and %v before the confirmation", noise, r, xs[0], xs[1])
			}
			kept := ags[1].(*LogNEI)
			if want := r >= 28 && noise > 0; kept.noisyFit.restored != want {
				t.Fatalf("noise %v, round %d: restored %v", noise, r, kept.noisyFit.restored)
			}
		}
		if noise == 0 {
			continue
		}
		same := true
		for j, m := range ags[0].(*LogNEI).ms {
			k0, l0 := m.(*model.Adaptive).Kernel()
			k1, l1 := ags[1].(*LogNEI).ms[j].(*model.Adaptive).Kernel()
			same = same && l0 == l1 && reflect.DeepEqual(k0, k1)
		}
		if same {
			t.Fatal("noisy-final=kept: the fits are the search's")
		}
	}
}

// TestNoisyPriorAuto: noisy-prior=auto takes GPSampler's
// priors on a box of NoisyPriorDim dimensions and more, the kept ones
// below, where no trial fit runs: on the 2-D problem at noise 0.3 the
// study is never tested, so it decides as before.
func TestNoisyPriorAuto(t *testing.T) {
	for _, d := range []int{NoisyPriorDim - 1, NoisyPriorDim} {
		box := unitBox(t, d)
		n, err := readNoisyFit("lognei", bandit.Params{"noisy-prior": "auto"})
		if err != nil {
			t.Fatal(err)
		}
		k, _ := gp.NewSE(0.2, 1)
		m, err := model.NewAdaptive(box, k, 0.01, model.AdaptiveOptions{Standardise: true, Fit: true, Candidates: model.GridPoints(box, 2)})
		if err != nil {
			t.Fatal(err)
		}
		if err := n.settle([]model.Model{m}, box); err != nil {
			t.Fatal(err)
		}
		if want := d >= NoisyPriorDim; (n.prior == model.NoisyPriorOptuna) != want || n.on() != want {
			t.Fatalf("%d dimensions: prior %d, on %v", d, n.prior, n.on())
		}
	}
	ag := lognei2D(t, 30, bandit.Params{"noisy-prior": "auto", "noisy-final": "kept"})
	rng := rand.New(rand.NewPCG(3, 4))
	for r := 1; r <= 12; r++ {
		noisy2DRound(t, ag, r, 0.3, rng)
	}
	if nf := ag.(*LogNEI).noisyFit; nf.settled || nf.noisy {
		t.Fatalf("2-D, noisy: settled %v, noisy %v; want no trial fit", nf.settled, nf.noisy)
	}
}

// TestNoisyPriorConstraints: noisy-prior=constraints on a box of
// NoisyPriorDim dimensions whose two metrics are noisy refits the
// constraint's model as auto does (GPSampler's priors: the same kernel)
// and leaves the objective's as it was; below NoisyPriorDim nothing runs.
func TestNoisyPriorConstraints(t *testing.T) {
	d := NoisyPriorDim
	box := unitBox(t, d)
	pair := func() []model.Model {
		k, _ := gp.NewSE(0.2, 1)
		rng := rand.New(rand.NewPCG(5, 6))
		pts := domain.HaltonPoints(box.Lo, box.Hi, model.FirstFit(d), make([]float64, d))
		ms := make([]model.Model, 2)
		for j := range ms {
			m, err := model.NewAdaptive(box, k, 0.01, model.AdaptiveOptions{Standardise: true, Fit: true, Constraint: j == 1, Candidates: model.GridPoints(box, 2)})
			if err != nil {
				t.Fatal(err)
			}
			for _, x := range pts {
				y := x[0] - 0.5 + 0.5*rng.NormFloat64()
				if j == 0 {
					y = -x[1]*x[1] + 0.5*rng.NormFloat64()
				}
				if err := m.Observe(bandit.PointAction(x), y); err != nil {
					t.Fatal(err)
				}
			}
			ms[j] = m
		}
		return ms
	}
	kernels := func(ms []model.Model) [2]string {
		var out [2]string
		for j, m := range ms {
			k, lam := m.(*model.Adaptive).Kernel()
			out[j] = fmt.Sprint(k, lam)
		}
		return out
	}
	settled := func(choice string) ([2]string, noisyFit) {
		ms := pair()
		n, err := readNoisyFit("lognei", bandit.Params{"noisy-prior": choice})
		if err != nil {
			t.Fatal(err)
		}
		if err := n.settle(ms, box); err != nil {
			t.Fatal(err)
		}
		return kernels(ms), n
	}
	before := kernels(pair())
	cons, n := settled("constraints")
	auto, _ := settled("auto")
	if !n.noisy {
		t.Fatal("constraints: the study is not found noisy")
	}
	if cons[0] != before[0] {
		t.Errorf("constraints: the objective's fit moved: %s → %s", before[0], cons[0])
	}
	if cons[1] == before[1] || cons[1] != auto[1] {
		t.Errorf("constraints: the constraint's fit %s; auto's %s, before %s", cons[1], auto[1], before[1])
	}
	if auto[0] == before[0] {
		t.Error("auto: the objective's fit did not move (the test would not see a difference)")
	}
	below, err := readNoisyFit("lognei", bandit.Params{"noisy-prior": "constraints"})
	if err != nil {
		t.Fatal(err)
	}
	small := unitBox(t, d-1)
	if err := below.settle(nil, small); err != nil || below.on() || below.prior != model.NoisyPriorKept {
		t.Errorf("%d dims: on %v, prior %d, err %v", d-1, below.on(), below.prior, err)
	}
}

// noisy2DRound plays round r of lognei2D's problem, f = −‖x − (0.9, 0.9)‖²
// and g = x + y − 1, each observed with Gaussian noise of std noise drawn
// from rng (f's first), and returns the point played.
func noisy2DRound(t *testing.T, ag bandit.Agent, r int, noise float64, rng *rand.Rand) []float64 {
	t.Helper()
	d, err := ag.Decide(&bandit.Round{T: r})
	if err != nil {
		t.Fatal(err)
	}
	x, y := d.Action.X[0], d.Action.X[1]
	f, g := -((x-0.9)*(x-0.9) + (y-0.9)*(y-0.9)), x+y-1
	f, g = f+noise*rng.NormFloat64(), g+noise*rng.NormFloat64()
	if err := ag.Observe(bandit.Feedback{ID: d.ID, Reward: f, HasReward: true, Costs: []float64{g}}); err != nil {
		t.Fatal(err)
	}
	return d.Action.X
}

// TestFreshStarts: on the box [0, 1] × [2, 4] scored by −‖x − (0.3, 3.5)‖²
// (−∞ where x > 0.8), the best 3 of 600 uniform points, drawn again from
// the same seed, come back in order of their scores, the first the arg
// max of the draw, within 0.1 of (0.3, 3.5), and none where the score is −∞.
func TestFreshStarts(t *testing.T) {
	box, err := domain.NewBox([]float64{0, 2}, []float64{1, 4})
	if err != nil {
		t.Fatal(err)
	}
	score := func(x []float64) float64 {
		if x[0] > 0.8 {
			return math.Inf(-1)
		}
		return -((x[0]-0.3)*(x[0]-0.3) + (x[1]-3.5)*(x[1]-3.5))
	}
	batch := func(xs [][]float64, val []float64, _ [][]float64) error {
		for k, x := range xs {
			val[k] = score(x)
		}
		return nil
	}
	got, err := freshStarts(rand.New(rand.NewPCG(5, 6)), box, batch, 600, 3)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 {
		t.Fatalf("%d starts, want 3", len(got))
	}
	rng := rand.New(rand.NewPCG(5, 6))
	best, bestV := []float64(nil), math.Inf(-1)
	for range 600 {
		x := []float64{rng.Float64(), 2 + 2*rng.Float64()}
		if v := score(x); v > bestV {
			best, bestV = x, v
		}
	}
	if !slices.Equal(got[0], best) || math.Hypot(best[0]-0.3, best[1]-3.5) > 0.1 {
		t.Fatalf("first start %v, the draw's best %v", got[0], best)
	}
	for k, x := range got {
		if x[0] > 0.8 || x[1] < 2 || x[1] > 4 || (k > 0 && score(x) > score(got[k-1])) {
			t.Fatalf("starts %v", got)
		}
	}
}

// TestNoisyCandidatesOnlyWhenNoisy: lognei with noisy-candidates=512 on
// the 2-D problem of lockInRun observed exactly is never noisy and decides
// as lognei, point for point; observed with noise of std 0.3 the study is
// noisy from round 9 and its search draws fresh points (its random stream
// moves on), so its decisions part from lognei's.
func TestNoisyCandidatesOnlyWhenNoisy(t *testing.T) {
	for _, noise := range []float64{0, 0.3} {
		ags := []bandit.Agent{
			lognei2D(t, 30, nil),
			lognei2D(t, 30, bandit.Params{"noisy-candidates": "512"}),
		}
		rngs := []*rand.Rand{rand.New(rand.NewPCG(3, 4)), rand.New(rand.NewPCG(3, 4))}
		same := true
		for r := 1; r <= 24; r++ {
			var xs [2][]float64
			for i, ag := range ags {
				xs[i] = noisy2DRound(t, ag, r, noise, rngs[i])
			}
			same = same && slices.Equal(xs[0], xs[1])
			if noise == 0 && !same {
				t.Fatalf("noise-free, round %d: %v and %v", r, xs[0], xs[1])
			}
		}
		if nf := ags[1].(*LogNEI).noisyFit; nf.noisy != (noise > 0) {
			t.Fatalf("noise %v: noisy %v", noise, nf.noisy)
		}
		if noise > 0 && same {
			t.Fatal("noisy: the same decisions with and without fresh candidates")
		}
	}
}
