package agent

import (
	"fmt"
	"math"

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
