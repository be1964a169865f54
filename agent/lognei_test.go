package agent

import (
	"math"
	"testing"

	"github.com/cbandit/cbandit/bandit"
	"github.com/cbandit/cbandit/domain"
	"github.com/cbandit/cbandit/gp"
	"github.com/cbandit/cbandit/model"
	"github.com/cbandit/cbandit/problem"
)

// TestLogEIClosedForm checks log EI against the log of EI's closed form
// where EI is representable, its continuity where the computation changes
// branch (z = −1, x = 25), and that it stays finite and increasing where
// EI underflows to 0.
func TestLogEIClosedForm(t *testing.T) {
	for _, c := range []struct{ mu, v, best float64 }{{0, 1, 0}, {1, 4, 0.5}, {-3, 1, 0}, {-10, 0.25, 0}, {2, 0.01, 2.5}, {-20, 1, 0}} {
		want := math.Log(expectedImprovement(c.mu, c.v, c.best))
		if got := logEI(c.mu, c.v, c.best); math.Abs(got-want) > 1e-9*math.Max(1, math.Abs(want)) {
			t.Errorf("logEI(%v, %v, %v) = %v, want %v", c.mu, c.v, c.best, got, want)
		}
	}
	for _, z := range []float64{-1, -25} {
		lo, hi := logH(z-1e-9), logH(z+1e-9)
		if math.Abs(hi-lo) > 1e-6 {
			t.Errorf("logH jumps at %v: %v to %v", z, lo, hi)
		}
	}
	prev := math.Inf(-1)
	for _, z := range []float64{-1e6, -1e3, -100, -40, -30} {
		v := logH(z)
		if math.IsInf(v, 0) || math.IsNaN(v) || !(v > prev) {
			t.Errorf("logH(%v) = %v, after %v: want finite and increasing", z, v, prev)
		}
		prev = v
	}
	for _, u := range []float64{3, 0, -5, -20, -24.999} {
		if got, want := logNormCDF(u), math.Log(normCDF(u)); math.Abs(got-want) > 1e-9*math.Max(1, math.Abs(want)) {
			t.Errorf("logNormCDF(%v) = %v, want %v", u, got, want)
		}
	}
	if lo, hi := logNormCDF(-25-1e-9), logNormCDF(-25+1e-9); math.Abs(hi-lo) > 1e-6 {
		t.Errorf("logNormCDF jumps at −25: %v to %v", lo, hi)
	}
}

// recommendFixture is lognei on two far-apart arms (the SE kernel makes
// them independent: k = 1 at an arm, 0 between), λ = 1, the kernel fixed:
// after one observation y at an arm its posterior is N(y/2, 1/2) in the
// models' units (R&W eq. 2.23 with one point).
func recommendFixture(t *testing.T, std string) bandit.Agent {
	t.Helper()
	dom, err := domain.NewFinite([][]float64{{0}, {100}})
	if err != nil {
		t.Fatal(err)
	}
	k, err := gp.NewSE(1, 1)
	if err != nil {
		t.Fatal(err)
	}
	ag, err := New("lognei", Config{Info: bandit.Info{Domain: dom, M: 1, Kernel: k, NoiseVar: 1, B: 10, G: 10, R: 1, RG: 1}, Horizon: 10, Seed: 1,
		Params: bandit.Params{"standardise": std, "hyper": "fixed", "lambda": "1"}})
	if err != nil {
		t.Fatal(err)
	}
	// Arm 0: reward 4, cost −2; arm 1: reward 6, cost 0.2.
	for _, o := range []struct {
		arm        int
		reward, gc float64
	}{{0, 4, -2}, {1, 6, 0.2}} {
		d, err := ag.(bandit.Imposer).Impose(&bandit.Round{T: o.arm + 1}, bandit.ArmAction(o.arm))
		if err != nil {
			t.Fatal(err)
		}
		if err := ag.Observe(bandit.Feedback{ID: d.ID, Reward: o.reward, HasReward: true, Costs: []float64{o.gc}}); err != nil {
			t.Fatal(err)
		}
	}
	return ag
}

// TestRecommendHandSolved: unstandardised, arm 0 has f ~ N(2, ½), g ~
// N(−1, ½), P(g ≤ 0) = Φ(√2) = 0.9214; arm 1 has f ~ N(3, ½), g ~ N(0.1,
// ½), P = Φ(−0.1√2) = 0.4438. Level 0.9 recommends arm 0, 0.4 arm 1 (the
// larger mean), 0.95 nothing. Standardised (f: m = 5, s = 1; g: s = 1.1),
// the moments come back in the metrics' units: f at arm 1 is 5 + ½ = 5.5,
// g's means are unchanged, its std 1.1·√½ (λ = 1 in standardised units),
// so P = Φ(−0.1/(1.1·√½)) = 0.4489 at arm 1 and Φ(1/(1.1·√½)) at arm 0.
func TestRecommendHandSolved(t *testing.T) {
	sd := math.Sqrt(0.5)
	for _, c := range []struct {
		std   string
		level float64
		ok    bool
		id    int
		f, g  bandit.Moments
		pf    float64
	}{
		{"off", 0.9, true, 1, bandit.Moments{Mean: 2, Std: sd}, bandit.Moments{Mean: -1, Std: sd}, normCDF(math.Sqrt2)},
		{"off", 0.4, true, 2, bandit.Moments{Mean: 3, Std: sd}, bandit.Moments{Mean: 0.1, Std: sd}, normCDF(-0.1 * math.Sqrt2)},
		{"off", 0.95, false, 0, bandit.Moments{}, bandit.Moments{}, 0},
		{"on", 0.4, true, 2, bandit.Moments{Mean: 5.5, Std: sd}, bandit.Moments{Mean: 0.1, Std: 1.1 * sd}, normCDF(-0.1 / (1.1 * sd))},
		{"on", 0.9, true, 1, bandit.Moments{Mean: 4.5, Std: sd}, bandit.Moments{Mean: -1, Std: 1.1 * sd}, normCDF(1 / (1.1 * sd))},
	} {
		ag := recommendFixture(t, c.std)
		rec, ok := ag.(bandit.Recommender).Recommend(c.level)
		if ok != c.ok {
			t.Fatalf("standardise=%s level %v: ok = %v, want %v", c.std, c.level, ok, c.ok)
		}
		if !ok {
			continue
		}
		near := func(a, b float64) bool { return math.Abs(a-b) < 1e-9 }
		if rec.Decision != c.id || rec.Action.Arm != c.id-1 || !near(rec.Objective.Mean, c.f.Mean) || !near(rec.Objective.Std, c.f.Std) ||
			len(rec.Constraints) != 1 || !near(rec.Constraints[0].Mean, c.g.Mean) || !near(rec.Constraints[0].Std, c.g.Std) || !near(rec.Feasible, c.pf) {
			t.Errorf("standardise=%s level %v: %+v, want decision %d, f %+v, g %+v, P %v", c.std, c.level, rec, c.id, c.f, c.g, c.pf)
		}
	}
}

// TestChooseOffline: a study with offline evaluations gets lognei
// whatever its constraint kind and domain; live ones keep their defaults.
func TestChooseOffline(t *testing.T) {
	for _, k := range []bandit.ConstraintKind{KindPerRound, KindCumulative, KindLongTerm} {
		for _, dom := range []string{DomainBox, DomainTyped, DomainFinite} {
			s, err := ChooseFor(Situation{Kind: k, Domain: dom, Offline: true})
			if err != nil || s.Name != "lognei" {
				t.Errorf("offline %s on %s: %s, %v; want lognei", k, dom, s.Name, err)
			}
			live, err1 := Choose(k, false, dom)
			same, err2 := ChooseFor(Situation{Kind: k, Domain: dom})
			if live.Name != same.Name || (err1 == nil) != (err2 == nil) || live.Name == "lognei" {
				t.Errorf("live %s on %s: Choose %s, ChooseFor %s", k, dom, live.Name, same.Name)
			}
		}
	}
}

// TestLogNEIFindsFeasibleOptimum: noise-free on the suite's gardner
// problem, lognei's recommendation after 40 decisions truly holds the limit
// and lies within 2 % of the feasible optimum's value.
func TestLogNEIFindsFeasibleOptimum(t *testing.T) {
	p, err := problem.New("suite-gardner", nil, 1)
	if err != nil {
		t.Fatal(err)
	}
	ag, err := New("lognei", Config{Info: p.Info(), Horizon: 40, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	for r := 1; r <= 40; r++ {
		d, err := ag.Decide(&bandit.Round{T: r})
		if err != nil {
			t.Fatal(err)
		}
		g := make([]float64, 1)
		f, err := p.Truth(&bandit.Round{T: r}, d.Action, g)
		if err != nil {
			t.Fatal(err)
		}
		if err := ag.Observe(bandit.Feedback{ID: d.ID, Reward: f, HasReward: true, Costs: g}); err != nil {
			t.Fatal(err)
		}
	}
	rec, ok := ag.(bandit.Recommender).Recommend(0.5)
	if !ok {
		t.Fatal("no recommendation")
	}
	g := make([]float64, 1)
	f, err := p.Truth(&bandit.Round{T: 41}, rec.Action, g)
	if err != nil {
		t.Fatal(err)
	}
	opt := p.Optimum(&bandit.Round{T: 41})
	if g[0] > 0 || opt-f > 0.02*math.Abs(opt) {
		t.Errorf("recommended %v: f = %v (optimum %v), g = %v", rec.Action.X, f, opt, g)
	}
}

// A choice's failLimit is its δ (lognei's fail-limit): with one model (f)
// the acquisition is μ_f, and the failure model's estimate p = 0.07 costs
// excluded·(p − δ) under δ = 0.05 and nothing under FailLimit = 0.1.
func TestAvoidFailuresLimit(t *testing.T) {
	acq := func(mv []float64) float64 { return mv[0] }
	for _, c := range []struct {
		limit, want float64
	}{{0, 1.5}, {0.1, 1.5}, {0.05, 1.5 - excluded*(0.07-0.05)}} {
		ch := choice{ms: []model.Model{nil}, acq: acq, failLimit: c.limit}.avoidFailures(nil)
		if got := ch.acq([]float64{1.5, 1, 0.07, 0.01}); math.Abs(got-c.want) > 1e-9*math.Abs(c.want) {
			t.Errorf("failLimit %v: acquisition %v, want %v", c.limit, got, c.want)
		}
	}
}

// lognei2D is lognei on [0, 1]² with one constraint and the service's prior
// for that box (SE, lengthscale 0.2, noise 0.01), seed 1.
func lognei2D(t *testing.T, horizon int, ps bandit.Params) bandit.Agent {
	t.Helper()
	dom, err := domain.NewBox([]float64{0, 0}, []float64{1, 1})
	if err != nil {
		t.Fatal(err)
	}
	k, err := gp.NewSE(0.2, 1)
	if err != nil {
		t.Fatal(err)
	}
	ag, err := New("lognei", Config{Info: bandit.Info{Domain: dom, M: 1, Kernel: k, NoiseVar: 0.01, B: 1, G: 1, R: 0.1, RG: 0.1, Horizon: horizon},
		Horizon: horizon, Seed: 1, Params: ps})
	if err != nil {
		t.Fatal(err)
	}
	return ag
}

// lockInRun is lognei (deterministic as given) for 30 rounds on [0, 1]²
// maximising −(x − .9)² − (y − .9)² under g = x + y − 1 ≤ 0, noise-free,
// with the service's prior for that box (SE, lengthscale 0.2, noise 0.01);
// it returns the decisions' points and the best feasible observation.
func lockInRun(t *testing.T, det string) ([][]float64, float64) {
	t.Helper()
	ag := lognei2D(t, 30, bandit.Params{"deterministic": det})
	var xs [][]float64
	best := math.Inf(-1)
	for r := 1; r <= 30; r++ {
		d, err := ag.Decide(&bandit.Round{T: r})
		if err != nil {
			t.Fatal(err)
		}
		x, y := d.Action.X[0], d.Action.X[1]
		f, g := -((x-0.9)*(x-0.9) + (y-0.9)*(y-0.9)), x+y-1
		if g <= 0 {
			best = math.Max(best, f)
		}
		xs = append(xs, d.Action.X)
		if err := ag.Observe(bandit.Feedback{ID: d.ID, Reward: f, HasReward: true, Costs: []float64{g}}); err != nil {
			t.Fatal(err)
		}
	}
	return xs, best
}

// TestLogNEILeavesABoundaryPoint: the second decision lands at (1, 0),
// exactly on the limit (g = 0). Its posterior mean of g is 1e-9 above 0,
// so with deterministic=posterior (generation 10) no evaluated point
// counts as feasible and log P(g ≤ 0) alone, ½ there and below ½ wherever
// the model extrapolates g > 0, keeps the search on it: 29 of 30 decisions.
// With deterministic=observed, once the fit puts the noise at its floor
// the observation g = 0 holds the limit, EI takes over, and the best
// feasible value reaches the optimum −0.32 (x = y = ½) within 1e-3.
func TestLogNEILeavesABoundaryPoint(t *testing.T) {
	corner := func(xs [][]float64) int {
		n := 0
		for _, x := range xs {
			if x[0] == 1 && x[1] == 0 {
				n++
			}
		}
		return n
	}
	xs, best := lockInRun(t, "posterior")
	if n := corner(xs); n < 25 || math.Abs(best+0.82) > 1e-9 {
		t.Errorf("posterior: (1, 0) in %d of 30 decisions, best %v; want the generation-10 lock-in (≥ 25, −0.82)", n, best)
	}
	xs, best = lockInRun(t, "observed")
	if n := corner(xs); n > 10 || best < -0.321 {
		t.Errorf("observed: (1, 0) in %d of 30 decisions, best %v; want ≤ 10 and ≥ −0.321", n, best)
	}
}

// TestRecommendDeterministicHandSolved: on [0, 1], f(x) = x and g(x) =
// x − ½ observed without noise at x = 0, 0.1, …, 0.9 (the fit puts both
// noises at their floor: exact). x = ½ lies on the limit, where the
// posterior's Φ(−μ/σ) is about ½; its observation g = 0 holds the limit,
// so at level 0.95 the recommendation is x = ½ (decision 6, the best
// feasible observation) with P = 1, and x ≥ 0.6 (observed g > 0) has P = 0
// (not recommended at any level above 0). The posterior alone (generation 10's reading) would not
// recommend x = ½ at 0.95.
func TestRecommendDeterministicHandSolved(t *testing.T) {
	dom, err := domain.NewBox([]float64{0}, []float64{1})
	if err != nil {
		t.Fatal(err)
	}
	k, err := gp.NewSE(0.2, 1)
	if err != nil {
		t.Fatal(err)
	}
	ag, err := New("lognei", Config{Info: bandit.Info{Domain: dom, M: 1, Kernel: k, NoiseVar: 0.01, B: 1, G: 1, R: 0.1, RG: 0.1}, Horizon: 20, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	for r := range 10 {
		x := float64(r) / 10
		d, err := ag.(bandit.Imposer).Impose(&bandit.Round{T: r + 1}, bandit.PointAction([]float64{x}))
		if err != nil {
			t.Fatal(err)
		}
		if err := ag.Observe(bandit.Feedback{ID: d.ID, Reward: x, HasReward: true, Costs: []float64{x - 0.5}}); err != nil {
			t.Fatal(err)
		}
	}
	a := ag.(*LogNEI)
	if ex := a.exact(); !ex[0] || !ex[1] {
		t.Fatalf("fitted noises %v, %v: want both below ConfirmNoise", fittedNoise(a.ms[0]), fittedNoise(a.ms[1]))
	}
	ev, ok := a.evaluated()
	if !ok {
		t.Fatal("no posterior at the evaluated points")
	}
	if pf := probFeasible(Posterior{ev.mv[5]}, 1); pf >= 0.95 {
		t.Fatalf("posterior P(g ≤ 0) at x = ½ is %v: the case needs it below 0.95", pf)
	}
	for _, level := range []float64{0.95, 1e-9} {
		rec, ok := a.Recommend(level)
		if !ok || rec.Decision != 6 || rec.Feasible != 1 || math.Abs(rec.Action.X[0]-0.5) > 0 {
			t.Errorf("level %v: %+v, %v; want decision 6 (x = ½) with P = 1", level, rec, ok)
		}
	}
}
