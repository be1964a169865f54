package agent

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/cbandit/cbandit/bandit"
	"github.com/cbandit/cbandit/domain"
	"github.com/cbandit/cbandit/model"
)

// The safe stage ranks every point whose constraint UCBs are ≤ 0 above
// every other, by f's UCB among them; the rest by their largest UCB of g.
func TestSafeFirstRanksTheSafeSet(t *testing.T) {
	acq := safeFirst(2, []float64{1}, false)
	at := func(fmu, gmu, gvar float64) float64 { return acq(Posterior{[]float64{fmu, 0.01, gmu, gvar}}) }
	safeLow, safeHigh := at(0, -1, 0.25), at(1, -1, 0.25)
	unsafe := at(10, -0.1, 0.25) // LCB < 0 < UCB: optimistic, not safe
	if !(safeHigh > safeLow && safeLow > unsafe) {
		t.Fatalf("safe f=1 %v, safe f=0 %v, unsafe f=10 %v: want the safe points first, by f", safeHigh, safeLow, unsafe)
	}
	if a, b := at(0, -0.1, 0.25), at(10, 0.5, 0.25); !(a > b) {
		t.Fatalf("outside the safe set the less unsafe point (%v) does not come first (%v)", a, b)
	}
}

// config's safe stage applies with the practical widths in its trust
// region (3+ dims) from ⌈safe-from·T⌉ on, and not with the papers'
// settings, feasibility = optimistic or on 1–2-D boxes.
func TestConfigSafeStage(t *testing.T) {
	for _, c := range []struct {
		d    int
		ps   bandit.Params
		want bool
		from int
	}{
		{3, nil, true, 20}, {3, bandit.Params{"safe-from": "0.25"}, true, 10}, {2, nil, false, 20},
		{3, bandit.Params{"feasibility": "optimistic"}, false, 20}, {3, bandit.Params{"region": "global"}, false, 20},
		{3, bandit.Params{"widths": "theory"}, false, 20},
	} {
		ag, err := New("config", Config{Info: bandit.Info{Domain: unitBox(t, c.d), M: 1}, Horizon: 40, Params: c.ps, Seed: 1})
		if err != nil {
			t.Fatalf("%d dims %v: %v", c.d, c.ps, err)
		}
		a := ag.(*ConfigAgent)
		if a.pessimistic != c.want || a.safeFrom != c.from {
			t.Errorf("%d dims %v: safe stage %v from %d, want %v from %d", c.d, c.ps, a.pessimistic, a.safeFrom, c.want, c.from)
		}
	}
}

// In the safe stage a batch's pending decisions condition f alone
// (safe-pending=observed): the constraints' variances, and so the safe set,
// are those of the evaluations observed; with safe-pending=hallucinated
// they shrink about the pending point.
func TestSafeSetIgnoresPending(t *testing.T) {
	b, err := domain.NewBox([]float64{0, 0, 0}, []float64{1, 1, 1})
	if err != nil {
		t.Fatal(err)
	}
	ag, err := New("config", Config{Info: bandit.Info{Domain: b, M: 1}, Horizon: 40, Params: bandit.Params{"safe-from": "0"}, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	a := ag.(*ConfigAgent)
	if !a.pessimistic || !a.observedG {
		t.Fatalf("safe stage %v, safe-pending=observed %v: want both by default", a.pessimistic, a.observedG)
	}
	for r := 1; r <= 12; r++ {
		d, err := a.Decide(&bandit.Round{T: r})
		if err != nil {
			t.Fatal(err)
		}
		x := d.Action.X
		f := -(x[0]-0.5)*(x[0]-0.5) - (x[1]-0.5)*(x[1]-0.5) - (x[2]-0.5)*(x[2]-0.5)
		if err := a.Observe(bandit.Feedback{ID: d.ID, Reward: f, HasReward: true, Costs: []float64{x[0] - 0.7}}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := a.Decide(&bandit.Round{T: 13}); err != nil { // pending from here on
		t.Fatal(err)
	}
	if a.unpendG {
		t.Fatal("unpendG left on after the decision")
	}
	base := slices.Clone(a.g[0].Var())
	baseF := slices.Clone(a.f.Var())
	vars := func(unpend bool) (g, f []float64) {
		a.unpendG = unpend
		defer func() { a.unpendG = false }()
		undo, _, err := a.condition(14)
		if err != nil {
			t.Fatal(err)
		}
		defer undo()
		return slices.Clone(a.g[0].Var()), slices.Clone(a.f.Var())
	}
	shrunk := func(v, was []float64) bool {
		for i := range v {
			if v[i] < was[i]-1e-12 {
				return true
			}
		}
		return false
	}
	g, f := vars(true)
	if !slices.Equal(g, base) {
		t.Error("safe-pending=observed: the constraint's variances moved with the pending decision")
	}
	if !shrunk(f, baseF) {
		t.Error("safe-pending=observed: f is not conditioned on the pending decision")
	}
	if g, _ := vars(false); !shrunk(g, base) {
		t.Error("safe-pending=hallucinated: the constraint's variances did not shrink about the pending decision")
	}
}

// A batch's later member the maximiser puts outside the safe set repeats
// a safe pending decision or the best feasible evaluation instead; a safe
// one stays, and so does any decision with none pending.
func TestKeepSafeRepeatsASafePendingPoint(t *testing.T) {
	// g = x₀ − 0.7 observed on a 3×3×3 grid: safe where x₀ is well below 0.7.
	a, r := safeCube(t, 1, bandit.Params{"safe-from": "0"}, []float64{0.1, 0.5, 0.9}, func(_ int, x []float64) (float64, []float64) {
		return -x[1], []float64{x[0] - 0.7}
	})
	if got := a.keepSafe(1, bandit.Action{Arm: -1, X: []float64{0.95, 0.1, 0.1}}); got.X[0] != 0.95 {
		t.Errorf("with no decision pending the decision moved to %v", got.X)
	}
	safe := []float64{0.1, 0.5, 0.5}
	a.ledger.Record(r+1, bandit.Action{Arm: -1, X: safe}, a.epoch) // pending
	a.unpendG = true
	undo, _, err := a.condition(r + 2)
	if err != nil {
		t.Fatal(err)
	}
	defer undo()
	inc, _ := a.incumbent() // reward −x₁: the feasible grid point of x₁ = 0.1 first
	if inc.X[0] > 0.7 || inc.X[1] != 0.1 {
		t.Fatalf("incumbent %v: want a feasible point of x₁ = 0.1", inc.X)
	}
	if got := a.keepSafe(1, bandit.Action{Arm: -1, X: []float64{0.95, 0.1, 0.1}}); !slices.Equal(got.X, safe) && !slices.Equal(got.X, inc.X) {
		t.Errorf("an unsafe member (x₀ = 0.95) played %v, want the safe pending %v or the incumbent %v", got.X, safe, inc.X)
	}
	in := []float64{0.2, 0.1, 0.1}
	if got := a.keepSafe(1, bandit.Action{Arm: -1, X: in}); !slices.Equal(got.X, in) {
		t.Errorf("a safe member %v played %v", in, got.X)
	}
}

// With deterministic constraints (safe-observed=exact) the best feasible
// evaluation is safe to repeat by its observation, also on the boundary,
// where the constraint's UCB is above 0; safe-observed=model leaves an
// unsafe member as it is when no point the models hold safe is left.
func TestKeepSafeRepeatsAnObservedFeasiblePoint(t *testing.T) {
	for _, mode := range []string{"exact", "model"} {
		// g = x₀ − 0.5, reward x₀: the best feasible evaluations lie on the boundary x₀ = 0.5.
		a, r := safeCube(t, 1, bandit.Params{"safe-from": "0", "safe-observed": mode}, []float64{0.1, 0.5, 0.9}, func(_ int, x []float64) (float64, []float64) {
			return x[0], []float64{x[0] - 0.5}
		})
		a.ledger.Record(r+1, bandit.Action{Arm: -1, X: []float64{0.9, 0.5, 0.5}}, a.epoch) // pending, unsafe
		a.unpendG = true
		undo, _, err := a.condition(r + 2)
		if err != nil {
			t.Fatal(err)
		}
		inc, _ := a.incumbent()
		if inc.X[0] != 0.5 {
			t.Fatalf("incumbent %v: want one on the boundary x₀ = 0.5", inc.X)
		}
		if mu, v := a.g[0].(model.Predictor).Predict(inc.X); mu+a.betaSafe*math.Sqrt(v) <= 0 {
			t.Fatalf("the model holds the boundary point safe (μ = %v, σ² = %v): the case needs it unsure", mu, v)
		}
		if slices.Contains(a.exact()[1:], false) {
			t.Fatal("a noise-free linear constraint does not count as deterministic")
		}
		act := bandit.Action{Arm: -1, X: []float64{0.95, 0.1, 0.1}}
		got := a.keepSafe(1, act)
		if want := map[string][]float64{"exact": inc.X, "model": act.X}[mode]; !slices.Equal(got.X, want) {
			t.Errorf("safe-observed=%s: an unsafe member played %v, want %v", mode, got.X, want)
		}
		undo()
	}
}

// before-feasible=mean ranks the points whose constraint means are ≤ 0
// first, by f's UCB, above a point only optimistic (LCB ≤ 0 < mean) with a
// far larger f; below them the least largest LCB comes first.
func TestMeanFirstRanksMeanFeasiblePoints(t *testing.T) {
	acq := meanFirst(2, []float64{1})
	at := func(fmu, gmu, gvar float64) float64 { return acq(Posterior{[]float64{fmu, 0.01, gmu, gvar}}) }
	low, high := at(0, -0.01, 0.25), at(1, -0.01, 0.25)
	optimistic := at(10, 0.1, 0.25) // LCB −0.4 ≤ 0 < mean: CONFIG would take it
	if !(high > low && low > optimistic) {
		t.Fatalf("mean-feasible f=1 %v, f=0 %v, optimistic f=10 %v: want the mean-feasible points first, by f", high, low, optimistic)
	}
	if a, b := at(0, 0.1, 1), at(10, 0.5, 0.25); !(a > b) { // LCB −0.9 against 0
		t.Fatalf("outside, the smaller LCB (%v) does not come first (%v)", a, b)
	}
	if v := at(0, 1e6, 1); math.IsInf(v, 0) || math.IsNaN(v) {
		t.Fatalf("a far infeasible point scores %v: want a finite score", v)
	}
}

// before-feasible=mean applies from ⌈MeanFrom·T⌉ while no evaluation met
// every limit, and not before it.
func TestBeforeFeasibleMeanStarts(t *testing.T) {
	b, err := domain.NewBox([]float64{0, 0, 0}, []float64{1, 1, 1})
	if err != nil {
		t.Fatal(err)
	}
	ag, err := New("config", Config{Info: bandit.Info{Domain: b, M: 1}, Horizon: 40, Params: bandit.Params{"before-feasible": "mean"}, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	a := ag.(*ConfigAgent)
	if !a.firstMean || a.meanFrom != 14 {
		t.Fatalf("before-feasible=mean %v from %d, want from ⌈0.35·40⌉ = 14", a.firstMean, a.meanFrom)
	}
	if ag, err = New("config", Config{Info: bandit.Info{Domain: b, M: 1}, Horizon: 40, Seed: 1}); err != nil || ag.(*ConfigAgent).firstMean {
		t.Fatalf("the default applies the mean rule (err %v)", err)
	}
}

// The safe set's β is beta-safe-noisy on a constraint whose fitted noise
// is at least ConfirmNoise, beta-safe on a deterministic one, and
// beta-safe everywhere with beta-safe-noisy = 0 (the default).
func TestSafeBetasNoisy(t *testing.T) {
	for _, c := range []struct {
		noise float64
		noisy string
		want  float64
	}{{0, "3", 1}, {0.2, "3", 3}, {0.2, "0", 1}, {0.2, "", 1}} {
		ps := bandit.Params{}
		if c.noisy != "" {
			ps["beta-safe-noisy"] = c.noisy
		}
		a, r := safeCube(t, 2, ps, []float64{0.1, 0.3, 0.5, 0.7, 0.9}, func(r int, x []float64) (float64, []float64) {
			e := c.noise * math.Sin(1e3*float64(r)) // a fixed pseudo-random noise on g₁ alone
			return x[0], []float64{x[0] - 0.5 + e, x[1] - 0.5}
		})
		if _, err := a.Decide(&bandit.Round{T: r + 1}); err != nil { // fits the hyperparameters
			t.Fatal(err)
		}
		if got := a.safeBetas(); !slices.Equal(got, []float64{c.want, 1}) {
			t.Errorf("noise %v, beta-safe-noisy=%s: β = %v (fitted noise %v, %v), want [%v 1]", c.noise, c.noisy, got, fittedNoise(a.g[0]), fittedNoise(a.g[1]), c.want)
		}
	}
}

// safeCube is config on the unit cube with 3-D points observed at the
// grid x₀ ∈ xs0, x₁, x₂ ∈ {0.1, 0.5, 0.9}, reward and costs from tell at
// the r-th point; it returns the agent and the number of rounds played.
func safeCube(t *testing.T, m int, ps bandit.Params, xs0 []float64, tell func(r int, x []float64) (float64, []float64)) (*ConfigAgent, int) {
	t.Helper()
	b, err := domain.NewBox([]float64{0, 0, 0}, []float64{1, 1, 1})
	if err != nil {
		t.Fatal(err)
	}
	ag, err := New("config", Config{Info: bandit.Info{Domain: b, M: m}, Horizon: 60, Params: ps, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	a := ag.(*ConfigAgent)
	r := 0
	for _, x0 := range xs0 {
		for _, x1 := range []float64{0.1, 0.5, 0.9} {
			for _, x2 := range []float64{0.1, 0.5, 0.9} {
				r++
				x := []float64{x0, x1, x2}
				d := a.ledger.Record(r, bandit.Action{Arm: -1, X: x}, a.epoch)
				f, g := tell(r, x)
				if err := a.Observe(bandit.Feedback{ID: d.ID, Reward: f, HasReward: true, Costs: g}); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	return a, r
}

// With beta-safe-noisy-seed=evaluated, beta-safe-noisy applies only while
// an evaluated point lies in the safe set at it: at β = 10⁶ none does and
// the safe set falls back to beta-safe; with none (the default) it applies
// regardless.
// beta-safe-noisy's default is 3 from FreshDim to NoisyBetaBelow dimensions,
// beta-safe-noisy-wide from there on, 0 below FreshDim.
func TestSafeBetasSeeded(t *testing.T) {
	for _, c := range []struct {
		beta, seed string
		want       float64
	}{{"3", "evaluated", 3}, {"1e6", "evaluated", 1}, {"1e6", "none", 1e6}, {"1e6", "", 1e6}} {
		ps := bandit.Params{"beta-safe-noisy": c.beta}
		if c.seed != "" {
			ps["beta-safe-noisy-seed"] = c.seed
		}
		a, r := safeCube(t, 2, ps, []float64{0.1, 0.3, 0.5, 0.7, 0.9}, func(r int, x []float64) (float64, []float64) {
			return x[0], []float64{x[0] - 0.5 + 0.2*math.Sin(1e3*float64(r)), x[1] - 0.5}
		})
		if _, err := a.Decide(&bandit.Round{T: r + 1}); err != nil {
			t.Fatal(err)
		}
		if got := a.safeBetas(); !slices.Equal(got, []float64{c.want, 1}) {
			t.Errorf("beta-safe-noisy=%s, seed %q: β = %v, want [%v 1]", c.beta, c.seed, got, c.want)
		}
	}
	for d, want := range map[int]float64{3: 0, 6: 0, 7: 3, 19: 3, 20: 1.5} {
		b := unitBox(t, d)
		if got := betaNoisyDefault(b, 1.5); got != want {
			t.Errorf("beta-safe-noisy's default in %d dims: %v, want %v", d, got, want)
		}
	}
}

// constraint-warp=bilog puts the constraints' models on the bilog scale
// from ⌈MeanFrom·T⌉ (21 of 60; constraint-warp-from moves it: 0, 30) while
// no evaluation met every limit: not before, not with none, not once one has.
func TestConstraintWarpStarts(t *testing.T) {
	for _, c := range []struct {
		warp     string
		from     string // constraint-warp-from
		feasible bool
		round    int
		want     bool
	}{{"", "", false, 60, true}, {"", "", false, 20, false}, {"none", "", false, 60, false}, {"", "", true, 60, false},
		{"", "0", false, 20, true}, {"", "0.5", false, 25, false}, {"", "0", true, 20, false}} {
		ps := bandit.Params{}
		if c.warp != "" {
			ps["constraint-warp"] = c.warp
		}
		if c.from != "" {
			ps["constraint-warp-from"] = c.from
		}
		a, _ := safeCube(t, 1, ps, []float64{0.1, 0.5, 0.9}, func(r int, x []float64) (float64, []float64) {
			if c.feasible && r == 5 {
				return x[0], []float64{-1}
			}
			return x[0], []float64{1 + 100*x[1]*x[1]}
		})
		if _, err := a.Decide(&bandit.Round{T: c.round}); err != nil {
			t.Fatal(err)
		}
		if got := a.g[0].(*model.Adaptive).Warped(); got != c.want {
			t.Errorf("constraint-warp=%q from %q, a feasible evaluation %v, round %d: warped %v, want %v", c.warp, c.from, c.feasible, c.round, got, c.want)
		}
	}
}

// safe-hold=evaluated: a decision outside the noisy safe set repeats the
// evaluated point of the largest reward x₀ inside it (at β = 3 one of
// x₀ = 0.5, where g = x₀ − 0.6 plus noise holds); a decision inside stays,
// and so does every decision with none inside (β = 100) and
// safe-hold-fallback=none, with safe-hold=none or with a deterministic
// constraint.
func TestHoldSafe(t *testing.T) {
	evaluatedAt := func(a *ConfigAgent, x []float64) bool {
		ev, _ := a.evaluated()
		return slices.ContainsFunc(ev.acts, func(e bandit.Action) bool { return slices.Equal(e.X, x) })
	}
	out := []float64{0.95, 0.5, 0.5}
	for _, c := range []struct {
		beta, hold string
		noise      float64
		want       float64 // x₀ of the point repeated (0: the decision stays)
	}{{"3", "", 0.05, 0.5}, {"100", "", 0.05, 0}, {"3", "none", 0.05, 0}, {"3", "", 0, 0}} {
		ps := bandit.Params{"beta-safe-noisy": c.beta, "safe-from": "0", "safe-hold-fallback": "none"}
		if c.hold != "" {
			ps["safe-hold"] = c.hold
		}
		a, _ := safeCube(t, 1, ps, []float64{0.1, 0.3, 0.5, 0.7, 0.9}, func(r int, x []float64) (float64, []float64) {
			return x[0], []float64{x[0] - 0.6 + c.noise*math.Sin(1e3*float64(r))}
		})
		got := a.holdSafe(1, bandit.Action{Arm: -1, X: out})
		if c.want == 0 {
			if !slices.Equal(got.X, out) {
				t.Errorf("beta-safe-noisy=%s, safe-hold %q, noise %v: the decision moved to %v", c.beta, c.hold, c.noise, got.X)
			}
			continue
		}
		if !evaluatedAt(a, got.X) || got.X[0] != c.want {
			t.Errorf("beta-safe-noisy=%s: an unsafe decision played %v, want an evaluated point of x₀ = %v", c.beta, got.X, c.want)
		}
		if in := a.holdSafe(1, bandit.Action{Arm: -1, X: got.X}); c.beta == "3" && !slices.Equal(in.X, got.X) {
			t.Errorf("a decision inside the safe set (%v) moved to %v", got.X, in.X)
		}
	}
}

// safe-repeat-beta = 2 with a noisy constraint g = x₀ − 0.6: the evaluated
// points a safe-stage decision does not repeat are those of x₀ ≥ 0.7,
// whose posterior is above 0, and none of x₀ ≤ 0.3, 2σ inside; with 0 (the
// default) or a deterministic constraint there are none.
func TestUnvouched(t *testing.T) {
	for _, c := range []struct {
		beta  string
		noise float64
		want  bool
	}{{"2", 0.05, true}, {"", 0.05, false}, {"2", 0, false}} {
		ps := bandit.Params{"safe-from": "0"}
		if c.beta != "" {
			ps["safe-repeat-beta"] = c.beta
		}
		a, _ := safeCube(t, 1, ps, []float64{0.1, 0.3, 0.5, 0.7, 0.9}, func(r int, x []float64) (float64, []float64) {
			return x[0], []float64{x[0] - 0.6 + c.noise*math.Sin(1e3*float64(r))}
		})
		got := a.unvouched()
		if !c.want {
			if got != nil {
				t.Errorf("safe-repeat-beta %q, noise %v: %d points barred, want none", c.beta, c.noise, len(got))
			}
			continue
		}
		hi := 0
		for _, act := range got {
			if act.X[0] <= 0.3 {
				t.Errorf("a point 2σ inside (%v) is barred", act.X)
			}
			if act.X[0] >= 0.7 {
				hi++
			}
		}
		if hi != 18 {
			t.Errorf("%d of the 18 points of x₀ ≥ 0.7 barred", hi)
		}
	}
}

// The agent reads beta-safe-noisy's computed default from the box: 1.5
// (beta-safe-noisy-wide) in 20 dims, 3 in 10, 0 in 4, 0 in 20 with
// beta-safe-noisy-wide=0; an explicit beta-safe-noisy overrides it.
func TestBetaNoisyWide(t *testing.T) {
	for _, c := range []struct {
		d    int
		ps   bandit.Params
		want float64
	}{
		{20, nil, 1.5}, {10, nil, 3}, {4, nil, 0}, {19, nil, 3},
		{20, bandit.Params{"beta-safe-noisy-wide": "0"}, 0},
		{20, bandit.Params{"beta-safe-noisy-wide": "2"}, 2},
		{10, bandit.Params{"beta-safe-noisy-wide": "0"}, 3},
		{20, bandit.Params{"beta-safe-noisy": "0.5"}, 0.5},
	} {
		ag, err := New("config", Config{Info: bandit.Info{Domain: unitBox(t, c.d), M: 1}, Horizon: 60, Params: c.ps, Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		if got := ag.(*ConfigAgent).betaNoisy; got != c.want {
			t.Errorf("%d dims, params %v: beta-safe-noisy %v, want %v", c.d, c.ps, got, c.want)
		}
	}
}

// β of the objective is beta-f-wide (3) on boxes of floats from
// NoisyBetaBelow dims on, 2 below and on a typed space's encoding; an
// explicit beta-f stands everywhere, and widths=theory keeps the paper's β_t.
func TestBetaFWide(t *testing.T) {
	for _, c := range []struct {
		d     int
		ps    bandit.Params
		fixed bool
		want  float64
		typed bool
	}{
		{20, nil, true, 3, false}, {19, nil, true, 2, false}, {7, nil, true, 2, false},
		{20, bandit.Params{"beta-f-wide": "4"}, true, 4, false},
		{10, bandit.Params{"beta-f-wide": "4"}, true, 2, false},
		{20, bandit.Params{"beta-f": "2"}, true, 2, false},
		{20, bandit.Params{"beta-f": "1", "beta-f-wide": "4"}, true, 1, false},
		{20, bandit.Params{"widths": "theory"}, false, 0, false},
		{20, nil, true, 2, true},
	} {
		box := unitBox(t, c.d)
		if c.typed {
			box.Vars = []domain.Var{{At: 0, Width: 1, Low: 0, High: 20, Step: 1}}
		}
		ag, err := New("config", Config{Info: bandit.Info{Domain: box, M: 1}, Horizon: 60, Params: c.ps, Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		b := ag.(*ConfigAgent).betaF
		if b.Fixed != c.fixed || (c.fixed && b.Const != c.want) {
			t.Errorf("%d dims (typed %v), params %v: β_f fixed %v = %v, want fixed %v = %v", c.d, c.typed, c.ps, b.Fixed, b.Const, c.fixed, c.want)
		}
	}
}

// Before any evaluation met every limit, CONFIG's search conditions f alone
// on a batch's pending decisions (first-pending=observed, the default): not
// with hallucinated, and not once an evaluation met every limit; and the
// choice reaches the batch's later decision.
func TestConfigFirstPending(t *testing.T) {
	never := func(_ int, x []float64) (float64, []float64) { return -x[1], []float64{x[0] + 0.5} }
	met := func(_ int, x []float64) (float64, []float64) { return -x[1], []float64{x[0] - 0.7} }
	for _, c := range []struct {
		mode string
		tell func(int, []float64) (float64, []float64)
		want bool
	}{{"", never, true}, {"hallucinated", never, false}, {"", met, false}} {
		ps := bandit.Params{}
		if c.mode != "" {
			ps["first-pending"] = c.mode
		}
		a, _ := safeCube(t, 1, ps, []float64{0.1, 0.5, 0.9}, c.tell)
		if got := a.unpendFirst(); got != c.want {
			t.Errorf("first-pending %q, a feasible evaluation %v: f alone conditioned %v, want %v", c.mode, a.ledger.anyFeasible(), got, c.want)
		}
	}
	later := map[string][]float64{}
	for _, mode := range []string{"observed", "hallucinated"} {
		a, r := safeCube(t, 1, bandit.Params{"first-pending": mode}, []float64{0.1, 0.5, 0.9}, never)
		if _, err := a.Decide(&bandit.Round{T: r + 1}); err != nil { // pending from here on
			t.Fatal(err)
		}
		d, err := a.Decide(&bandit.Round{T: r + 2})
		if err != nil {
			t.Fatal(err)
		}
		if a.unpendG {
			t.Fatal("unpendG left on after the decision")
		}
		later[mode] = d.Action.X
	}
	if slices.Equal(later["observed"], later["hallucinated"]) {
		t.Errorf("the batch's second decision %v is the same with the constraints conditioned on the first or not", later["observed"])
	}
}

// wideConfig is config (horizon 200, one constraint) on the unit box in d
// dims after n evaluations at points drawn from rng, each told by tell
// (its reward and constraint value).
func wideConfig(t *testing.T, d, n int, ps bandit.Params, rng *rand.Rand, tell func(x []float64) (float64, float64)) *ConfigAgent {
	t.Helper()
	ag, err := New("config", Config{Info: bandit.Info{Domain: unitBox(t, d), M: 1}, Horizon: 200, Params: ps, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	a := ag.(*ConfigAgent)
	for r := 1; r <= n; r++ {
		x := make([]float64, d)
		for i := range x {
			x[i] = rng.Float64()
		}
		id := a.ledger.Record(r, bandit.Action{Arm: -1, X: x}, a.epoch)
		f, g := tell(x)
		if err := a.Observe(bandit.Feedback{ID: id.ID, Reward: f, HasReward: true, Costs: []float64{g}}); err != nil {
			t.Fatal(err)
		}
	}
	return a
}

// safe-refit: on a box of NoisyBetaBelow (20) dims with a noisy constraint,
// refitSafe makes the constraint's model refit every k observations (the
// next, the 72nd, is a refit, which the doubling schedule alone makes at 128
// only); not with safe-refit=0, in 19 dims, nor yet with fewer than
// FirstFit observations.
func TestConfigSafeRefit(t *testing.T) {
	for _, c := range []struct {
		d, n int
		ps   bandit.Params
		want bool
	}{{20, 71, nil, true}, {20, 71, bandit.Params{"safe-refit": "0"}, false}, {19, 71, nil, false}, {20, 40, nil, false}} {
		rng := rand.New(rand.NewPCG(1, 2))
		a := wideConfig(t, c.d, c.n, c.ps, rng, func(x []float64) (float64, float64) {
			return -x[2], x[0] + x[1] - 1 + 0.3*rng.NormFloat64()
		})
		if err := a.refitSafe(); err != nil {
			t.Fatal(err)
		}
		if got := a.g[0].(*model.Adaptive).Refreshes(); got != c.want || a.refitting != c.want {
			t.Errorf("%d dims, %d observations, params %v: refits at 72 %v (refitting %v), want %v", c.d, c.n, c.ps, got, a.refitting, c.want)
		}
	}
}

// safe-hold=unseen with noisy-replicates: g = x₀ − 0.6 observed with a noise
// of 1e-6, far below its spread (its fit calls it exact), at every point
// twice: the repeats differ, so the constraint is not exact and a decision
// outside the safe set at beta-safe repeats the evaluated point of largest
// reward inside it (x₀ = 0.5); noise-free, with noisy-replicates=off or with
// safe-hold=evaluated the constraint stays exact and the decision stays.
func TestHoldSafeUnseenNoise(t *testing.T) {
	out := []float64{0.95, 0.5, 0.5}
	xs := []float64{0.1, 0.1, 0.3, 0.3, 0.5, 0.5, 0.7, 0.7, 0.9, 0.9}
	for _, c := range []struct {
		ps     bandit.Params
		noise  float64
		exact  bool
		repeat bool
	}{
		{bandit.Params{}, 1e-6, false, true},
		{bandit.Params{}, 0, true, false},
		{bandit.Params{"noisy-replicates": "off"}, 1e-6, true, false},
		{bandit.Params{"safe-hold": "evaluated"}, 1e-6, false, false},
	} {
		c.ps["safe-from"] = "0"
		a, _ := safeCube(t, 1, c.ps, xs, func(r int, x []float64) (float64, []float64) {
			return x[0], []float64{x[0] - 0.6 + c.noise*math.Sin(1e3*float64(r))}
		})
		if !a.fitExact()[1] {
			t.Fatalf("%v: the fit calls a noise of %g noisy; the case needs it exact", c.ps, c.noise)
		}
		if ex := a.exact()[1]; ex != c.exact {
			t.Errorf("%v, noise %g: exact %v, want %v", c.ps, c.noise, ex, c.exact)
		}
		got := a.holdSafe(1, bandit.Action{Arm: -1, X: out})
		if moved := !slices.Equal(got.X, out); moved != c.repeat || (moved && got.X[0] != 0.5) {
			t.Errorf("%v, noise %g: the decision outside the safe set played %v (repeat wanted: %v, at x₀ = 0.5)", c.ps, c.noise, got.X, c.repeat)
		}
	}
}

// safe-hold-fallback: with no evaluated point inside the noisy safe set
// (β = 100), a decision outside it plays Recommend's choice (x₀ = 0.5 here,
// where g = x₀ − 0.6 holds 2 noise σ inside) — always, or with wide once
// constraint-warp-wide has acted, or with likelier (the default) then and
// where the decision is less likely to hold (x₀ = 0.95, g ≈ 0.35) — and
// where no configuration reaches P ≥ 0.95 (g = x₀ plus noise) the one most
// likely to hold (one of x₀ = 0.1); with none, wide before the warp, or
// likelier where the decision is likelier to hold (x₀ = 0, g ≈ 0 against
// 0.1) or a decision is pending (a batch's later member), the decision
// stays.
func TestHoldFallback(t *testing.T) {
	for _, c := range []struct {
		fallback string
		wide     bool
		shift    float64
		x0       float64 // the decision's
		want     string  // "rec", "likeliest" or "" (the decision stays)
	}{{"always", false, 0, 0.95, "rec"}, {"wide", true, 0, 0.95, "rec"}, {"wide", false, 0, 0.95, ""}, {"none", true, 0, 0.95, ""}, {"always", false, 0.6, 0.95, "likeliest"},
		{"", false, 0, 0.95, "rec"}, {"", true, 0.6, 0, "likeliest"}, {"", false, 0.6, 0.95, "likeliest"}, {"", false, 0.6, 0, ""},
		{"", false, 0, 0.95, "pending"}} {
		out := []float64{c.x0, 0.5, 0.5}
		ps := bandit.Params{"beta-safe-noisy": "100", "safe-from": "0"}
		if c.fallback != "" {
			ps["safe-hold-fallback"] = c.fallback
		}
		a, _ := safeCube(t, 1, ps, []float64{0.1, 0.3, 0.5, 0.7, 0.9}, func(r int, x []float64) (float64, []float64) {
			return x[0], []float64{x[0] - 0.6 + c.shift + 0.05*math.Sin(1e3*float64(r))}
		})
		a.wide = c.wide
		if c.want == "pending" { // a batch's later member: likelier leaves it to the first
			a.ledger.Record(99, bandit.Action{Arm: -1, X: []float64{0.2, 0.5, 0.5}}, 0)
			c.want = ""
		}
		got := a.holdSafe(1, bandit.Action{Arm: -1, X: out})
		ev, _ := a.evaluated()
		ex := a.exact()
		switch c.want {
		case "":
			if !slices.Equal(got.X, out) {
				t.Errorf("safe-hold-fallback=%q, wide %v: the decision moved to %v", c.fallback, c.wide, got.X)
			}
		case "rec":
			rec, ok := a.Recommend(confirmLevel)
			if !ok || !slices.Equal(got.X, rec.Action.X) || got.X[0] != 0.5 {
				t.Errorf("safe-hold-fallback=%q, wide %v: played %v, want the recommendation %v (x₀ = 0.5)", c.fallback, c.wide, got.X, rec.Action.X)
			}
		case "likeliest":
			if _, ok := a.Recommend(confirmLevel); ok {
				t.Fatalf("shift %v: a configuration still holds with P ≥ %v; the case needs none", c.shift, confirmLevel)
			}
			best, at := -1.0, -1
			for k := range ev.mv {
				if p := ev.feasible(k, ex); p > best {
					best, at = p, k
				}
			}
			if at < 0 || !slices.Equal(got.X, ev.acts[at].X) || got.X[0] != 0.1 {
				t.Errorf("shift %v: played %v, want the likeliest feasible evaluated point (x₀ = 0.1)", c.shift, got.X)
			}
		}
	}
}

// constraint-warp-wide: after the initial design (FirstFit(3) = 10
// evaluations) a constraint spanning decades (e^{10·x₁} − 200) puts every
// constraint's model on the bilog scale, and a noisy constraint's safe set
// takes beta-safe-wide (beta-safe-noisy 0 in 3 dims); a constraint within a
// decade does not, nor does one with constraint-warp-wide=0 or
// constraint-warp=none, nor anything before the design is observed.
func TestWarpWide(t *testing.T) {
	for _, c := range []struct {
		ps   bandit.Params
		wide bool
		xs   []float64
		want bool
	}{
		{bandit.Params{}, true, []float64{0.1, 0.5, 0.9}, true},
		{bandit.Params{}, false, []float64{0.1, 0.5, 0.9}, false},
		{bandit.Params{"constraint-warp-wide": "0"}, true, []float64{0.1, 0.5, 0.9}, false},
		{bandit.Params{"constraint-warp": "none"}, true, []float64{0.1, 0.5, 0.9}, false},
		{bandit.Params{}, true, nil, false},
		{bandit.Params{"constraint-warp-wide": "0.5"}, false, []float64{0.1, 0.5, 0.9}, true},
	} {
		a, _ := safeCube(t, 2, c.ps, c.xs, func(r int, x []float64) (float64, []float64) {
			g := []float64{x[0] - 0.6 + 0.01*math.Sin(1e3*float64(r)), x[1] - 2}
			if c.wide {
				g[1] = math.Exp(10*x[1]) - 200
			}
			return x[0], g
		})
		if _, err := a.Decide(&bandit.Round{T: len(c.xs)*9 + 1}); err != nil {
			t.Fatal(err)
		}
		for j := range a.g {
			if got := a.warped(j); got != c.want {
				t.Errorf("%v, wide %v, %d evaluations: constraint %d warped %v, want %v", c.ps, c.wide, len(c.xs)*9, j, got, c.want)
			}
		}
		if want := map[bool]float64{true: 3, false: 0}[c.want]; a.noisyBeta() != want {
			t.Errorf("%v, wide %v: the noisy safe set's β %v, want %v", c.ps, c.wide, a.noisyBeta(), want)
		}
	}
}

// first-fit=early: on a 20-dim box, at the first decision once every model
// holds 2(d+2) = 44 observations, f's and the constraint's models have fitted
// their hyperparameters (the doubling schedule alone fits at 64); not with
// first-fit=doubling, nor in 19 dims (2(d+2) = 42: the schedule's next
// refresh, 64, has not come), nor before 44 observations.
func TestFirstFitEarly(t *testing.T) {
	for _, c := range []struct {
		d, n int
		ps   bandit.Params
		want bool
	}{{20, 44, nil, true}, {20, 44, bandit.Params{"first-fit": "doubling"}, false}, {19, 44, nil, false}, {20, 43, nil, false}} {
		a := wideConfig(t, c.d, c.n, c.ps, rand.New(rand.NewPCG(5, 6)), func(x []float64) (float64, float64) { return -x[0], x[1] - 0.05 })
		if _, err := a.Decide(&bandit.Round{T: c.n + 1}); err != nil {
			t.Fatal(err)
		}
		f, g := a.f.(*model.Adaptive).Fitted(), a.g[0].(*model.Adaptive).Fitted()
		if f != c.want || g != c.want {
			t.Errorf("%d dims, %d observations, params %v: f fitted %v, g fitted %v; want %v", c.d, c.n, c.ps, f, g, c.want)
		}
	}
}
