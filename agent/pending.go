package agent

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/cbandit/cbandit/bandit"
	"github.com/cbandit/cbandit/domain"
	"github.com/cbandit/cbandit/model"
)

// pendingDoc documents how a GP agent treats decisions awaiting feedback.
var pendingDoc = bandit.ParamDoc{Name: "pending", Default: "hallucinate",
	Doc: "decisions awaiting feedback: hallucinate = GP-BUCB (Desautels et al. 2014): the GPs condition on them at their mean; ignore = as the papers decide"}

// pendingParam reads pending: true for hallucinate.
func pendingParam(name string, ps bandit.Params) (bool, error) {
	v, err := ps.String(name, "pending", "hallucinate", "ignore", "hallucinate")
	return v == "hallucinate", err
}

// pendModels conditions f on the decisions that await their reward and
// each g_j on those that await their costs (GP-BUCB: at the posterior mean,
// so only the variances change; β is left as it is — GP-BUCB's inflation
// exp(2C) serves its regret bound, and with the practical constant widths
// there is no schedule to inflate; the information gain behind a β_t
// schedule counts real observations only). It returns the undo, to call
// before the models observe again.
func pendModels(on bool, l *Ledger, f model.Model, g []model.Model) (func(), error) {
	if !on || l.Open() == 0 {
		return func() {}, nil
	}
	undo := func() {
		model.Unpend(f)
		for _, m := range g {
			model.Unpend(m)
		}
	}
	if err := model.Pend(f, l.Pending(false)); err != nil {
		undo()
		return nil, err
	}
	if len(g) > 0 {
		pg := l.Pending(true)
		for _, m := range g {
			if err := model.Pend(m, pg); err != nil {
				undo()
				return nil, err
			}
		}
	}
	return undo, nil
}

// imposedAction checks an action a person chose against the domain: an arm
// index of a finite domain (its coordinates filled in), or a point of a
// box.
func imposedAction(dom domain.Domain, a bandit.Action) (bandit.Action, error) {
	switch d := dom.(type) {
	case *domain.Finite:
		if a.Arm < 0 || a.Arm >= d.N {
			return a, fmt.Errorf("imposed action: arm = %d: outside [0, %d)", a.Arm, d.N)
		}
		if d.Points != nil {
			a.X = d.Points[a.Arm]
		}
		return a, nil
	case *domain.Box:
		if len(a.X) != d.Dim() {
			return a, fmt.Errorf("imposed action: x has %d coordinates, the box has %d", len(a.X), d.Dim())
		}
		for i, v := range a.X {
			if math.IsNaN(v) || v < d.Lo[i] || v > d.Hi[i] {
				return a, fmt.Errorf("imposed action: x[%d] = %v: outside [%v, %v]", i, v, d.Lo[i], d.Hi[i])
			}
		}
		a.Arm = -1
		return a, nil
	}
	return a, fmt.Errorf("imposed action: domain %s does not take decisions made by a person", dom)
}

// Abandon implements bandit.Abandoner for every agent: a pending decision
// abandoned leaves the ledger's pending set.
func (a *RPOL) Abandon(id int64) error        { return a.ledger.Abandon(id) }
func (a *ConfigAgent) Abandon(id int64) error { return a.ledger.Abandon(id) }
func (a *CKB) Abandon(id int64) error         { return a.ledger.Abandon(id) }
func (a *IGPUCB) Abandon(id int64) error      { return a.ledger.Abandon(id) }
func (a *Penalty) Abandon(id int64) error     { return a.ledger.Abandon(id) }
func (a *SCGP) Abandon(id int64) error        { return a.ledger.Abandon(id) }
func (a *ADMMBO) Abandon(id int64) error      { return a.ledger.Abandon(id) }
func (a *OCOBandit) Abandon(id int64) error   { return a.ledger.Abandon(id) }
func (c *safeCore) Abandon(id int64) error    { return c.ledger.Abandon(id) }
func (c *stageCommon) Abandon(id int64) error { return c.ledger.Abandon(id) }

// Impose implements bandit.Imposer: the penalty of eq. (12) follows the
// observed costs of every decision, imposed or not (000 §3); a censored
// GP takes the point at once, as its own decisions (000 §5).
func (a *RPOL) Impose(r *bandit.Round, act bandit.Action) (bandit.Decision, error) {
	act, err := imposedAction(a.info.Domain, act)
	if err != nil {
		return bandit.Decision{}, fmt.Errorf("%s: %w", a.name, err)
	}
	a.t = r.T
	a.rule.AdvanceTo(r.T)
	d := a.ledger.Record(r.T, act, 0)
	if a.kind == rpolCensored {
		if err := a.sf.addPoint(act.X); err != nil {
			return bandit.Decision{}, fmt.Errorf("%s: %w", a.name, err)
		}
		for _, c := range a.sg {
			if err := c.addPoint(act.X); err != nil {
				return bandit.Decision{}, fmt.Errorf("%s: %w", a.name, err)
			}
		}
		a.xs = append(a.xs, d.Action.X)
	}
	return d, nil
}

// Impose implements bandit.Imposer.
func (a *ConfigAgent) Impose(r *bandit.Round, act bandit.Action) (bandit.Decision, error) {
	act, err := imposedAction(a.info.Domain, act)
	if err != nil {
		return bandit.Decision{}, fmt.Errorf("%s: %w", a.name, err)
	}
	return a.ledger.Record(r.T, act, 0), nil
}

// Impose implements bandit.Imposer: the dual variable, whose step (001
// Alg. 1 line 7) follows the agent's own choices, is left as it is.
func (a *CKB) Impose(r *bandit.Round, act bandit.Action) (bandit.Decision, error) {
	act, err := imposedAction(a.info.Domain, act)
	if err != nil {
		return bandit.Decision{}, fmt.Errorf("%s: %w", a.name, err)
	}
	a.t++
	a.maybeRestart(r.T)
	return a.ledger.Record(r.T, act, a.box.epoch), nil
}

// Impose implements bandit.Imposer.
func (a *CEI) Impose(r *bandit.Round, act bandit.Action) (bandit.Decision, error) {
	act, err := imposedAction(a.info.Domain, act)
	if err != nil {
		return bandit.Decision{}, fmt.Errorf("%s: %w", a.name, err)
	}
	return a.ledger.Record(r.T, act, 0), nil
}

// Impose implements bandit.Imposer.
func (a *IGPUCB) Impose(r *bandit.Round, act bandit.Action) (bandit.Decision, error) {
	act, err := imposedAction(a.core.info.Domain, act)
	if err != nil {
		return bandit.Decision{}, fmt.Errorf("igp-ucb: %w", err)
	}
	return a.ledger.Record(r.T, act, 0), nil
}

// exploreBeta is the confidence width of the pure-exploration region.
const exploreBeta = 2.0

// pickExplore is the pure-exploration decision of a batch (GP-UCB-PE,
// Contal, Buffoni, Robicquet & Vayatis 2013, ECML-PKDD): while a greedy
// decision of the agent's own acquisition is pending, the next one
// maximises the posterior variance — given the pending points — over the
// region where the optimum may lie. With constraints the region is SafeOpt's
// set of potential maximisers (Sui et al. 2015): the points certified
// feasible (μ_g + βσ_g ≤ 0 for every g) whose UCB of f reaches the best LCB
// of f among them. The variance is summed over f and every g (the GPs see
// standardised metrics). A point at or next to a pending one has lost its
// variance to it, so a batch is distinct points, near the optimum and
// feasible as far as the models can tell. It reports false when no
// candidate is certified feasible (then the agent's own acquisition,
// conditioned on the pending points, decides). The models must be pended.
func pickExplore(rng *rand.Rand, dom domain.Domain, ms []model.Model, score []float64, refine bool) (bandit.Action, bool, error) {
	feasible := func(mv []float64) bool {
		for j := 1; j < len(ms); j++ {
			if mv[2*j]+exploreBeta*math.Sqrt(mv[2*j+1]) > 0 {
				return false
			}
		}
		return true
	}
	means, vars := make([][]float64, len(ms)), make([][]float64, len(ms))
	for j, m := range ms {
		means[j], vars[j] = m.Mean(), m.Var()
	}
	mv := make([]float64, 2*len(ms))
	best := math.Inf(-1)
	for i := range score {
		for j := range ms {
			mv[2*j], mv[2*j+1] = means[j][i], vars[j][i]
		}
		if feasible(mv) {
			best = math.Max(best, mv[0]-exploreBeta*math.Sqrt(mv[1]))
		}
	}
	if math.IsInf(best, -1) {
		return bandit.Action{}, false, nil
	}
	acq := func(mv []float64) float64 {
		ucb := mv[0] + exploreBeta*math.Sqrt(mv[1])
		if !feasible(mv) || ucb < best {
			return math.Min(ucb-best, 0) - 1 // outside: below every point inside
		}
		s := 0.0
		for j := range ms {
			s += mv[2*j+1]
		}
		return s
	}
	act, _, err := pickAcq(rng, dom, ms, acq, score, refine, nil)
	return act, err == nil, err
}
