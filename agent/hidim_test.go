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

// unitBox is the box [0, 1]^d.
func unitBox(t *testing.T, d int) *domain.Box {
	t.Helper()
	lo, hi := make([]float64, d), make([]float64, d)
	for i := range hi {
		hi[i] = 1
	}
	box, err := domain.NewBox(lo, hi)
	if err != nil {
		t.Fatal(err)
	}
	return box
}

// logneiImposed is lognei on the unit box of d dims (horizon 100, seed 1)
// told FirstFit(d) imposed points with f = x₀ and g = 1 + x₁, all infeasible.
func logneiImposed(t *testing.T, d int, ps bandit.Params) *LogNEI {
	t.Helper()
	box := unitBox(t, d)
	ag, err := New("lognei", Config{Info: bandit.Info{Domain: box, M: 1}, Horizon: 100, Seed: 1, Params: ps})
	if err != nil {
		t.Fatal(err)
	}
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

// TestLogNEIRegionUCB: in the trust region lognei plays CONFIG's rule —
// UCB of f (β_f = 2) where every LCB of g (β_g = 1) is ≤ 0, else below
// every such point by the largest LCB — and from ⌈T/2⌉, once an
// evaluation met every limit, the safe stage's UCB of g (β = 1), and
// region-points candidates drawn instead of SCBO's count; with
// region-acq=logei, or below 10 dims (region=auto), its own acquisition.
func TestLogNEIRegionUCB(t *testing.T) {
	a := logneiImposed(t, 10, nil)
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
	if b := logneiImposed(t, 10, bandit.Params{"region-acq": "logei"}); b.region != nil {
		t.Error("region-acq=logei: the trust-region rule is set")
	}
	if b := logneiImposed(t, 4, nil); b.region != nil {
		if _, _, ok := b.region.acq(b.gpCore, 30); ok {
			t.Error("4 dims with region=auto: the trust-region rule applies")
		}
	}
}

// The best of the trust region's fresh candidates, scored without f where
// CONFIG's rule does not read it (skipF) and without the constraints left
// once a point cannot beat the best before it, is the best of every point
// scored with every model, in four orders of the points; some points skip
// f, some do not, and some are dropped.
func TestFreshScoresSkipF(t *testing.T) {
	const d = 10
	box := unitBox(t, d)
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
	count := func(x, mv []float64) float64 {
		if skipF(mv) {
			skipped++
		}
		return score(x, mv)
	}
	rng := rand.New(rand.NewPCG(5, 6))
	for trial := range 4 { // the best at other places of the run
		if trial > 0 {
			rng.Shuffle(len(xs), func(i, j int) { xs[i], xs[j] = xs[j], xs[i] })
		}
		skipped = 0
		val := make([]float64, len(xs))
		if err := batchScore(bps, count, d)(xs, val, nil); err != nil {
			t.Fatal(err)
		}
		want := 0
		for k := range val {
			if val[k] > val[want] {
				want = k
			}
		}
		var drop int
		got, err := bestSkippingF(bps, score, skipF, xs, &drop)
		if err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Fatalf("order %d: the best with fewer predictions is point %d (%v), with every prediction %d (%v)", trial, got, val[got], want, val[want])
		}
		if skipped == 0 || skipped == len(xs) {
			t.Fatalf("%d of %d points skipped f: want some, not all", skipped, len(xs))
		}
		if drop == 0 {
			t.Fatalf("order %d: no point dropped before its last model", trial)
		}
	}
}

// quadPredictor is a posterior in closed form: mean c + ‖x − at‖², variance
// v; it counts the points it predicts.
type quadPredictor struct {
	at    []float64
	c, v  float64
	count *int
}

func (q quadPredictor) Predict(x []float64) (float64, float64) {
	*q.count++
	s := q.c
	for i, a := range q.at {
		s += (x[i] - a) * (x[i] - a)
	}
	return s, q.v
}

func (q quadPredictor) PredictBatch(xs [][]float64, mean, variance []float64, _, _ [][]float64) error {
	for k, x := range xs {
		mean[k], variance[k] = q.Predict(x)
	}
	return nil
}

func (q quadPredictor) Gradients() bool { return false }

// With no point optimistically feasible (both constraints' LCBs above 0
// everywhere), CONFIG's rule ranks by the least largest LCB: the best of
// 1,000 points with the dropping is the best of scoring every point, in
// five orders of the points; f is never predicted, and the constraint
// that is the larger at most points (g_2, near the other corner) comes
// first once it would have dropped more: at most 1,500 predictions of g
// in all, fewer of g_1 than of g_2.
func TestBestSkippingFDrops(t *testing.T) {
	var nf, n1, n2 int
	f := quadPredictor{at: []float64{0.5, 0.5}, v: 1, count: &nf}
	g1 := quadPredictor{at: []float64{0, 0}, c: 2, v: 0.25, count: &n1}
	g2 := quadPredictor{at: []float64{1, 1}, c: 3, v: 0.25, count: &n2}
	bps := []model.BatchPredictor{f, g1, g2}
	b := uniform(-TrustBetaG, 2)
	acq, skipF := safeFirst(PracticalBetaF, b, false).raw(), safeFirstSkipsF(b)
	score := func(_ []float64, mv []float64) float64 { return acq(mv) }
	rng := rand.New(rand.NewPCG(7, 8))
	xs := make([][]float64, 1000)
	for k := range xs {
		xs[k] = []float64{rng.Float64(), rng.Float64()}
	}
	for trial := range 5 {
		if trial > 0 {
			rng.Shuffle(len(xs), func(i, j int) { xs[i], xs[j] = xs[j], xs[i] })
		}
		want, wantVal := 0, math.Inf(-1)
		mv := make([]float64, 6)
		for k, x := range xs {
			mv[2], mv[3] = g1.Predict(x)
			mv[4], mv[5] = g2.Predict(x)
			if v := acq(mv); v > wantVal {
				want, wantVal = k, v
			}
		}
		nf, n1, n2 = 0, 0, 0
		var drop int
		got, err := bestSkippingF(bps, score, skipF, xs, &drop)
		if err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Fatalf("order %d: best %d, every point scored: %d", trial, got, want)
		}
		if nf != 0 || drop == 0 || n1+n2 > 3*len(xs)/2 || n1 >= n2 {
			t.Fatalf("order %d: %d predictions of f, %d of g_1, %d of g_2, %d dropped", trial, nf, n1, n2, drop)
		}
	}
}

// A turn that plays its own action (turn.own) in the trust region reads
// its acquisition at the candidates only, not at the region's fresh
// candidates nor in a search, and leaves the random stream where the full
// pick leaves it; the decision is its own action either way.
func TestOwnTurnKeepsDraws(t *testing.T) {
	const d = 10
	play := make([]float64, d)
	play[0] = 0.25
	run := func(own bool) (calls int, next uint64, x []float64) {
		a := logneiImposed(t, d, nil)
		if reg := regionIf(a.trust, a.info.Domain, a.ledger, pending{}); reg == nil || !reg.fresh {
			t.Fatal("no trust region with fresh candidates")
		}
		dec, err := a.decideTurn(&bandit.Round{T: 30}, func() (turn, error) {
			return turn{acq: func(Posterior) float64 { calls++; return 0 }, fixed: true, own: own,
				after: func(bandit.Action, int) (bandit.Action, error) { return bandit.PointAction(play), nil }}, nil
		})
		if err != nil {
			t.Fatal(err)
		}
		return calls, a.rng.Uint64(), dec.Action.X
	}
	nOwn, rOwn, xOwn := run(true)
	nAll, rAll, xAll := run(false)
	if rOwn != rAll {
		t.Errorf("the random stream after the pick: %d with own, %d without", rOwn, rAll)
	}
	if !slices.Equal(xOwn, play) || !slices.Equal(xAll, play) {
		t.Errorf("played %v and %v, want %v", xOwn, xAll, play)
	}
	if nOwn >= nAll || nAll-nOwn < 512 {
		t.Errorf("the acquisition read %d times with own, %d without: want at least the 512 fresh candidates fewer", nOwn, nAll)
	}
}

// TestRegionPriorMean: by default (region-prior-mean=before) a
// constraint's prior mean is its observed mean on a box of 10+ dims while
// no evaluation has met every limit and its fit is noise-free; a noisy
// fit, a feasible evaluation, threshold or fewer than 10 dims leave it at
// the threshold.
func TestRegionPriorMean(t *testing.T) {
	on := func(a *gpCore) bool { return a.g[0].(*model.Adaptive).MeanPrior() }
	a := logneiImposed(t, 10, nil)
	if err := a.region.priors.set(a.gpCore); err != nil {
		t.Fatal(err)
	}
	if !on(a.gpCore) {
		t.Fatal("10 dims, nothing feasible, a noise-free fit: the threshold prior")
	}
	if m, _ := a.g[0].(*model.Adaptive).Predict(make([]float64, 10)); m <= 0 {
		t.Fatalf("mean prior: g predicted %v at the box's corner, want above the threshold as every observation", m)
	}
	th := logneiImposed(t, 10, bandit.Params{"region-prior-mean": "threshold"})
	if err := th.region.priors.set(th.gpCore); err != nil || on(th.gpCore) {
		t.Fatalf("threshold: the prior mean moved (err %v)", err)
	}
	low := logneiImposed(t, 5, nil)
	if err := low.region.priors.set(low.gpCore); err != nil || on(low.gpCore) {
		t.Fatalf("5 dims: the prior mean moved (err %v)", err)
	}
	// A feasible evaluation puts it back at the threshold.
	x := make([]float64, 10)
	dec, err := a.Impose(&bandit.Round{T: 25}, bandit.PointAction(x))
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Observe(bandit.Feedback{ID: dec.ID, Reward: 0, HasReward: true, Costs: []float64{-1}}); err != nil {
		t.Fatal(err)
	}
	if err := a.region.priors.set(a.gpCore); err != nil || on(a.gpCore) {
		t.Fatalf("after a feasible evaluation the prior mean stayed observed (err %v)", err)
	}
	// A noisy constraint keeps the threshold once its fit says so.
	ag, err := New("lognei", Config{Info: bandit.Info{Domain: unitBox(t, 10), M: 1}, Horizon: 100, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	n := ag.(*LogNEI)
	rng := rand.New(rand.NewPCG(3, 4))
	sawOn := false
	for r := 1; !n.g[0].(*model.Adaptive).Fitted(); r++ {
		d, err := n.Decide(&bandit.Round{T: r})
		if err != nil {
			t.Fatal(err)
		}
		sawOn = sawOn || on(n.gpCore)
		x := d.Action.X
		if err := n.Observe(bandit.Feedback{ID: d.ID, Reward: -x[0], HasReward: true, Costs: []float64{1 + x[1] + rng.NormFloat64()}}); err != nil {
			t.Fatal(err)
		}
	}
	if !sawOn {
		t.Fatal("the prior mean never moved before the first fit")
	}
	if fittedNoise(n.g[0]) < ConfirmNoise {
		t.Fatalf("the noisy constraint fitted noise %v", fittedNoise(n.g[0]))
	}
	if err := n.region.priors.set(n.gpCore); err != nil || on(n.gpCore) {
		t.Fatalf("a noisy constraint's prior mean stayed observed (err %v)", err)
	}
}
