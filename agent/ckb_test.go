package agent

import (
	"math"
	"strings"
	"testing"

	"github.com/cbandit/cbandit/bandit"
	"github.com/cbandit/cbandit/domain"
	"github.com/cbandit/cbandit/gp"
)

func testInfo(t *testing.T) bandit.Info {
	t.Helper()
	k, err := gp.NewSE(0.2, 1)
	if err != nil {
		t.Fatal(err)
	}
	dom, err := domain.NewFinite(domain.Grid(0, 1, 20))
	if err != nil {
		t.Fatal(err)
	}
	return bandit.Info{Domain: dom, M: 1, Kernel: k, NoiseVar: 0.01, B: 2, G: 3, R: 0.1, RG: 0.1, Slater: 0.5}
}

// paperParams are the papers' fixed settings, which the reproductions pin
// against the practical defaults.
func paperParams() bandit.Params {
	return bandit.Params{"standardise": "off", "hyper": "fixed", "widths": "theory"}
}

// newTestCKB builds ckb-ucb with the paper's settings plus params.
func newTestCKB(t *testing.T, params bandit.Params) *CKB {
	t.Helper()
	ps := paperParams()
	for k, v := range params {
		ps[k] = v
	}
	a, err := New("ckb-ucb", Config{Info: testInfo(t), Horizon: 100, Params: ps, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	return a.(*CKB)
}

func TestCKBDefaultsFollowTheorem1(t *testing.T) {
	a := newTestCKB(t, nil)
	// ρ = 4B/δ = 4·2/0.5 = 16, V = G√T/ρ = 3·10/16 (001 Thm. 1).
	if a.rule.Rho != 16 || math.Abs(a.rule.V-30.0/16) > 1e-15 || a.rule.Eps != 0 {
		t.Fatalf("rho, V, eps = %v, %v, %v", a.rule.Rho, a.rule.V, a.rule.Eps)
	}
	s, err := New("ckb-ucb-slack", Config{Info: testInfo(t), Horizon: 100, Seed: 3, Params: paperParams()})
	if err != nil {
		t.Fatal(err)
	}
	if eps := s.(*CKB).rule.Eps; eps != 0.25 { // 003 §4: ε = δ/2
		t.Fatalf("slack eps = %v, want 0.25", eps)
	}
	// β_1 with γ_0 = 0: B + R√(2(1 + ln(2/α))).
	want := 2 + 0.1*math.Sqrt(2*(1+math.Log(2/0.05)))
	if got := a.betaF.At(0); math.Abs(got-want) > 1e-12 {
		t.Fatalf("β_1 = %v, want %v", got, want)
	}
}

// The first decision of CKB-UCB is computed by hand: prior μ = 0, σ = 1,
// so f̄ = min(β, B) and ḡ = −min(β̃, G) everywhere; φ_1 = 0, so every arm ties and
// φ_2 = Proj_[0,ρ](0 + ḡ/V) = 0 since ḡ < 0.
func TestCKBFirstRoundByHand(t *testing.T) {
	a := newTestCKB(t, nil)
	d, err := a.Decide(&bandit.Round{T: 1})
	if err != nil {
		t.Fatal(err)
	}
	if d.ID != 1 || d.Action.Arm < 0 || d.Action.Arm >= 20 {
		t.Fatalf("decision %+v", d)
	}
	if a.rule.Phi[0] != 0 {
		t.Fatalf("φ_2 = %v, want 0", a.rule.Phi[0])
	}
	// With eps large enough the dual variable must grow by (ḡ+ε)/V.
	b := newTestCKB(t, bandit.Params{"eps": "10"})
	if _, err := b.Decide(&bandit.Round{T: 1}); err != nil {
		t.Fatal(err)
	}
	gbar := -math.Min(b.betaG.At(0), 3)
	want := (gbar + 10) / b.rule.V
	if math.Abs(b.rule.Phi[0]-want) > 1e-12 {
		t.Fatalf("φ_2 = %v, want %v", b.rule.Phi[0], want)
	}
}

func TestCKBFeedbackErrors(t *testing.T) {
	a := newTestCKB(t, nil)
	d, err := a.Decide(&bandit.Round{T: 1})
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		fb   bandit.Feedback
		want string
	}{
		{bandit.Feedback{ID: d.ID, Reward: math.NaN(), HasReward: true}, "reward = NaN"},
		{bandit.Feedback{ID: d.ID, Reward: math.Inf(1), HasReward: true}, "reward = +Inf"},
		{bandit.Feedback{ID: d.ID, Costs: []float64{1, 2}}, "costs has 2 values, the problem has 1"},
		{bandit.Feedback{ID: d.ID, Costs: []float64{math.NaN()}}, "costs[0] = NaN"},
		{bandit.Feedback{ID: 99, Reward: 1, HasReward: true}, "id = 99: unknown decision"},
		{bandit.Feedback{ID: 0, Reward: 1, HasReward: true}, "id = 0: unknown decision"},
		{bandit.Feedback{ID: d.ID}, "neither a reward nor costs"},
	}
	for _, c := range cases {
		err := a.Observe(c.fb)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("feedback %+v: want error containing %q, got %v", c.fb, c.want, err)
		}
	}
	// Partial feedback: reward now, costs later; duplicates rejected.
	if err := a.Observe(bandit.Feedback{ID: d.ID, Reward: 0.5, HasReward: true}); err != nil {
		t.Fatal(err)
	}
	if err := a.Observe(bandit.Feedback{ID: d.ID, Reward: 0.5, HasReward: true}); err == nil || !strings.Contains(err.Error(), "reward already observed") {
		t.Fatalf("duplicate reward: %v", err)
	}
	if a.f.Count() != 1 || a.g[0].Count() != 0 {
		t.Fatalf("counts f=%d g=%d after reward only", a.f.Count(), a.g[0].Count())
	}
	if err := a.Observe(bandit.Feedback{ID: d.ID, Costs: []float64{-0.2}}); err != nil {
		t.Fatal(err)
	}
	if a.g[0].Count() != 1 {
		t.Fatalf("cost not recorded")
	}
}

// Late, out-of-order feedback gives the same posterior as in-order feedback
// for the same set of observations (the GP posterior is order-free).
func TestCKBOutOfOrderFeedback(t *testing.T) {
	a := newTestCKB(t, nil)
	b := newTestCKB(t, nil)
	var ds []bandit.Decision
	for r := 1; r <= 5; r++ {
		d, err := a.Decide(&bandit.Round{T: r})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := b.Decide(&bandit.Round{T: r}); err != nil {
			t.Fatal(err)
		}
		ds = append(ds, d)
	}
	for i, d := range ds {
		fb := bandit.Feedback{ID: d.ID, Reward: float64(i) / 10, HasReward: true, Costs: []float64{-float64(i) / 20}}
		if err := a.Observe(fb); err != nil {
			t.Fatal(err)
		}
	}
	for i := len(ds) - 1; i >= 0; i-- {
		fb := bandit.Feedback{ID: ds[i].ID, Reward: float64(i) / 10, HasReward: true, Costs: []float64{-float64(i) / 20}}
		if err := b.Observe(fb); err != nil {
			t.Fatal(err)
		}
	}
	for i, m := range a.f.Mean() {
		if math.Abs(m-b.f.Mean()[i]) > 1e-9 {
			t.Fatalf("posterior mean differs at arm %d: %v vs %v", i, m, b.f.Mean()[i])
		}
	}
}

func TestCKBBadConfig(t *testing.T) {
	in := testInfo(t)
	for _, c := range []struct {
		params bandit.Params
		want   string
	}{
		{bandit.Params{"alpha": "0"}, "alpha = 0"},
		{bandit.Params{"rho": "-1"}, "rho = -1"},
		{bandit.Params{"V": "0"}, "V = 0"},
		{bandit.Params{"eps": "-1"}, "eps = -1"},
		{bandit.Params{"lambda": "0"}, "lambda = 0"},
		{bandit.Params{"beta-scale": "x"}, `beta-scale = "x": not a number`},
	} {
		_, err := New("ckb-ucb", Config{Info: in, Horizon: 100, Params: c.params, Seed: 1})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: want error containing %q, got %v", c.params, c.want, err)
		}
	}
	if _, err := New("ckb-ucb", Config{Info: in, Horizon: 0}); err == nil || !strings.Contains(err.Error(), "horizon = 0") {
		t.Errorf("horizon 0: %v", err)
	}
	in.M = 0
	if _, err := New("ckb-ucb", Config{Info: in, Horizon: 10}); err == nil || !strings.Contains(err.Error(), "no constraints") {
		t.Errorf("M = 0: %v", err)
	}
}

// Same seed and same feedback sequence give the same decisions (event-sourced state).
func TestCKBReplayable(t *testing.T) {
	play := func() []int {
		a := newTestCKB(t, nil)
		var arms []int
		for r := 1; r <= 40; r++ {
			d, err := a.Decide(&bandit.Round{T: r})
			if err != nil {
				t.Fatal(err)
			}
			arms = append(arms, d.Action.Arm)
			x := d.Action.X[0]
			if err := a.Observe(bandit.Feedback{ID: d.ID, Reward: math.Sin(6 * x), HasReward: true, Costs: []float64{0.3 - x}}); err != nil {
				t.Fatal(err)
			}
		}
		return arms
	}
	a, b := play(), play()
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("round %d: %d vs %d", i+1, a[i], b[i])
		}
	}
}
