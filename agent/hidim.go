// lognei in SCBO's trust region (region=auto: 10+ dims): the acquisition
// it plays there (parameter region-acq).

package agent

import (
	"math"

	"github.com/cbandit/cbandit/bandit"
	"github.com/cbandit/cbandit/domain"
	"github.com/cbandit/cbandit/model"
)

// regionAcqDoc declares region-acq.
var regionAcqDoc = bandit.ChoiceParam{Name: "region-acq", Default: "ucb", Choices: []string{"ucb", "logei"}, When: bandit.IsNot("region", "global"),
	Doc: "lognei's acquisition inside the trust region: ucb: CONFIG's rule (UCB of f over {LCB of every g ≤ 0}, else the least largest LCB; " +
		"from T/2, once an evaluation met every limit, points whose UCBs of g are ≤ 0 first); logei: the acquisition of the whole box",
	Source:  "Xu et al. 2023 (CONFIG); Sui et al. 2018 §4 (the safe stage); measured: docs/offline.md, \"10–20 parameters and cost\"",
	Earlier: []bandit.Change{{Until: 10, Value: "logei", Why: "lognei plays CONFIG's UCB rule in the trust region: feasible points on every seed of ackley10"}}}

// regionPointsDoc declares region-points.
var regionPointsDoc = bandit.IntParam{Name: "region-points", Default: RegionPoints, Range: bandit.AtLeast(0), When: bandit.Is("region-acq", "ucb"),
	Doc:     "candidates drawn in the trust region at each decision before the gradient ascent once an evaluation met every limit (before, and with 0: SCBO's min(5000, max(2000, 200d)))",
	Source:  "BoTorch's tutorials: 512 raw samples before the restarts of optimize_acqf; measured: docs/offline.md, \"10–20 parameters and cost\"",
	Earlier: []bandit.Change{{Until: 10, Value: "0", Why: "lognei draws 512 candidates in the trust region once an evaluation met every limit (SCBO's 2,000–5,000 before)"}}}

// regionPointsBeforeDoc declares region-points-before.
var regionPointsBeforeDoc = bandit.IntParam{Name: "region-points-before", Default: 0, Range: bandit.AtLeast(0), When: bandit.Is("region-acq", "ucb"),
	Doc:    "candidates drawn in the trust region at each decision before the gradient ascent while no evaluation met every limit (0: SCBO's min(5000, max(2000, 200d)))",
	Source: "Eriksson & Poloczek 2021 §3 (SCBO's count); measured: docs/offline.md, \"Cost\" (2,000 at d = 20: half the CPU, a feasible point on 6 of 10 seeds of levy20 against 8)"}

// regionPriorMeanDoc declares region-prior-mean. At the threshold, every
// point far from the data looks borderline, and in 10+ dims every point is
// far: the search for a first feasible point then chases distance, not the
// constraints' trend (levy20 noise-free: ‖x‖ near 28 for 50 rounds).
var regionPriorMeanDoc = bandit.ChoiceParam{Name: "region-prior-mean", Default: "before", Choices: []string{"threshold", "before"}, When: bandit.Is("region-acq", "ucb"),
	Doc:     "boxes of 10+ dims searched in trust regions: the constraints' prior mean; threshold: every model's (an unexplored point as likely feasible as not); before: a constraint's observed mean while no evaluation has met every limit and its fitted noise variance is below ConfirmNoise",
	Source:  "BoTorch and SCBO standardise every outcome, constraints included (Eriksson & Poloczek 2021); measured: docs/offline.md, \"Generation 16\"",
	Earlier: []bandit.Change{{Until: 15, Value: "threshold", Why: "lognei's constraints in 10+ dims keep their observed mean as prior mean until an evaluation meets every limit"}}}

// RegionPoints is lognei's count of fresh candidates in the trust region
// once an evaluation met every limit: SCBO's 2,000–5,000 serve Thompson
// draws, which have no gradient to climb; a UCB ascended from the best of
// them needs fewer, and scoring them was 85 % of a decision at d = 20
// (BenchmarkOfflineDecide). Before, SCBO's count: with 512 from the start,
// one of two seeds of levy20 found no feasible point (docs/offline.md).
const RegionPoints = 512

// regionUCB is lognei's rule inside the trust region with region-acq=ucb:
// config's decision there (ConfigAgent with the practical widths: β_f =
// PracticalBetaF, β_g = TrustBetaG, its safe stage from round safeFrom with
// β = 1). Offline, EI in the region climbs the nearest local basin and the
// feasibility term alone chases the constraints' uncertainty; config's UCB
// found feasible points and low values on every measured seed.
type regionUCB struct {
	safeFrom int              // the first round of the safe stage: ⌈T/2⌉ (configSafeFrom)
	points   int              // region-points
	before   int              // region-points-before
	priors   constraintPriors // region-prior-mean
}

// newRegionUCB reads region-acq and region-points: nil for logei.
func newRegionUCB(name string, cfg Config) (*regionUCB, error) {
	v, err := regionAcqDoc.Read(name, cfg.Params)
	if err != nil {
		return nil, err
	}
	n, err := regionPointsDoc.Read(name, cfg.Params)
	if err != nil || v == "logei" {
		return nil, err
	}
	nb, err := regionPointsBeforeDoc.Read(name, cfg.Params)
	if err != nil {
		return nil, err
	}
	pm, err := regionPriorMeanDoc.Read(name, cfg.Params)
	if err != nil {
		return nil, err
	}
	return &regionUCB{safeFrom: int(math.Ceil(configSafeFrom.Default * float64(cfg.Horizon))), points: n, before: nb, priors: constraintPriors{before: pm == "before"}}, nil
}

// count is how many candidates the next decision draws in the trust
// region: region-points once an evaluation met every limit,
// region-points-before until then (0: SCBO's count).
func (u *regionUCB) count(c *gpCore) int {
	if !c.ledger.anyFeasible() {
		return u.before
	}
	return u.points
}

// constraintPriors is region-prior-mean's state: which constraints have
// fitted a noise variance of at least ConfirmNoise (their prior mean stays
// at the threshold from then on).
type constraintPriors struct {
	before bool // region-prior-mean=before
	noisy  []bool
}

// set puts each constraint's prior mean at its observed mean on a box of
// TrustAutoDim dimensions or more searched in trust regions, while no
// evaluation has met every limit and the constraint has not fitted a noisy
// model; at the threshold otherwise.
func (p *constraintPriors) set(c *gpCore) error {
	if box, ok := c.info.Domain.(*domain.Box); !p.before || c.trust == regionGlobal || !ok || box.Dim() < TrustAutoDim || box.Mixed() {
		return nil
	}
	if p.noisy == nil {
		p.noisy = make([]bool, len(c.g))
	}
	feasible := c.ledger.anyFeasible()
	for j, g := range c.g {
		if w, ok := g.(*model.Window); ok {
			g = w.Model
		}
		a, ok := g.(*model.Adaptive)
		if !ok {
			continue
		}
		if a.Fitted() && fittedNoise(a) >= ConfirmNoise {
			p.noisy[j] = true
		}
		if err := a.SetMeanPrior(!feasible && !p.noisy[j]); err != nil {
			return err
		}
	}
	return nil
}

// acq is the acquisition of round t when the next decision of c searches a
// trust region (ok false: the whole box, where the policy keeps its own),
// and where it does not read f (turn.skipF).
func (u *regionUCB) acq(c *gpCore, t int) (acq Acquisition, skipF func(mv []float64) bool, ok bool) {
	if u == nil {
		return nil, nil, false
	}
	var p pending // regionIf only asks whether any decision is pending
	if c.halluc.on && c.ledger.Open() > 0 {
		p.acts = c.ledger.Pending(false, 1)
	}
	if regionIf(c.trust, c.info.Domain, c.ledger, p) == nil {
		return nil, nil, false
	}
	bs := -TrustBetaG
	if t >= u.safeFrom && c.ledger.anyFeasible() {
		bs = configBetaSafe.Default
	}
	// safeFirst with −β_g is CONFIG's rule: UCB of f where every LCB of g
	// is ≤ 0, and below every such point the least largest LCB (which is
	// the whole ranking when no point is optimistically feasible).
	b := uniform(bs, len(c.g))
	return safeFirst(PracticalBetaF, b, false), safeFirstSkipsF(b), true
}
