// lognei's incumbent and its last rounds: the bar its expected improvement is measured over, and the replicates that confirm the recommendation under noise.

package agent

import (
	"math"

	"github.com/cbandit/cbandit/bandit"
	"github.com/cbandit/cbandit/gp"
)

// plugInIncumbent is the best posterior mean of f among the evaluated
// points whose posterior means hold every limit, and its index in ev (−1
// when none does or ok is false): noise-free it is the best feasible
// observation, noisy a smoothed one (the plug-in approximation of noisy EI
// that Letham et al. 2019 Bayesian Analysis §2 discuss).
func plugInIncumbent(ev evaluated, ok bool, m int) (best float64, at int) {
	best, at = math.Inf(-1), -1
	if !ok {
		return best, at
	}
	for k, mv := range ev.mv {
		p := Posterior{mv}
		feasible := true
		for j := range m {
			if mu, _ := p.G(j); !(mu <= 0) {
				feasible = false
			}
		}
		if feasible && mv[0] > best {
			best, at = mv[0], k
		}
	}
	return best, at
}

// confirmDoc declares lognei's confirm: the share of the horizon spent at
// its end replicating the configuration the recommendation is to be.
var confirmDoc = bandit.FloatParam{Name: "confirm", Default: 0.1, Range: bandit.Range{Min: 0, Max: 0.5, MinEnd: bandit.Closed, MaxEnd: bandit.Closed},
	Doc:     "in the last ⌈confirm·T⌉ rounds (T the horizon, or the epoch's), replicate the evaluated configuration of best posterior mean that the remaining rounds could bring to P(every limit holds) ≥ 0.95 while it is below; search otherwise",
	Source:  "our rule (the final choice under noise made on the model, as reviewed by Picheny, Wagner & Ginsbourger 2013, Struct. Multidisc. Optim.); measured: docs/offline.md, \"Under noise\"",
	Earlier: []bandit.Change{{Until: 10, Value: "0", Why: "lognei replicates its recommendation-to-be in the last tenth of the horizon"}}}

// confirmLevel is the level a replicate aims the recommendation-to-be at:
// the service's (learner.RecommendLevel, which this package cannot import).
const confirmLevel = 0.95

// confirmFrom is the first round of the confirmation (parameter confirm):
// T − ⌈confirm·T⌉ + 1, past the horizon when confirm is 0.
func confirmFrom(name string, ps bandit.Params, horizon int) (int, error) {
	c, err := confirmDoc.Read(name, ps)
	if err != nil {
		return 0, err
	}
	return horizon - int(math.Ceil(c*float64(horizon))) + 1, nil
}

// confirmTurn is the decision of round t ≤ T in the confirmation (t ≥
// from): the evaluated configuration confirmable replicates (with T − t + 1
// rounds left), played as it is, when it is not already the
// recommendation; ok false: search.
func (c *gpCore) confirmTurn(t, from, horizon int) (turn, bool) {
	if t < from || t > horizon {
		return turn{}, false
	}
	ev, ok := c.evaluated()
	if !ok {
		return turn{}, false
	}
	k := c.confirmable(ev, confirmLevel, horizon-t+1)
	if k < 0 || probFeasible(Posterior{ev.mv[k]}, len(c.g)) >= confirmLevel {
		return turn{}, false
	}
	act := ev.acts[k]
	act.X = append([]float64(nil), act.X...)
	return turn{acq: func(Posterior) float64 { return 0 }, fixed: true,
		after: func(bandit.Action, int) (bandit.Action, error) { return act, nil }}, true
}

// confirmable is the index in ev of the evaluated configuration of largest
// posterior mean of f among those whose P(every limit holds) would reach
// level after n more observations there (−1: none). Each constraint's
// posterior variance after n observations of noise variance λ_j at the
// point is 1/(1/σ²_j + n/λ_j) (the Gaussian update of one value, the other
// points' data as they are), its mean as now; a model without a noise
// variance counts as noise-free (variance unchanged). With n = 0 it is
// Recommend's choice.
func (c *gpCore) confirmable(ev evaluated, level float64, n int) int {
	lam := make([]float64, len(c.g))
	for j, g := range c.g {
		if k, ok := g.(interface{ Kernel() (gp.Kernel, float64) }); ok {
			_, lam[j] = k.Kernel()
		}
	}
	best := -1
	for k, mv := range ev.mv {
		pf := 1.0
		for j := range c.g {
			mu, v := mv[2+2*j], math.Max(mv[3+2*j], 0)
			if n > 0 && lam[j] > 0 {
				v = 1 / (1/math.Max(v, 1e-300) + float64(n)/lam[j])
			}
			pf *= normCDF(-mu / math.Sqrt(math.Max(v, 1e-18)))
		}
		if pf >= level && (best < 0 || mv[0] > ev.mv[best][0]) {
			best = k
		}
	}
	return best
}

// newLogNEI builds lognei on its core with its confirmation rounds.
func newLogNEI(cfg Config) (bandit.Agent, error) {
	c, err := newGPCore("lognei", cfg, coreOptions{})
	if err != nil {
		return nil, err
	}
	from, err := confirmFrom("lognei", cfg.Params, cfg.Horizon)
	if err != nil {
		return nil, err
	}
	return &LogNEI{gpCore: c, from: from, horizon: cfg.Horizon}, nil
}
