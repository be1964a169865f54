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

// TestLogNEIRegionUCB: in the trust region lognei plays CONFIG's rule —
// UCB of f (β_f = 2) where every LCB of g (β_g = 1) is ≤ 0, else below
// every such point by the largest LCB — and from ⌈T/2⌉, once an
// evaluation met every limit, the safe stage's UCB of g (β = 1), and
// region-points candidates drawn instead of SCBO's count; with
// region-acq=logei, or below 10 dims (region=auto), its own acquisition.
func TestLogNEIRegionUCB(t *testing.T) {
	agentOn := func(d int, ps bandit.Params) *LogNEI {
		lo, hi := make([]float64, d), make([]float64, d)
		for i := range hi {
			hi[i] = 1
		}
		box, err := domain.NewBox(lo, hi)
		if err != nil {
			t.Fatal(err)
		}
		ag, err := New("lognei", Config{Info: bandit.Info{Domain: box, M: 1}, Horizon: 100, Seed: 1, Params: ps})
		if err != nil {
			t.Fatal(err)
		}
		// FirstFit(d) observations, all infeasible but the last when feasible is set
		for r := 1; r <= model.FirstFit(d); r++ {
			x := make([]float64, d)
			for i := range x {
				x[i] = float64((r*7+i*3)%11) / 10
			}
			dec, err := ag.(bandit.Imposer).Impose(&bandit.Round{T: r}, bandit.PointAction(x))
			if err != nil {
				t.Fatal(err)
			}
			if err := ag.Observe(bandit.Feedback{ID: dec.ID, Reward: x[0], HasReward: true, Costs: []float64{1 + x[1]}}); err != nil {
				t.Fatal(err)
			}
		}
		return ag.(*LogNEI)
	}
	a := agentOn(10, nil)
	at := func(t int) Acquisition {
		acq, _, ok := a.region.acq(a.gpCore, t)
		if !ok {
			return nil
		}
		return acq
	}
	p := func(muF, vF, muG, vG float64) Posterior { return Posterior{[]float64{muF, vF, muG, vG}} }
	acq := at(30)
	if acq == nil {
		t.Fatal("lognei in 10 dims after the first fit: no trust-region rule")
	}
	for _, c := range []struct {
		p    Posterior
		want float64
	}{
		{p(1, 1, 0.3, 0.25), 3},               // LCB of g = −0.2 ≤ 0: μ + 2σ of f
		{p(1, 1, 1, 0.25), -safeMargin * 1.5}, // LCB 0.5 > 0
		{p(5, 4, 2, 1), -safeMargin * 2},      // LCB 1
	} {
		if got := acq(c.p); math.Abs(got-c.want) > 1e-9*math.Abs(c.want) {
			t.Errorf("before T/2: acq(%v) = %v, want %v", c.p.mv, got, c.want)
		}
	}
	if n := a.region.count(a.gpCore); n != 0 {
		t.Errorf("nothing feasible: %d candidates, want 0 (SCBO's count)", n)
	}
	// From T/2 with no feasible evaluation: still the optimistic rule.
	if got := at(50)(p(1, 1, 0.3, 0.25)); got != 3 {
		t.Errorf("at T/2, nothing feasible: %v, want 3", got)
	}
	x := make([]float64, 10)
	dec, err := a.Impose(&bandit.Round{T: 49}, bandit.PointAction(x))
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Observe(bandit.Feedback{ID: dec.ID, Reward: 0, HasReward: true, Costs: []float64{-1}}); err != nil {
		t.Fatal(err)
	}
	if n := a.region.count(a.gpCore); n != RegionPoints {
		t.Errorf("one feasible: %d candidates, want %d", n, RegionPoints)
	}
	if got := at(49)(p(1, 1, 0.3, 0.25)); got != 3 {
		t.Errorf("before T/2, one feasible: %v, want 3", got)
	}
	safe := at(50)
	if got, want := safe(p(1, 1, 0.3, 0.25)), -safeMargin*1.8; math.Abs(got-want) > 1e-9*-want { // UCB of g 0.8
		t.Errorf("safe stage: acq = %v, want %v", got, want)
	}
	if got := safe(p(1, 1, -1, 0.25)); got != 3 { // UCB −0.5
		t.Errorf("safe stage, UCB of g ≤ 0: %v, want 3", got)
	}
	if b := agentOn(10, bandit.Params{"region-acq": "logei"}); b.region != nil {
		t.Error("region-acq=logei: the trust-region rule is set")
	}
	if b := agentOn(4, nil); b.region != nil {
		if _, _, ok := b.region.acq(b.gpCore, 30); ok {
			t.Error("4 dims with region=auto: the trust-region rule applies")
		}
	}
}

// The trust region's fresh candidates scored without f where CONFIG's rule
// does not read it (skipF) score as with f everywhere, to the bit; and
// some points skip f, some do not.
func TestFreshScoresSkipF(t *testing.T) {
	const d = 10
	lo, hi := make([]float64, d), make([]float64, d)
	for i := range hi {
		hi[i] = 1
	}
	box, err := domain.NewBox(lo, hi)
	if err != nil {
		t.Fatal(err)
	}
	ag, err := New("lognei", Config{Info: bandit.Info{Domain: box, M: 2}, Horizon: 100, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	for r := 1; r <= 40; r++ {
		x := make([]float64, d)
		for i := range x {
			x[i] = float64((r*7+i*3)%11) / 10
		}
		dec, err := ag.(bandit.Imposer).Impose(&bandit.Round{T: r}, bandit.PointAction(x))
		if err != nil {
			t.Fatal(err)
		}
		if err := ag.Observe(bandit.Feedback{ID: dec.ID, Reward: x[0], HasReward: true, Costs: []float64{5 + x[1], x[2] - 0.5}}); err != nil {
			t.Fatal(err)
		}
	}
	a := ag.(*LogNEI)
	acq, skipF, ok := a.region.acq(a.gpCore, 30)
	if !ok || skipF == nil {
		t.Fatal("no trust-region rule with its skip")
	}
	reg := trustRegion(box, a.ledger)
	if reg == nil {
		t.Fatal("no trust region")
	}
	bps := make([]model.BatchPredictor, len(a.ms))
	for j, m := range a.ms {
		bps[j] = model.AsBatchPredictor(m)
	}
	xs := scboPoints(rand.New(rand.NewPCG(3, 4)), reg.box, reg, 500)
	score := func(_ []float64, mv []float64) float64 { return acq.raw()(mv) }
	var skipped int
	count := func(mv []float64) bool {
		s := skipF(mv)
		if s {
			skipped++
		}
		return s
	}
	with, without := make([]float64, len(xs)), make([]float64, len(xs))
	if err := scoreSkippingF(bps, score, count)(xs, with, nil); err != nil {
		t.Fatal(err)
	}
	if err := batchScore(bps, score, d)(xs, without, nil); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(with, without) {
		t.Fatal("the scores without f where it is not read differ from the scores with it")
	}
	if skipped == 0 || skipped == len(xs) {
		t.Fatalf("%d of %d points skipped f: want some, not all", skipped, len(xs))
	}
}
