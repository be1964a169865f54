package agent

import (
	"math"
	"slices"
	"testing"

	"github.com/cbandit/cbandit/bandit"
	"github.com/cbandit/cbandit/domain"
	"github.com/cbandit/cbandit/gp"
)

// TestConfirmableHandSolved: recommendFixture standardised, λ = 1 in the
// models' units; arm 0's constraint has posterior N(−1/1.1, ½), so after n
// more observations there N(−1/1.1, 1/(2 + n)) and P = Φ(√(2 + n)/1.1):
// 0.9027 (n = 0), 0.9423 (1), 0.9655 (2). Arm 1's mean is above the limit:
// never. At level 0.95 arm 0 is confirmable from n = 2; at 0.9 it already
// is the recommendation.
func TestConfirmableHandSolved(t *testing.T) {
	a := recommendFixture(t, "on").(*LogNEI)
	ev, ok := a.evaluated()
	if !ok {
		t.Fatal("not evaluated")
	}
	for _, c := range []struct {
		level float64
		n     int
		want  int
	}{{0.95, 0, -1}, {0.95, 1, -1}, {0.95, 2, 0}, {0.95, 50, 0}, {0.9, 0, 0}, {0.97, 2, -1}} {
		if got := a.confirmable(ev, c.level, c.n, 0, -1); got != c.want {
			t.Errorf("level %v, n = %d: %d, want %d", c.level, c.n, got, c.want)
		}
	}
	// Horizon 10 and confirm 0.1: round 10 is the confirmation's; with one
	// round left arm 0 is not confirmable (0.9423), so lognei searches.
	if a.from != 10 {
		t.Fatalf("from = %d, want 10", a.from)
	}
	if _, ok, _ := a.confirmTurn(10, a.from, a.horizon, false); ok {
		t.Error("round 10: confirms with one round left")
	}
	b := recommendFixture(t, "on").(*LogNEI)
	b.from = 11 // no confirmation: the search plays arm 1
	if d, err := b.Decide(&bandit.Round{T: 9}); err != nil || d.Action.Arm != 1 {
		t.Fatalf("round 9 searching: %+v, %v; want arm 1", d.Action, err)
	}
	b = recommendFixture(t, "on").(*LogNEI)
	b.from = 9 // two rounds left at round 9: arm 0 is replicated
	d, err := b.Decide(&bandit.Round{T: 9})
	if err != nil {
		t.Fatal(err)
	}
	if d.Action.Arm != 0 {
		t.Errorf("round 9 of 10: plays %+v, want arm 0", d.Action)
	}
	if _, ok, _ := b.confirmTurn(8, b.from, b.horizon, false); ok {
		t.Error("round 8: confirms before its rounds")
	}
}

// TestConfirmEarlierGeneration: confirm = 0 (generation 10) leaves no
// confirmation round.
func TestConfirmEarlierGeneration(t *testing.T) {
	for _, c := range []struct {
		v       string
		T, want int
	}{{"0", 200, 201}, {"0.1", 200, 181}, {"0.1", 15, 14}, {"0.5", 3, 2}} {
		got, err := confirmFrom("lognei", bandit.Params{"confirm": c.v}, c.T)
		if err != nil || got != c.want {
			t.Errorf("confirm %s, T = %d: %d, %v; want %d", c.v, c.T, got, err, c.want)
		}
	}
}

// neiFixture is lognei with incumbent=nei on [0, 100] with an SE kernel of
// lengthscale 1 (points 50 apart are independent), the kernel fixed and
// noise variance lam, told (x, f, g) triples.
func neiFixture(t *testing.T, lam string, obs [][3]float64) *LogNEI {
	t.Helper()
	dom, err := domain.NewBox([]float64{0}, []float64{100})
	if err != nil {
		t.Fatal(err)
	}
	k, err := gp.NewSE(1, 1)
	if err != nil {
		t.Fatal(err)
	}
	ag, err := New("lognei", Config{Info: bandit.Info{Domain: dom, M: 1, Kernel: k, NoiseVar: 1, B: 10, G: 10, R: 1, RG: 1}, Horizon: 10, Seed: 3,
		Params: bandit.Params{"standardise": "off", "hyper": "fixed", "lambda": lam, "incumbent": "nei"}})
	if err != nil {
		t.Fatal(err)
	}
	for r, o := range obs {
		d, err := ag.(bandit.Imposer).Impose(&bandit.Round{T: r + 1}, bandit.PointAction([]float64{o[0]}))
		if err != nil {
			t.Fatal(err)
		}
		if err := ag.Observe(bandit.Feedback{ID: d.ID, Reward: o[1], HasReward: true, Costs: []float64{o[2]}}); err != nil {
			t.Fatal(err)
		}
	}
	return ag.(*LogNEI)
}

// TestNEIZeroNoiseIsEI: with noise variance 1e-10 the joint draws at the
// evaluated points are their observations, so every draw's incumbent is
// the best feasible observation (f = 2 at x = 50; x = 100 has f = 5 but
// g = 1 > 0) and noisy EI is EI over it.
func TestNEIZeroNoiseIsEI(t *testing.T) {
	a := neiFixture(t, "1e-10", [][3]float64{{0, 1, -1}, {50, 2, -0.5}, {100, 5, 1}})
	ev, ok := a.evaluated()
	if !ok {
		t.Fatal("not evaluated")
	}
	best, at := plugInIncumbent(ev, ok, 1, nil)
	bests := a.incumbents(ev, at, 4)
	if at != 1 || math.Abs(best-2) > 1e-6 || len(bests) != NEIDraws {
		t.Fatalf("plug-in %v at %d, %d draws", best, at, len(bests))
	}
	for _, b := range bests {
		if math.Abs(b-2) > 1e-4 {
			t.Fatalf("a draw's incumbent %v, want 2", b)
		}
	}
	for _, c := range [][2]float64{{1, 0.5}, {3, 2}, {-4, 0.1}} {
		if got, want := logImprovement(c[0], c[1], best, bests), logEI(c[0], c[1], 2); math.Abs(got-want) > 1e-4*math.Max(1, math.Abs(want)) {
			t.Errorf("NEI(%v, %v) = %v, EI over 2 = %v", c[0], c[1], got, want)
		}
	}
}

// TestNEIOnePointHandSolved: one evaluated point x = 0 told f = 4, g = −100
// with λ = 1: its posterior is f ~ N(2, ½), g ~ N(−50, ½) (always
// feasible), so the draws' incumbents are draws of N(2, ½) in antithetic
// pairs: each pair symmetric about 2, and over many rounds their spread
// is √½. Noisy EI of a point with the same posterior
// as the incumbent's marginal exceeds EI over the plug-in 2 (Jensen: EI is
// convex in the incumbent).
func TestNEIOnePointHandSolved(t *testing.T) {
	a := neiFixture(t, "1", [][3]float64{{0, 4, -100}})
	ev, ok := a.evaluated()
	if !ok {
		t.Fatal("not evaluated")
	}
	best, at := plugInIncumbent(ev, ok, 1, nil)
	bests := a.incumbents(ev, at, 2)
	if at != 0 || math.Abs(best-2) > 1e-9 || len(bests) != NEIDraws {
		t.Fatalf("plug-in %v at %d, %d draws", best, at, len(bests))
	}
	for s := 0; s < len(bests); s += 2 {
		if math.Abs(bests[s]+bests[s+1]-4) > 1e-9 {
			t.Fatalf("pair %v, %v not symmetric about 2", bests[s], bests[s+1])
		}
	}
	var sum, sq float64
	var n int
	for r := 1; r <= 100; r++ { // 3,200 draws: the spread within ±8 % of √½
		for _, b := range a.incumbents(ev, at, r) {
			sum += b
			sq += (b - 2) * (b - 2)
			n++
		}
	}
	if sd := math.Sqrt(sq / float64(n)); math.Abs(sum/float64(n)-2) > 1e-9 || math.Abs(sd-math.Sqrt(0.5)) > 0.08*math.Sqrt(0.5) {
		t.Errorf("draws' mean %v (want 2), std %v (want %v)", sum/float64(n), sd, math.Sqrt(0.5))
	}
	if nei, ei := logImprovement(2, 0.5, best, bests), logEI(2, 0.5, 2); !(nei > ei) {
		t.Errorf("NEI %v ≤ EI %v", nei, ei)
	}
}

// TestConfirmChallenger: λ = 1, x = 0 told f = 5 once (f ~ N(2.5, ½)), x =
// 50 told f = 3.6 three times (N(2.7, ¼)), both far inside the limit. The
// recommendation is x = 50 (the larger mean); the upper bounds are 2.5 +
// 1.645·√½ = 3.663 and 2.7 + 1.645·½ = 3.5225, so the challenger is x = 0.
func TestConfirmChallenger(t *testing.T) {
	a := neiFixture(t, "1", [][3]float64{{0, 5, -100}, {50, 3.6, -100}, {50, 3.6, -100}, {50, 3.6, -100}})
	ev, ok := a.evaluated()
	if !ok {
		t.Fatal("not evaluated")
	}
	if rec, ch := a.confirmable(ev, 0.95, 0, 0, -1), a.confirmable(ev, 0.95, 0, ConfirmBeta, -1); rec != 1 || ch != 0 {
		t.Fatalf("recommendation %d (want 1, x = 50), challenger %d (want 0, x = 0)", rec, ch)
	}
	if ch := a.confirmable(ev, 0.95, 0, ConfirmBeta, 0); ch != 1 {
		t.Fatalf("challenger with x = 0 excluded: %d, want 1", ch)
	}
	// These models report no fitted noise (unstandardised, fixed kernel):
	// every metric counts as deterministic, and the confirmation searches.
	if _, ok, _ := a.confirmTurn(5, 5, 10, false); ok {
		t.Error("confirms with every metric deterministic")
	}
}

// confirmArms is lognei (confirm-spare as given) on three independent
// arms, standardised, λ = 1, told arm 0 three times (f 4, g −3), arm 1
// once (f 1, g 2: over the limit) and arm 2 once (f f2, g −2.5).
func confirmArms(t *testing.T, f2 float64, spare string) *LogNEI {
	t.Helper()
	dom, err := domain.NewFinite([][]float64{{0}, {100}, {200}})
	if err != nil {
		t.Fatal(err)
	}
	k, err := gp.NewSE(1, 1)
	if err != nil {
		t.Fatal(err)
	}
	ag, err := New("lognei", Config{Info: bandit.Info{Domain: dom, M: 1, Kernel: k, NoiseVar: 1, B: 10, G: 10, R: 1, RG: 1}, Horizon: 20, Seed: 1,
		Params: bandit.Params{"standardise": "on", "hyper": "fixed", "lambda": "1", "confirm-spare": spare}})
	if err != nil {
		t.Fatal(err)
	}
	for r, o := range []struct {
		arm     int
		f, cost float64
	}{{0, 4, -3}, {0, 4, -3}, {0, 4, -3}, {1, 1, 2}, {2, f2, -2.5}} {
		d, err := ag.(bandit.Imposer).Impose(&bandit.Round{T: r + 1}, bandit.ArmAction(o.arm))
		if err != nil {
			t.Fatal(err)
		}
		if err := ag.Observe(bandit.Feedback{ID: d.ID, Reward: o.f, HasReward: true, Costs: []float64{o.cost}}); err != nil {
			t.Fatal(err)
		}
	}
	return ag.(*LogNEI)
}

// TestConfirmAlternates: three independent arms, standardised, λ = 1 (a
// noisy metric to the confirmation): arm 0 told three times well inside
// the limit (the leader; its replicates are one configuration, not
// challengers), arm 2 once with a larger reward and a constraint inside
// (scaled by s = 2.165, the first four values' std: posterior N(−0.577, ½),
// P = 0.79; after 10 replicates variance 1/12, P = Φ(2.0) = 0.977:
// confirmable). The confirmation plays
// the leader in its first round and the challenger in the next.
func TestConfirmAlternates(t *testing.T) {
	a := confirmArms(t, 9, "leader")
	ev, ok := a.evaluated()
	if !ok {
		t.Fatal("not evaluated")
	}
	lead := a.confirmable(ev, confirmLevel, 0, 0, -1)
	ch := a.confirmable(ev, confirmLevel, 10, ConfirmBeta, lead)
	if lead < 0 || ev.acts[lead].Arm != 0 || ch < 0 || ev.acts[ch].Arm != 2 {
		t.Fatalf("leader %d, challenger %d: want arm 0's and arm 2's", lead, ch)
	}
	a.from = 11 // rounds 11..20: 10 left at round 11
	for _, c := range []struct{ t, arm int }{{11, 0}, {12, 2}} {
		tn, ok, _ := a.confirmTurn(c.t, a.from, a.horizon, false)
		if !ok {
			t.Fatalf("round %d: searches", c.t)
		}
		act, err := tn.after(bandit.Action{}, 0)
		if err != nil || act.Arm != c.arm {
			t.Errorf("round %d: plays %+v, want arm %d", c.t, act, c.arm)
		}
	}
}

// TestNEINoisyScope: incumbent=nei-noisy decides as plug-in where the
// metrics are told without noise and as nei where they are noisy, while
// nei itself acts noise-free too (the first fits are not exact) — the
// scope is what nei-noisy adds.
func TestNEINoisyScope(t *testing.T) {
	path := func(inc string, noise float64) []string {
		_, p := typedPath(t, bandit.Params{"incumbent": inc}, noise)
		return p
	}
	if a, b := path("nei-noisy", 0), path("plug-in", 0); !slices.Equal(a, b) {
		t.Errorf("noise-free: nei-noisy decides otherwise than plug-in:\n%v\n%v", a, b)
	}
	if a, b := path("nei", 0), path("plug-in", 0); slices.Equal(a, b) {
		t.Error("noise-free: nei decides as plug-in on this problem; the test no longer tells the scope")
	}
	if a, b := path("nei-noisy", 0.3), path("plug-in", 0.3); slices.Equal(a, b) {
		t.Error("noisy: nei-noisy decides as plug-in")
	}
}

// TestContendersHandBuilt: four evaluated points, f ~ N(μ, 0.01) and one
// constraint. A (μ 5, g −1: feasible with P ≈ 1) sets the bar 5 − 0.3 =
// 4.7; B (μ 1: 1.3 < 4.7) cannot be a draw's best and is left out; C (μ 6,
// g at 4.3σ over its limit: P ≈ 1e−5) is left out; D (μ 4.5, g at its
// limit: P = 0.5, 4.8 ≥ 4.7) stays.
func TestContendersHandBuilt(t *testing.T) {
	var ev evaluated
	for k, c := range [][3]float64{{5, -1, 0.01}, {1, -1, 0.01}, {6, 0.43, 0.01}, {4.5, 0, 0.01}} {
		ev.acts = append(ev.acts, bandit.PointAction([]float64{float64(k)}))
		ev.mv = append(ev.mv, []float64{c[0], 0.01, c[1], c[2]})
		ev.obs = append(ev.obs, []float64{c[0], c[1]})
	}
	got := ev.contenders()
	var xs []float64
	for _, a := range got.acts {
		xs = append(xs, a.X[0])
	}
	if !slices.Equal(xs, []float64{0, 3}) {
		t.Fatalf("contenders at %v, want A and D (0, 3)", xs)
	}
	// With no point sure to hold its limit there is no bar: every point
	// likely enough to hold it contends.
	ev.mv[0][2] = 0
	if got := ev.contenders(); len(got.acts) != 3 {
		t.Errorf("no bar: %d contenders, want 3 (A, B, D)", len(got.acts))
	}
}
