package agent

import (
	"fmt"
	"math"

	"github.com/cbandit/cbandit/bandit"
	"github.com/cbandit/cbandit/domain"
	"github.com/cbandit/cbandit/model"
)

// pendingDoc declares how a GP agent treats decisions awaiting feedback.
var pendingDoc = bandit.ChoiceParam{Name: "pending", Default: "auto", Choices: []string{"auto", "bucb", "hallucinate", "ignore"},
	Doc:    "decisions awaiting feedback: bucb = GP-BUCB: the GPs condition on them at their mean, f's width ×1.5; hallucinate: no widening; ignore; auto: bucb below 7 dims, hallucinate from 7 (the trust region's fresh candidates)",
	Source: "Desautels et al. 2014; measured: docs/parallel.md, docs/systems.md",
	Earlier: []bandit.Change{{Until: 3, Value: "ignore", Why: "pending decisions hallucinated (GP-BUCB)"},
		{Until: 4, Value: "hallucinate", Why: "GP-BUCB's wider bound for f while decisions are pending (bucb)"},
		{Until: 8, Value: "bucb", Why: "in 7+ dims a batch's decisions do not widen f's bound (auto)"}},
	Paper: "ignore"}

// PendingWiden is the factor on the objective's posterior standard
// deviation while decisions are pending (pending = bucb; docs/parallel.md):
// GP-BUCB widens the confidence bound by exp(C), C the information the
// pending points carry (Desautels, Krause & Burdick 2014, Thm. 2), which
// is unbounded without an initial uncertainty-sampling phase; our constant
// (β_f 3 rather than 2) frees asynchronous runs from a local basin
// (docs/parallel.md, "With pending=bucb"). The constraints keep their
// widths (a wider optimistic constraint would violate more).
const PendingWiden = 1.5

// pendingMode is how a GP agent treats its pending decisions (parameter
// pending): whether its models condition on them, and the factor on f's
// standard deviation while any is pending.
type pendingMode struct {
	on    bool
	widen float64
}

// pendingParam reads pending.
func pendingParam(name string, ps bandit.Params, dom domain.Domain) (pendingMode, error) {
	v, err := pendingDoc.Read(name, ps)
	if v == "auto" {
		v = "bucb"
		if box, ok := dom.(*domain.Box); ok && box.Dim() >= FreshDim {
			v = "hallucinate"
		}
	}
	switch v {
	case "bucb":
		return pendingMode{on: true, widen: PendingWiden}, err
	case "hallucinate":
		return pendingMode{on: true, widen: 1}, err
	}
	return pendingMode{}, err
}

// pending are the decisions a decision is conditioned on, and the factor
// on f's standard deviation while there are any (pendingMode).
type pending struct {
	acts  []bandit.Action
	widen float64
	fail  model.Model // the failure model (Ledger.failModel), nil before any failure
}

// MaxPending bounds the pending decisions a decision conditions on: the
// most recent ones. More outstanding decisions than parallel workers are
// evaluations that will not come back (the service abandons them after
// --pending-ttl); conditioning on every one would make each decision cost
// O(q·t·M) for an unbounded q.
const MaxPending = 16

// pendModels conditions f on the decisions that await their reward and
// each g_j on those that await their costs (GP-BUCB: at the posterior mean,
// so only the variances change; β is left as it is — GP-BUCB's inflation
// exp(2C) serves its regret bound, and with the practical constant widths
// there is no schedule to inflate; the information gain behind a β_t
// schedule counts real observations only). It returns the undo, to call
// before the models observe again, and the pending actions (for the
// maximiser's duplicate check: choice.pick).
func pendModels(mode pendingMode, l *Ledger, f model.Model, g []model.Model) (func(), pending, error) {
	if !mode.on || l.Open() == 0 {
		return func() {}, pending{fail: l.failModel()}, nil
	}
	undo := func() {
		model.Unpend(f)
		for _, m := range g {
			model.Unpend(m)
		}
	}
	pf := l.Pending(false, MaxPending)
	if err := model.Pend(f, pf); err != nil {
		undo()
		return nil, pending{}, err
	}
	pend := pf
	if len(g) > 0 {
		pg := l.Pending(true, MaxPending)
		for _, m := range g {
			if err := model.Pend(m, pg); err != nil {
				undo()
				return nil, pending{}, err
			}
		}
		if len(pg) > len(pend) {
			pend = pg
		}
	}
	return undo, pending{acts: pend, widen: mode.widen, fail: l.failModel()}, nil
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
func (a *Penalty) Abandon(id int64) error     { return a.ledger.Abandon(id) }
func (a *SCGP) Abandon(id int64) error        { return a.ledger.Abandon(id) }
func (a *ADMMBO) Abandon(id int64) error      { return a.ledger.Abandon(id) }
func (a *OCOBandit) Abandon(id int64) error   { return a.ledger.Abandon(id) }
func (c *safeCore) Abandon(id int64) error    { return c.ledger.Abandon(id) }
func (c *stageCommon) Abandon(id int64) error { return c.ledger.Abandon(id) }

// DuplicateRadius: a point closer to a pending one than this fraction of
// the box's diameter (the same arm, on a finite domain) repeats it.
const DuplicateRadius = 1e-3

// repeats returns the test of whether an action repeats a pending one (nil
// without pending actions, or when every arm of a finite domain is
// pending). GP-BUCB alone repeats pending points where the acquisition's
// maximiser sits on a kink (a constraint's boundary) or where the variance
// is already below the noise, so that conditioning on the point barely
// moves it: on the suite's 2-D problems through the service, 166–207 of 360
// suggestions of count-4 batches lay within 10⁻³ of the diameter of a
// pending point (docs/parallel.md). The maximiser excludes those balls
// (arms) and takes the acquisition's best outside them.
func repeats(dom domain.Domain, pend []bandit.Action) func(bandit.Action) bool {
	return repeatsWithin(dom, pend, DuplicateRadius)
}

// RepeatRadius: a point closer to an evaluated configuration of a
// deterministic study than this fraction of the box's diameter repeats it
// (turn.fresh; the same arm, on a finite domain): a repeat up to the
// search's rounding. Measured (docs/offline.md, "Deterministic metrics"):
// a ball of 1e-4 kept the polish of a boundary optimum away from its
// incumbent (three-bar truss gaps 10× worse on 2 of 3 seeds).
const RepeatRadius = 1e-6

// repeatsWithin marks the points within radius·diameter of one of pend
// on a box, pend's arms elsewhere (nil: none, or every arm of a finite
// domain).
func repeatsWithin(dom domain.Domain, pend []bandit.Action, radius float64) func(bandit.Action) bool {
	if len(pend) == 0 {
		return nil
	}
	box, isBox := dom.(*domain.Box)
	if !isBox {
		arms := map[int]bool{}
		for _, p := range pend {
			arms[p.Arm] = true
		}
		if fin, ok := dom.(*domain.Finite); ok && len(arms) >= fin.N {
			return nil
		}
		return func(a bandit.Action) bool { return arms[a.Arm] }
	}
	diam := 0.0
	for i := range box.Lo {
		diam += (box.Hi[i] - box.Lo[i]) * (box.Hi[i] - box.Lo[i])
	}
	r2 := radius * radius * diam
	return func(a bandit.Action) bool {
		for _, p := range pend {
			d := 0.0
			for i := range p.X {
				d += (p.X[i] - a.X[i]) * (p.X[i] - a.X[i])
			}
			if d < r2 {
				return true
			}
		}
		return false
	}
}
