package agent

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/cbandit/cbandit/bandit"
	"github.com/cbandit/cbandit/gp"
	"github.com/cbandit/cbandit/model"
	"github.com/cbandit/cbandit/problem"
)

// SCBO on a 3-D constrained box: the same seed gives the same decisions;
// its last 20 points, drawn in the trust region, are better on average than
// its first 10 (uniform in the box), and the best feasible point improves
// on those; a finite domain is refused.
func TestSCBO(t *testing.T) {
	p, err := problem.New("suite-ackley3", nil, 1)
	if err != nil {
		t.Fatal(err)
	}
	a := runDecisions(t, "scbo", p, nil, 60)
	b := runDecisions(t, "scbo", p, nil, 60)
	for i := range a {
		if !slices.Equal(a[i], b[i]) {
			t.Fatalf("decision %d: %v, then %v", i+1, a[i], b[i])
		}
	}
	costs := make([]float64, p.Info().M)
	best := func(xs [][]float64) float64 {
		v := math.Inf(-1)
		for _, x := range xs {
			f, err := p.Truth(&bandit.Round{T: 1}, bandit.PointAction(x), costs)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.ContainsFunc(costs, func(c float64) bool { return c > 0 }) {
				v = math.Max(v, f)
			}
		}
		return v
	}
	mean := func(xs [][]float64) float64 {
		v := 0.0
		for _, x := range xs {
			f, err := p.Truth(&bandit.Round{T: 1}, bandit.PointAction(x), costs)
			if err != nil {
				t.Fatal(err)
			}
			v += f / float64(len(xs))
		}
		return v
	}
	if early, late := mean(a[:10]), mean(a[40:]); !(late > early) {
		t.Errorf("mean value %v over the last 20 rounds, %v over the first 10", late, early)
	}
	if early, late := best(a[:10]), best(a); !(late > early) {
		t.Errorf("best feasible value %v after 60 rounds, %v after the first 10", late, early)
	}
	fin, err := problem.New("bernoulli-4arm", nil, 1)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := New("scbo", Config{Info: fin.Info(), Horizon: 10, Seed: 1}); err == nil {
		t.Error("scbo built on a finite domain")
	}
}

// SCBO's rule on a hand-built draw of f and two constraints at four
// points: with no point drawn feasible, the least total drawn violation
// (not the least largest one); with some drawn feasible, the best drawn f
// among them; an excluded point is never chosen.
func TestSCBORuleHandBuilt(t *testing.T) {
	all := []bool{true, true, true, true}
	f := []float64{4, 3, 2, 1}
	// violations: 0.5+0.5 = 1, 0.9+0 = 0.9, 0.2+0.8 = 1.0, 0+1.2 = 1.2
	infeasible := [][]float64{f, {0.5, 0.9, 0.2, -1}, {0.5, -3, 0.8, 1.2}}
	if i := scboRule(infeasible, all, nil); i != 1 {
		t.Errorf("no point drawn feasible: chose %d, want 1 (total violation 0.9)", i)
	}
	if i := scboRule(infeasible, []bool{true, false, true, true}, nil); i != 0 {
		t.Errorf("point 1 excluded: chose %d, want 0 (total violation 1, the earlier of the tie)", i)
	}
	feasible := [][]float64{f, {0.5, -1, 0.2, -1}, {0.5, -3, -0.1, -2}}
	if i := scboRule(feasible, all, nil); i != 1 {
		t.Errorf("points 1 and 3 drawn feasible: chose %d, want 1 (drawn f 3 against 1)", i)
	}
	if i := scboRule(feasible, []bool{false, false, true, true}, []float64{0, 0, 0.1, 0.1}); i != 3 {
		t.Errorf("point 1 excluded: chose %d, want 3", i)
	}
	if i := scboRule(feasible, []bool{false, false, false, false}, []float64{0.5, 0.4, 0.1, 0.3}); i != 2 {
		t.Errorf("every point excluded: chose %d, want 2 (least likely to fail)", i)
	}
}

// config with before-feasible=thompson, while no evaluation has met the
// limit (g = 1 + x₁ > 0 everywhere), from ⌈MeanFrom·T⌉ on: the
// decision is the point of the least drawn g among the trust region's SCBO
// points, replayed here with the same random stream; before it, CONFIG's
// decisions; the same seed gives the same decisions.
func TestConfigThompsonBeforeFeasible(t *testing.T) {
	box := unitBox(t, 3)
	run := func(ps bandit.Params, check bool) [][]float64 {
		ag, err := New("config", Config{Info: bandit.Info{Domain: box, M: 1}, Horizon: 40, Params: ps, Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		a := ag.(*ConfigAgent)
		var xs [][]float64
		for r := 1; r <= 16; r++ {
			var reg *region
			if r == 16 {
				reg = regionIf(a.trust, box, a.ledger, pending{})
				a.rng = rand.New(rand.NewPCG(5, 6))
			}
			d, err := a.Decide(&bandit.Round{T: r})
			if err != nil {
				t.Fatal(err)
			}
			x := d.Action.X
			xs = append(xs, slices.Clone(x))
			if r == 16 && check {
				if reg == nil {
					t.Fatal("no trust region after 15 evaluations")
				}
				rng := rand.New(rand.NewPCG(5, 6))
				pts := scboPoints(rng, box, reg, SCBOCandidates)
				n := len(pts)
				mean, cov, samp := make([]float64, n), make([]float64, n*n), gp.NewSampler(n)
				var g []float64
				for _, m := range a.ms {
					if err := model.AsJointPredictor(m).PredictJoint(pts, mean, cov); err != nil {
						t.Fatal(err)
					}
					g = make([]float64, n)
					if err := samp.Draw(rng, mean, cov, 1, g); err != nil {
						t.Fatal(err)
					}
				}
				least := 0
				for i := range g {
					if g[i] < g[least] {
						least = i
					}
				}
				if g[least] <= 0 {
					t.Fatalf("a point drawn feasible (g %v): the test wants none", g[least])
				}
				if !slices.Equal(x, pts[least]) {
					t.Errorf("round 16 played %v, want %v (the least drawn g, %v)", x, pts[least], g[least])
				}
			}
			y := -(x[0]*x[0] + x[1]*x[1] + x[2]*x[2])
			if err := a.Observe(bandit.Feedback{ID: d.ID, Reward: y, HasReward: true, Costs: []float64{1 + x[0]}}); err != nil {
				t.Fatal(err)
			}
		}
		return xs
	}
	th := bandit.Params{"before-feasible": "thompson"}
	a, b, opt := run(th, true), run(th, false), run(nil, false)
	for i := range a {
		if !slices.Equal(a[i], b[i]) {
			t.Fatalf("decision %d: %v, then %v", i+1, a[i], b[i])
		}
	}
	// ⌈MeanFrom·40⌉ = 14: before it the rule is CONFIG's, the same
	// decisions; from it, SCBO's.
	for i := range 13 {
		if !slices.Equal(a[i], opt[i]) {
			t.Errorf("round %d, before the rule starts: thompson played %v, optimistic %v", i+1, a[i], opt[i])
		}
	}
	if slices.Equal(a[14], opt[14]) {
		t.Errorf("round 15: thompson and optimistic both played %v", a[14])
	}
}
