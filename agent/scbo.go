package agent

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/cbandit/cbandit/bandit"
	"github.com/cbandit/cbandit/domain"
	"github.com/cbandit/cbandit/gp"
	"github.com/cbandit/cbandit/model"
)

// SCBOCandidates is the number of points SCBO draws at each decision.
// OUR DEPARTURE: Eriksson & Poloczek take min(5000, max(2000, 200d)); a
// joint draw costs O(n³), and 500 keep a decision in 10 dims near 0.1 s.
const SCBOCandidates = 500

// SCBO is scalable constrained BO (Eriksson & Poloczek 2021, AISTATS, §3):
// Thompson sampling in a trust region. Each decision draws f and every g_j
// jointly at points perturbed from the region's centre and plays the best
// drawn f among those whose drawn g_j are all ≤ 0, else the least total
// drawn violation. The region is the core's (trustRegion); before it
// exists, the points are uniform in the box.
type SCBO struct {
	*gpCore
	buf drawBuffers `snap:"-"`
}

// drawBuffers are a joint draw's buffers (n² floats each): reused across
// decisions, kept out of snapshots and made again after a restore.
type drawBuffers struct {
	samp *gp.Sampler
	cov  []float64
}

// Decide implements bandit.Agent: a draw turn on the core.
func (a *SCBO) Decide(r *bandit.Round) (bandit.Decision, error) {
	return a.decideTurn(r, func() (turn, error) { return turn{draw: a.draw}, nil })
}

// draw is SCBO's decision in the core's trust region (uniform in the box
// before the region exists, or with region=global).
func (a *SCBO) draw(pend pending) (bandit.Action, error) {
	var reg *region
	if a.trust != regionGlobal {
		reg = trustRegion(a.info.Domain, a.ledger)
	}
	return a.thompson(&a.buf, reg, pend)
}

// thompson is SCBO's rule on the conditioned models (a box domain): points
// perturbed from reg's centre (uniform in the box when reg is nil), every
// model drawn jointly there, and scboRule's choice among the points the
// core admits (admissible). SCBO decides by it; so does config's
// before-feasible=thompson while no evaluation has met every limit.
func (c *gpCore) thompson(buf *drawBuffers, reg *region, pend pending) (bandit.Action, error) {
	box := c.info.Domain.(*domain.Box)
	xs := scboPoints(c.rng, box, reg, SCBOCandidates)
	n := len(xs)
	if buf.samp == nil || len(buf.cov) != n*n {
		buf.samp, buf.cov = gp.NewSampler(n), make([]float64, n*n)
	}
	mean, cov := make([]float64, n), buf.cov
	draw := make([][]float64, len(c.ms))
	for j, m := range c.ms {
		jp := model.AsJointPredictor(m)
		if jp == nil {
			return bandit.Action{}, fmt.Errorf("the model of metric %d has no joint posterior off its candidates", j)
		}
		if err := jp.PredictJoint(xs, mean, cov); err != nil {
			return bandit.Action{}, err
		}
		draw[j] = make([]float64, n)
		if err := buf.samp.Draw(c.rng, mean, cov, 1, draw[j]); err != nil {
			return bandit.Action{}, err
		}
	}
	ok, pfail, err := admissible(c.info.Domain, xs, pend)
	if err != nil {
		return bandit.Action{}, err
	}
	return bandit.PointAction(xs[scboRule(draw, ok, pfail)]), nil
}

// scboRule is SCBO's choice among the admitted points (ok): the best drawn
// f among those whose drawn g_j are all ≤ 0, else the least total drawn
// violation (draw: f's values, then each g_j's); with none admitted, the
// least likely to fail (pfail).
func scboRule(draw [][]float64, ok []bool, pfail []float64) int {
	best, bestF, bestV := -1, math.Inf(-1), math.Inf(1)
	for i := range ok {
		if !ok[i] {
			continue
		}
		v := 0.0 // the drawn total violation
		for j := 1; j < len(draw); j++ {
			v += math.Max(draw[j][i], 0)
		}
		if v < bestV || (v == 0 && draw[0][i] > bestF) {
			best, bestF, bestV = i, draw[0][i], v
		}
	}
	if best < 0 { // every point excluded: the least likely to fail
		best = 0
		for i := range ok {
			if pfail != nil && pfail[i] < pfail[best] {
				best = i
			}
		}
	}
	return best
}

// scboPoints are n points: in the region reg, its centre with each
// coordinate redrawn with probability min(1, 20/d), at least one (SCBO's
// and TuRBO's perturbation); without a region, uniform in the box. A box
// with discrete coordinates has them projected to valid values.
func scboPoints(rng *rand.Rand, box *domain.Box, reg *region, n int) [][]float64 {
	d := box.Dim()
	lo, hi := box.Lo, box.Hi
	if reg != nil {
		lo, hi = reg.box.Lo, reg.box.Hi
	}
	p := math.Min(1, 20/float64(d))
	xs, flat := make([][]float64, n), make([]float64, n*d)
	for k := range xs {
		x := flat[k*d : (k+1)*d : (k+1)*d]
		if reg == nil {
			for i := range x {
				x[i] = lo[i] + rng.Float64()*(hi[i]-lo[i])
			}
		} else {
			copy(x, reg.centre)
			changed := false
			for i := range x {
				if rng.Float64() < p {
					x[i], changed = lo[i]+rng.Float64()*(hi[i]-lo[i]), true
				}
			}
			if !changed {
				i := rng.IntN(d)
				x[i] = lo[i] + rng.Float64()*(hi[i]-lo[i])
			}
		}
		if box.Mixed() {
			box.Project(x)
		}
		xs[k] = x
	}
	return xs
}

func init() {
	Register(onCore(Spec{Name: "scbo", Summary: "SCBO: Thompson sampling of f and g jointly in a trust region; best drawn feasible point",
		Source: "Eriksson & Poloczek 2021 AISTATS §3 (not in the five papers)",
		Can:    Caps{Domains: []string{DomainBox}, Kinds: []bandit.ConstraintKind{KindPerRound, KindCumulative}}},
		newSCBO, "region", "trust"))
}

func newSCBO(name string, cfg Config) (bandit.Agent, error) {
	if _, ok := cfg.Info.Domain.(*domain.Box); !ok {
		return nil, fmt.Errorf("%s: needs a box domain, the problem gives %s", name, cfg.Info.Domain)
	}
	return policyOn(func(c *gpCore) *SCBO { return &SCBO{gpCore: c} })(name, cfg)
}
