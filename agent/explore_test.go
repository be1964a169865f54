package agent

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/cbandit/cbandit/bandit"
	"github.com/cbandit/cbandit/domain"
	"github.com/cbandit/cbandit/gp"
)

// play runs T rounds of agent id on a fixed 1-D problem with f(x) = sin(3x),
// g(x) = 0.2 − f(x) and Gaussian noise, returning the arms played.
func play(t testing.TB, id string, n, T int, params bandit.Params, in bandit.Info) []int {
	t.Helper()
	a, err := New(id, Config{Info: in, Horizon: T, Params: params, Seed: 11})
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	pts := in.Domain.(*domain.Finite).Points
	var arms []int
	for r := 1; r <= T; r++ {
		round := &bandit.Round{T: r}
		if in.FullInfo {
			round.ConstraintSample = func(x bandit.Action, dst []float64) {
				dst[0] = 0.2 - math.Sin(3*pts[x.Arm][0]) + 0.05*(2*rng.Float64()-1)
			}
		}
		d, err := a.Decide(round)
		if err != nil {
			t.Fatal(err)
		}
		x := pts[d.Action.Arm][0]
		f := math.Sin(3 * x)
		if err := a.Observe(bandit.Feedback{ID: d.ID, Reward: f + 0.1*rng.NormFloat64(), HasReward: true,
			Costs: []float64{0.2 - f + 0.1*rng.NormFloat64()}}); err != nil {
			t.Fatal(err)
		}
		arms = append(arms, d.Action.Arm)
	}
	return arms
}

func infoN(t testing.TB, n int) bandit.Info {
	t.Helper()
	k, err := gp.NewSE(0.2, 1)
	if err != nil {
		t.Fatal(err)
	}
	dom, err := domain.NewFinite(domain.Grid(0, 1, n))
	if err != nil {
		t.Fatal(err)
	}
	safe := bandit.Action{Arm: n / 2, X: dom.Points[n/2]}
	return bandit.Info{Domain: dom, M: 1, Kernel: k, NoiseVar: 0.01, B: 1, G: 1.2, R: 0.1, RG: 0.1, Slater: 0.5, Safe: &safe}
}

// ckb-rand with z=fixed is ckb-ucb, decision for decision (001 Def. 2 with
// Z_t = β_t is Def. 1 (i)).
func TestCKBRandFixedIsCKBUCB(t *testing.T) {
	in := infoN(t, 30)
	a := play(t, "ckb-ucb", 30, 60, nil, in)
	b := play(t, "ckb-rand", 30, 60, bandit.Params{"z": "fixed"}, in)
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("round %d: ckb-ucb played %d, ckb-rand z=fixed %d", i+1, a[i], b[i])
		}
	}
}

// Every new agent is deterministic by seed.
func TestNewAgentsDeterministic(t *testing.T) {
	in := infoN(t, 25)
	full := in
	full.FullInfo = true
	for _, c := range []struct {
		id string
		in bandit.Info
	}{{"ckb-ts", in}, {"ckb-rand", in}, {"scgp-ucb", full}, {"safeopt", in}, {"stageopt", in}, {"sgp-ucb", in}} {
		a := play(t, c.id, 25, 40, nil, c.in)
		b := play(t, c.id, 25, 40, nil, c.in)
		for i := range a {
			if a[i] != b[i] {
				t.Fatalf("%s: round %d differs between identical runs", c.id, i+1)
			}
		}
	}
}

// The safe-BO baselines only play arms certified safe: with g = 0.2 − sin 3x
// (unsafe for x < 0.0675 and x > 0.98) and L = G they never leave the safe region.
func TestSafeBaselinesStaySafe(t *testing.T) {
	in := infoN(t, 40)
	pts := in.Domain.(*domain.Finite).Points
	for _, id := range []string{"safeopt", "stageopt", "sgp-ucb"} {
		for _, arm := range play(t, id, 40, 150, nil, in) {
			if g := 0.2 - math.Sin(3*pts[arm][0]); g > 0 {
				t.Fatalf("%s played unsafe arm %d (g = %v)", id, arm, g)
			}
		}
	}
}

func TestBadInputErrors(t *testing.T) {
	in := infoN(t, 10)
	noSeed := in
	noSeed.Safe = nil
	cases := []struct {
		id     string
		in     bandit.Info
		params bandit.Params
		want   string
	}{
		{"safeopt", noSeed, nil, "no safe seed"},
		{"stageopt", noSeed, nil, "no safe seed"},
		{"sgp-ucb", noSeed, nil, "no safe seed"},
		{"stageopt", in, bandit.Params{"L": "0", "safe-set": "lipschitz"}, "parameter L = 0"},
		{"safeopt", in, bandit.Params{"L": "-1", "safe-set": "lipschitz"}, "parameter L = -1"},
		{"safeopt", in, bandit.Params{"L": "1"}, "parameter L = 1 applies with safe-set=lipschitz only (safe-set = gp)"},
		{"stageopt", in, bandit.Params{"beta": "0"}, "parameter beta = 0"},
		{"stageopt", in, bandit.Params{"beta": "2", "safe-set": "lipschitz"}, "parameter beta = 2 applies with safe-set=gp only (safe-set = lipschitz)"},
		{"safeopt", in, bandit.Params{"safe-set": "box"}, "safe-set"},
		{"scgp-ucb", in, nil, "full constraint information"},
		{"ckb-rand", in, bandit.Params{"z": "cauchy"}, "parameter z"},
		{"ckb-rand", in, bandit.Params{"z": "uniform", "z-points": "1"}, "z-points = 1"},
	}
	for _, c := range cases {
		_, err := New(c.id, Config{Info: c.in, Horizon: 10, Params: c.params})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Fatalf("%s %v: error %v, want it to mention %q", c.id, c.params, err, c.want)
		}
	}
	full := in
	full.FullInfo = true
	a, err := New("scgp-ucb", Config{Info: full, Horizon: 10})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.Decide(&bandit.Round{T: 1}); err == nil || !strings.Contains(err.Error(), "ConstraintSample") {
		t.Fatalf("scgp-ucb without a sample: %v", err)
	}
}

// SCGP-UCB's first round by hand: Q(1) = 0 so it maximises f̄ (all equal to
// min(β_1, B) = B under the prior); then Q(2) = [g_1(x_1) + 1]⁺ (ε_1 = 1).
func TestSCGPFirstRoundByHand(t *testing.T) {
	in := infoN(t, 10)
	in.FullInfo = true
	a, err := New("scgp-ucb", Config{Info: in, Horizon: 10, Seed: 1, Params: bandit.Params{"standardise": "off"}})
	if err != nil {
		t.Fatal(err)
	}
	gs := func(x bandit.Action, dst []float64) { dst[0] = float64(x.Arm) - 4.5 }
	d, err := a.Decide(&bandit.Round{T: 1, ConstraintSample: gs})
	if err != nil {
		t.Fatal(err)
	}
	want := math.Max(0, float64(d.Action.Arm)-4.5+1)
	if q := a.(*SCGP).Queue()[0]; q != want {
		t.Fatalf("Q(2) = %v, want %v (arm %d)", q, want, d.Action.Arm)
	}
}

func benchAgent(b *testing.B, id string) {
	in := infoN(b, 100)
	if id == "scgp-ucb" {
		in.FullInfo = true
	}
	var params bandit.Params
	if id == "sgp-ucb" {
		params = bandit.Params{"explore": "0"} // time the UCB phase
	}
	a, err := New(id, Config{Info: in, Horizon: 1 << 20, Params: params, Seed: 1})
	if err != nil {
		b.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 1))
	gs := func(x bandit.Action, dst []float64) { dst[0] = -0.1 }
	r := 0
	step := func() {
		r++
		d, err := a.Decide(&bandit.Round{T: r, ConstraintSample: gs})
		if err != nil {
			b.Fatal(err)
		}
		if err := a.Observe(bandit.Feedback{ID: d.ID, Reward: rng.NormFloat64(), HasReward: true, Costs: []float64{rng.NormFloat64() - 1}}); err != nil {
			b.Fatal(err)
		}
	}
	for i := 0; i < 50; i++ { // a posterior with some data
		step()
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		step()
	}
}

func BenchmarkRound100CKBUCB(b *testing.B)   { benchAgent(b, "ckb-ucb") }
func BenchmarkRound100CKBTS(b *testing.B)    { benchAgent(b, "ckb-ts") }
func BenchmarkRound100CKBRand(b *testing.B)  { benchAgent(b, "ckb-rand") }
func BenchmarkRound100SCGPUCB(b *testing.B)  { benchAgent(b, "scgp-ucb") }
func BenchmarkRound100SafeOpt(b *testing.B)  { benchAgent(b, "safeopt") }
func BenchmarkRound100StageOpt(b *testing.B) { benchAgent(b, "stageopt") }
func BenchmarkRound100SGPUCB(b *testing.B)   { benchAgent(b, "sgp-ucb") }
