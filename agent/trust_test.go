package agent

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/cbandit/cbandit/bandit"
	"github.com/cbandit/cbandit/domain"
	"github.com/cbandit/cbandit/gp"
	"github.com/cbandit/cbandit/model"
)

// trustLedger is a ledger on [0,1]³ with one constraint whose decision k
// (0-based) is at (k/100, 0.5, 0.5) with reward ys[k] and cost gs[k].
func trustLedger(t *testing.T, ys, gs []float64, order []int) *Ledger {
	t.Helper()
	l := NewLedger(1)
	for k := range ys {
		l.Record(k+1, bandit.PointAction([]float64{float64(k) / 100, 0.5, 0.5}), 0)
	}
	for _, k := range order {
		if _, err := l.Accept(bandit.Feedback{ID: int64(k + 1), Reward: ys[k], HasReward: true, Costs: []float64{gs[k]}}); err != nil {
			t.Fatal(err)
		}
	}
	return l
}

// SCBO's rules replayed by hand: 10 = FirstFit(3) observations set the
// centre; 3 improvements in a row double L (0.8 → 1.6), 4 = max(4, d)
// rounds without one halve it, a violating point never improves on a
// feasible centre, and the region is clipped to the box. The same data
// told in another order give the same region (decision order), and
// decisions without all their feedback do not count.
func TestTrustRegionReplay(t *testing.T) {
	box, _ := domain.NewBox([]float64{0, 0, 0}, []float64{1, 1, 1})
	var ys, gs []float64
	for k := range 10 { // the start: best feasible is k = 7
		ys, gs = append(ys, float64(k)), append(gs, map[bool]float64{true: 1, false: -1}[k > 7])
	}
	if r := trustRegion(box, trustLedger(t, ys[:9], gs[:9], []int{0, 1, 2, 3, 4, 5, 6, 7, 8})); r != nil {
		t.Fatalf("region after 9 < FirstFit(3) = 10 observations: %+v, want none", r)
	}
	ys, gs = append(ys, 8, 9, 10), append(gs, -1, -1, -1) // 3 improvements: L = 1.6
	for range 8 {                                         // 8 rounds without: L = 0.4
		ys, gs = append(ys, 20), append(gs, 0.5) // better reward but violating
	}
	order := make([]int, len(ys))
	for k := range order {
		order[k] = k
	}
	want := 0.4
	for _, ord := range [][]int{order, slices.Concat(order[15:], order[:15])} {
		r := trustRegion(box, trustLedger(t, ys, gs, ord))
		c := 12.0 / 100 // decision 12 (reward 10)
		if r == nil || r.centre[0] != c {
			t.Fatalf("order %v: region %+v, want centre x₁ = %v", ord, r, c)
		}
		if lo, hi := r.box.Lo, r.box.Hi; lo[0] != 0 || math.Abs(hi[0]-(c+want/2)) > 1e-15 || math.Abs(lo[1]-(0.5-want/2)) > 1e-15 || math.Abs(hi[2]-(0.5+want/2)) > 1e-15 {
			t.Errorf("order %v: box %v–%v, want side %v about the centre, clipped at 0", ord, lo, hi, want)
		}
	}
	// Decisions pending, partly observed or abandoned do not enter it.
	l := trustLedger(t, ys, gs, order)
	before := trustRegion(box, l)
	for k := range 3 {
		l.Record(len(ys)+k+1, bandit.PointAction([]float64{0.9, 0.9, 0.9}), 0)
	}
	if err := l.Abandon(int64(len(ys) + 1)); err != nil {
		t.Fatal(err)
	}
	if _, err := l.Accept(bandit.Feedback{ID: int64(len(ys) + 2), Reward: 99, HasReward: true}); err != nil {
		t.Fatal(err)
	}
	if r := trustRegion(box, l); !slices.Equal(r.centre, before.centre) || !slices.Equal(r.box.Lo, before.box.Lo) || !slices.Equal(r.box.Hi, before.box.Hi) {
		t.Errorf("with decisions pending: region %v about %v, want %v about %v", r.box, r.centre, before.box, before.centre)
	}
	// No feasible point: the least violating one is the centre.
	ys2 := slices.Repeat([]float64{1}, 10)
	gs2 := []float64{5, 4, 3, 0.5, 2, 1, 3, 4, 5, 6}
	if r := trustRegion(box, trustLedger(t, ys2, gs2, order[:10])); r == nil || r.centre[0] != 0.03 {
		t.Errorf("infeasible data: region %+v, want centre at decision 3 (violation 0.5)", r)
	}
	// 1–2 dimensions: no region.
	box2, _ := domain.NewBox([]float64{0, 0}, []float64{1, 1})
	if r := trustRegion(box2, trustLedger(t, ys, gs, order)); r != nil {
		t.Errorf("2-D box: region %+v, want none", r)
	}
}

// trustRegionBy replays the rules on what by reads: where the
// observations of 6 decisions after the start never improve on decision 3
// (4 rounds without halve L to 0.4), a reading by which each improves on
// the last (3 in a row double it to 1.6) centres the region on the last,
// and a reading that keeps decision 3 best halves L as the observations.
func TestTrustRegionBy(t *testing.T) {
	box, _ := domain.NewBox([]float64{0, 0, 0}, []float64{1, 1, 1})
	ys := slices.Repeat([]float64{1}, 16)
	gs := []float64{5, 4, 3, 0.5, 2, 1, 3, 4, 5, 6, 9, 9, 9, 9, 9, 9}
	order := make([]int, len(ys))
	for k := range order {
		order[k] = k
	}
	l := trustLedger(t, ys, gs, order)
	obs := func(k int, e *entry) (float64, float64) { return gs[k], e.reward }
	down := func(k int, e *entry) (float64, float64) {
		if k < 10 {
			return gs[k], e.reward
		}
		return 0.4 - 0.05*float64(k-10), e.reward
	}
	for _, c := range []struct {
		name   string
		by     func(k int, e *entry) (float64, float64)
		centre float64
		side   float64
	}{{"nil", nil, 0.03, 0.4}, {"observations", obs, 0.03, 0.4}, {"improving", down, 0.15, 1.6}} {
		r := trustRegionBy(box, l, c.by)
		if r == nil || r.centre[0] != c.centre || r.side != c.side {
			t.Errorf("%s: region %+v, want centre x₁ = %v, side %v", c.name, r, c.centre, c.side)
		}
	}
}

// region = trust: rpol-ucb's and config's default; every decision after
// the first fit lies in the region trustRegion gives before it; global
// and a bad value as the other agents take it.
func TestTrustRegionDecisions(t *testing.T) {
	for _, c := range []struct {
		algo string
		ps   bandit.Params
		want regionMode
	}{
		{"rpol-ucb", nil, regionTrust | regionFresh}, {"config", nil, regionTrust | regionFresh}, {"ckb-ucb", nil, regionGlobal},
		{"config", bandit.Params{"region-pending": "global"}, regionIdle | regionFresh},
		{"ckb-ucb", bandit.Params{"region": "trust"}, regionTrust | regionFresh},
		{"config", bandit.Params{"region-candidates": "fixed"}, regionTrust},
		{"rpol-ucb", bandit.Params{"region": "global", "region-pending": "global"}, regionGlobal},
	} {
		if got, err := regionParam(c.algo, c.ps); err != nil || got != c.want {
			t.Errorf("%s %v: region mode %v, %v; want %v", c.algo, c.ps, got, err, c.want)
		}
	}
	for _, ps := range []bandit.Params{{"region": "local"}, {"region-pending": "box"}, {"region": "global", "region-pending": "box"}, {"region-candidates": "many"}} {
		if _, err := regionParam("rpol-ucb", ps); err == nil {
			t.Errorf("%v accepted", ps)
		}
	}
	const T = 40
	// inside, outside count the decisions after the first fit in and out
	// of the region trustRegion gives (the decision, not yet observed,
	// does not enter it).
	count := func(ps bandit.Params) (inside, outside int) {
		replayHook(t, "suite-hartmann6", "rpol-ucb", ps, 1, 0, T, func(a bandit.Agent, r int, x []float64) {
			if reg := trustRegion(a.(*RPOL).info.Domain, a.(*RPOL).ledger); reg != nil {
				if reg.box.Contains(x) == nil {
					inside++
				} else {
					outside++
				}
			}
		})
		return inside, outside
	}
	if in, out := count(nil); in != T-16 || out != 0 {
		t.Errorf("region = trust: %d decisions in the region, %d out; want %d, 0 (rounds FirstFit(6)+1 = 17 on)", in, out, T-16)
	}
	if _, out := count(bandit.Params{"region": "global"}); out == 0 {
		t.Error("region = global: every decision in the trust region too (the check above cannot tell)")
	}
}

// The maximiser keeps to a trust region: with an acquisition (μ_f) whose
// maximum over the box is at x₁ = 1, the decision is the best point of the
// region [0.2, 0.4]³ (x₁ = 0.4, refined from the centre), not of the box,
// with or without decisions pending (one at the centre); with
// region-pending = global (regionIf gives nil) it searches the whole box.
// In a region holding no candidate, with its centre pending, the decision
// still lies in it (before regionRestart it was the masked arg max: any
// candidate of the box); in one within the pending point's exclusion ball
// it is the whole box's best, as without a region. A Thompson draw (values on the candidates only)
// searches the whole box when no candidate lies in the region.
func TestPickAcqInRegion(t *testing.T) {
	box, _ := domain.NewBox([]float64{0, 0, 0}, []float64{1, 1, 1})
	k, _ := gp.NewSE(0.5, 1)
	f, err := model.NewBox(box, k, 0.01, domain.Halton(256, 3))
	if err != nil {
		t.Fatal(err)
	}
	for i, x := range domain.Halton(20, 3) {
		if err := f.Observe(bandit.PointAction(x), x[0]); err != nil {
			t.Fatalf("observation %d: %v", i, err)
		}
	}
	acq := func(mv []float64) float64 { return mv[0] }
	score := make([]float64, f.Len())
	g := ascentOptions(3)
	centre := []float64{0.3, 0.3, 0.3}
	rb, _ := domain.NewBox([]float64{0.2, 0.2, 0.2}, []float64{0.4, 0.4, 0.4})
	reg := &region{box: rb, centre: centre}
	tiny, _ := domain.NewBox([]float64{0.3, 0.3, 0.3}, []float64{0.3001, 0.3001, 0.3001})
	mu, vr := f.Mean(), f.Var()
	fill := func(i int, mv []float64) { mv[0], mv[1] = mu[i], vr[i] }
	act, _, err := choice{ms: []model.Model{f}, acq: acq, score: score, fill: fill, reg: &region{box: tiny, centre: centre}}.pick(rand.New(rand.NewPCG(1, 2)), box)
	if err != nil || anyInside(f, f.Len(), tiny, nil) || act.X[0] < 0.9 {
		t.Errorf("a draw, no candidate in the region: %v (%v), want the best candidate of the box (x₁ ≥ 0.9)", act.X, err)
	}
	busy := pending{acts: []bandit.Action{bandit.PointAction(centre)}}
	for _, c := range []struct {
		reg  *region
		pend pending
	}{{nil, pending{}}, {nil, busy}, {reg, busy}, {reg, pending{}}} {
		act, _, err := choice{ms: []model.Model{f}, acq: acq, score: score, refine: &g, pend: c.pend, reg: c.reg}.pick(rand.New(rand.NewPCG(1, 2)), box)
		if err != nil {
			t.Fatal(err)
		}
		x := act.X[0]
		if c.reg == nil && x < 0.9 {
			t.Errorf("whole box (%d pending): x₁ = %v, want ≥ 0.9", len(c.pend.acts), x)
		}
		if c.reg != nil && (rb.Contains(act.X) != nil || x < 0.39) {
			t.Errorf("region, %d pending: decision %v, want in %v with x₁ ≈ 0.4", len(c.pend.acts), act.X, rb)
		}
	}
	small, _ := domain.NewBox([]float64{0.29, 0.29, 0.29}, []float64{0.31, 0.31, 0.31})
	if anyInside(f, f.Len(), small, nil) {
		t.Fatal("a candidate in the small region: the case below needs none")
	}
	rep := repeats(box, busy.acts)
	for seed := range uint64(20) {
		act, _, err := choice{ms: []model.Model{f}, acq: acq, score: score, refine: &g, pend: busy, reg: &region{box: small, centre: centre}}.pick(rand.New(rand.NewPCG(seed, 2)), box)
		if err != nil || small.Contains(act.X) != nil || rep(act) {
			t.Fatalf("seed %d: region without candidates, its centre pending: decision %v (%v), want in %v, not the pending point", seed, act.X, err, small)
		}
		// The tiny region lies within the pending point's exclusion ball:
		// the whole box, as without a region.
		act, _, err = choice{ms: []model.Model{f}, acq: acq, score: score, refine: &g, pend: busy, reg: &region{box: tiny, centre: centre}}.pick(rand.New(rand.NewPCG(seed, 2)), box)
		if err != nil || rep(act) || act.X[0] < 0.9 {
			t.Fatalf("seed %d: region within the exclusion ball: decision %v (%v), want the whole box's best (x₁ ≥ 0.9)", seed, act.X, err)
		}
	}
	if regionIf(regionIdle, box, nil, busy) != nil || regionIf(regionGlobal, box, nil, pending{}) != nil {
		t.Error("regionIf: a region with region-pending = global and a decision pending, or with region = global")
	}
}

// The trust region on hartmann6 (docs/defaults.md, "Generation
// 6: a trust region in 3+ dimensions"): trial 0 of `cbandit run --problem suite-hartmann6 --algos
// rpol-ucb --seed 1`, mean true reward over rounds 101–200 (the optimum
// 3.322): on the whole box rpol-ucb settles on the ball's boundary below
// the fourth bump (1.9), in the region it climbs the optimum's (3.3).
func TestTrustRegionHartmann6(t *testing.T) {
	if testing.Short() {
		t.Skip("two runs of 200 rounds in 6-D")
	}
	late := func(ps bandit.Params) float64 {
		fs, _ := replayTrial(t, "suite-hartmann6", "rpol-ucb", ps, 1, 0, 200)
		var s float64
		for _, f := range fs[100:] {
			s += f
		}
		return s / 100
	}
	global, trust := late(bandit.Params{"region": "global"}), late(nil)
	if global > 2.0 || trust < 3.2 {
		t.Errorf("late mean reward: region=global %.3f (want ≤ 2.0), trust %.3f (want ≥ 3.2 of 3.322)", global, trust)
	}
	t.Logf("late mean reward: global %.3f, trust %.3f", global, trust)
}
