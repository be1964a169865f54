// What the core recommends (bandit.Recommender) and the posteriors at the evaluated configurations it reads.

package agent

import (
	"math"

	"github.com/cbandit/cbandit/bandit"
	"github.com/cbandit/cbandit/gp"
	"github.com/cbandit/cbandit/model"
)

// evaluated are the fully observed, not failed decisions of a core (in ID
// order) and the posterior means and variances of f, g_1..g_m there, in
// the models' (standardised) units: mv[k] = [μ_f, σ²_f, μ_1, σ²_1, …];
// obs[k] = [f, g_1..g_m] are the values observed there, in the agent's
// units (NaN where a value was not given).
type evaluated struct {
	ids  []int64
	acts []bandit.Action
	mv   [][]float64
	obs  [][]float64
	// pe[k][j]: one observation's pure-error variance of metric j at the
	// k-th configuration, in the model's units (floorPureError; nil: none)
	pe [][]float64
}

// replicatesDoc declares noisy-replicates (config, lognei): whether an
// evaluation repeated with another value makes its metric noisy.
var replicatesDoc = bandit.ChoiceParam{Name: "noisy-replicates", Default: "on", Choices: []string{"on", "off"},
	Doc:     "on: a metric observed with different values at one configuration (a repeat, bit for bit) is noisy, whatever its fitted noise (a noise small beside the metric's spread fits below 1e-4 of it, ConfirmNoise); off: the fitted noise alone",
	Source:  "a deterministic metric repeats its value (pure error from replicates, the lack-of-fit test of regression); measured: docs/live_limits.md, \"Generation 20\"",
	Earlier: []bandit.Change{{Until: 19, Value: "off", Why: "a metric whose repeated evaluations differ is noisy, however small its fitted noise"}}}

// readReplicates reads noisy-replicates.
func readReplicates(name string, ps bandit.Params) (bool, error) {
	v, err := replicatesDoc.Read(name, ps)
	return v == "on", err
}

// exact reports, for f and each g_j (the order of c.ms), whether its
// model's fitted noise variance is below ConfirmNoise (fitExact) and, with
// replicates, no repeat of a configuration gave it another value: a
// deterministic metric, whose observation at an evaluated configuration is
// its value there (Optuna v4.6 GPSampler's deterministic_objective; a
// model that reports no noise is not exact).
func (c *gpCore) exact() []bool {
	ex := c.fitExact()
	if c.replicates {
		for j, d := range c.ledger.replicatesDiffer() {
			if j < len(ex) && d {
				ex[j] = false
			}
		}
	}
	return ex
}

// fitExact: exact's test on the fitted noise alone.
func (c *gpCore) fitExact() []bool {
	ex := make([]bool, len(c.ms))
	for j := range c.ms {
		lam, ok := c.noiseOf(j)
		ex[j] = ok && lam < ConfirmNoise
	}
	return ex
}

// noiseOf is the fitted noise variance of the k-th model (f first), in its
// standardised units (ok false where the model reports none).
func (c *gpCore) noiseOf(k int) (lam float64, ok bool) {
	m := c.ms[k]
	if w, isW := m.(*model.Window); isW {
		m = w.Model
	}
	kn, ok := m.(interface{ Kernel() (gp.Kernel, float64) })
	if !ok {
		return 0, false
	}
	_, lam = kn.Kernel()
	return lam, true
}

// feasible is P(every limit holds) at the k-th evaluated configuration:
// where g_j is exact (exact[1+j]) its observation's, 1 when g_j ≤ 0 and 0
// otherwise, elsewhere Φ(−μ_j/σ_j), the constraints independent (as
// probFeasible). A nil exact is the posterior's alone.
func (ev evaluated) feasible(k int, exact []bool) float64 {
	pf := 1.0
	for j := 1; 2*j < len(ev.mv[k]); j++ {
		if y := ev.obs[k][j]; j < len(exact) && exact[j] && !math.IsNaN(y) {
			if y > 0 {
				return 0
			}
			continue
		}
		mu, v := ev.mv[k][2*j], ev.mv[k][2*j+1]
		pf *= normCDF(-mu / math.Sqrt(math.Max(v, 1e-18)))
	}
	return pf
}

// value is the objective's score of the k-th evaluated configuration: its
// observation where f is exact, else its posterior mean (only compared
// with others of the same evaluated).
func (ev evaluated) value(k int, exact []bool) float64 {
	if y := ev.obs[k][0]; len(exact) > 0 && exact[0] && !math.IsNaN(y) {
		return y
	}
	return ev.mv[k][0]
}

// recommended is Recommend's choice among the evaluated configurations:
// the one of the best value among those whose feasible(·, exact) is at
// least level (the earliest on a tie), with that probability; -1: none.
func (ev evaluated) recommended(level float64, exact []bool) (k int, pf float64) {
	k = -1
	for i := range ev.mv {
		p := ev.feasible(i, exact)
		if p >= level && (k < 0 || ev.value(i, exact) > ev.value(k, exact)) {
			k, pf = i, p
		}
	}
	return k, pf
}

// evaluated reads the ledger's observed decisions and predicts every model
// there (one batched solve per model on a box; a finite domain's arms read
// the models' candidates). ok is false when a model cannot be evaluated
// at them.
func (c *gpCore) evaluated() (evaluated, bool) {
	var ev evaluated
	for _, id := range c.ledger.done {
		e := &c.ledger.entries[id-1]
		ev.ids = append(ev.ids, id)
		ev.acts = append(ev.acts, e.action)
		o := make([]float64, len(c.ms))
		o[0] = e.reward
		for j := 1; j < len(o); j++ {
			if o[j] = math.NaN(); j <= len(e.costs) {
				o[j] = e.costs[j-1]
			}
		}
		ev.obs = append(ev.obs, o)
	}
	n := len(ev.ids)
	ev.mv = make([][]float64, n)
	for k := range ev.mv {
		ev.mv[k] = make([]float64, 2*len(c.ms))
	}
	if n == 0 {
		return ev, true
	}
	xs := make([][]float64, n)
	for k, a := range ev.acts {
		xs[k] = a.X
	}
	mean, vr := make([]float64, n), make([]float64, n)
	for j, m := range c.ms {
		if bp := model.AsBatchPredictor(m); bp != nil && len(xs[0]) > 0 {
			if err := bp.PredictBatch(xs, mean, vr, nil, nil); err != nil {
				return ev, false
			}
		} else {
			mu, v := m.Mean(), m.Var()
			for k, a := range ev.acts {
				if a.Arm < 0 || a.Arm >= len(mu) {
					return ev, false
				}
				mean[k], vr[k] = mu[a.Arm], v[a.Arm]
			}
		}
		for k := range ev.mv {
			ev.mv[k][2*j], ev.mv[k][2*j+1] = mean[k], vr[k]
		}
	}
	if c.pureError {
		c.floorPureError(&ev)
	}
	return ev, true
}

// standardiser is a model whose observations are standardised
// (model.Adaptive: y ↦ (y − m)/s for an objective, y/s for a constraint).
type standardiser interface{ Standardisation() (m, s float64) }

// warper is a constraint model that may see its values through a
// nonlinear transform (model.Adaptive.Warp), undone by Unwarp.
type warper interface {
	Warped() bool
	Unwarp(mean, sd float64) (float64, float64)
}

// units are the offset and scale that map model m's posterior back to its
// metric's units (mean·s + offset, std·s); ok is false when m is
// standardised in a way the core cannot undo.
func (c *gpCore) units(m model.Model, constraint bool) (offset, scale float64, ok bool) {
	if w, isW := m.(*model.Window); isW {
		m = w.Model
	}
	if st, isStd := m.(standardiser); isStd {
		mm, s := st.Standardisation()
		if constraint {
			mm = 0 // a constraint is only scaled: its 0 is the limit
		}
		return mm, s, true
	}
	return 0, 1, !c.std
}

// Recommend implements bandit.Recommender for every policy on the core:
// among the evaluated configurations (observed, not failed), the one of
// largest posterior mean of f among those whose probability that every
// limit holds, Π_j Φ(−μ_j/σ_j) (constraints independent, as probFeasible),
// is at least level; ties go to the earliest decision. Where a metric is
// deterministic (its fitted noise below ConfirmNoise: exact), an evaluated
// configuration's observation is its true value, so its P(g_j ≤ 0) is 1 or
// 0 by the observation and the objective ranks by the observations (a
// boundary optimum observed feasible, where Φ(−μ_j/σ_j) ≈ ½, is
// recommended); noisy metrics keep the posterior. The moments are in
// the metrics' units as the agent sees them: the reward maximised (a
// caller that minimises a metric negates it, and negates the objective's
// mean back), each constraint g_j = metric − limit ≤ 0 (a caller adds the
// limit back). The posterior is the models' now (pending decisions are not
// part of it): with noise-free metrics and interpolating hyperparameters
// it is the observations themselves, with noisy ones their smoothed mean;
// lognei's noise-check reads a metric whose repeats differ while its fit
// calls it exact from the repeats' pure error (floorPureError).
func (c *gpCore) Recommend(level float64) (bandit.Recommendation, bool) {
	ev, ok := c.evaluated()
	if !ok {
		return bandit.Recommendation{}, false
	}
	best, bestPF := ev.recommended(level, c.exact())
	if best < 0 {
		return bandit.Recommendation{}, false
	}
	mv := ev.mv[best]
	moments := func(m model.Model, j int, constraint bool) (bandit.Moments, bool) {
		if w, isW := m.(warper); isW && w.Warped() {
			mean, sd := w.Unwarp(mv[2*j], math.Sqrt(math.Max(mv[2*j+1], 0)))
			return bandit.Moments{Mean: mean, Std: sd}, true
		}
		off, s, ok := c.units(m, constraint)
		return bandit.Moments{Mean: off + s*mv[2*j], Std: s * math.Sqrt(math.Max(mv[2*j+1], 0))}, ok
	}
	rec := bandit.Recommendation{Decision: int(ev.ids[best]), Action: ev.acts[best], Feasible: bestPF}
	rec.Action.X = append([]float64(nil), rec.Action.X...)
	if rec.Objective, ok = moments(c.f, 0, false); !ok {
		return bandit.Recommendation{}, false
	}
	for j, g := range c.g {
		m, ok := moments(g, j+1, true)
		if !ok {
			return bandit.Recommendation{}, false
		}
		rec.Constraints = append(rec.Constraints, m)
	}
	return rec, true
}
