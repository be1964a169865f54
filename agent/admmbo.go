package agent

import (
	"fmt"
	"math"

	"github.com/cbandit/cbandit/bandit"
	"github.com/cbandit/cbandit/domain"
)

var admmboParams = append(append([]bandit.ParamDoc(nil), igpParams[3:]...),
	bandit.ParamDoc{Name: "rho", Default: "0.1", Doc: "ADMM penalty ρ (Ariafar et al. 2019; our choice)"},
	bandit.ParamDoc{Name: "init", Default: "10", Doc: "uniformly random initial queries (our choice)"},
	bandit.ParamDoc{Name: "alpha", Default: "2", Doc: "BO queries of the optimality subproblem per ADMM iteration (our choice)"},
	bandit.ParamDoc{Name: "beta", Default: "2", Doc: "BO queries of each feasibility subproblem per ADMM iteration (our choice)"},
	bandit.ParamDoc{Name: "eps", Default: "0.05", Doc: "stopping rule: primal and dual residuals ‖x − z‖, ρ‖z − z_prev‖ below eps (our choice)"},
	bandit.ParamDoc{Name: "iters", Default: "50", Doc: "maximum number of ADMM iterations (our choice)"},
)

// ADMMBO is the constrained Bayesian optimisation baseline of 002 App. E
// (Ariafar, Coll-Font, Brooks & Dy 2019, JMLR), as we read it: ADMM on
// min −f(x) + Σ_i 1[g_i(z_i) > 0] s.t. x = z_i, each subproblem solved by
// a few BO queries with expected improvement (EI):
//
//	OPT:  x ← argmin −f(x) + ρ/2 Σ_i ‖x − z_i + y_i/ρ‖²   (EI on GP of −f plus the known quadratic)
//	FEAS: z_i ← argmin 1[g_i(z) > 0] + ρ/2 ‖x − z + y_i/ρ‖² (EI of the indicator under the GP of g_i)
//	y_i ← y_i + ρ(x − z_i),
//
// stopping when ‖x − z_i‖ and ρ‖z_i − z_i^prev‖ fall below eps (002 App. E:
// "its own stopping criteria") or after iters iterations. Every query is one
// round; after the stop the agent plays its answer: the best observed point
// whose observed costs are all ≤ 0 (x when there is none). The GP means and
// acquisitions are over the model's candidates (no refinement).
type ADMMBO struct {
	core   *igpCore
	box    *domain.Box
	ledger *Ledger
	rho    float64
	init   int
	alpha  int
	beta   int
	eps    float64
	iters  int
	m      int
	// ADMM state
	x        []float64
	z, y     [][]float64
	iter     int
	phase    int // 0: OPT, 1..m: FEAS of constraint phase−1
	left     int // queries left in the phase
	stopped  bool
	answer   []float64
	bestF    float64
	feasBest []float64
	pending  map[int64]*partial
	score    []float64
}

func newADMMBO(cfg Config) (bandit.Agent, error) {
	const name = "admmbo"
	in, ps := cfg.Info, cfg.Params
	box, ok := in.Domain.(*domain.Box)
	if !ok {
		return nil, fmt.Errorf("%s: needs a box domain, got %v", name, in.Domain)
	}
	if in.M < 1 {
		return nil, fmt.Errorf("%s: the problem has no constraints (M = %d)", name, in.M)
	}
	core, err := newIGPCore(name, cfg, in.M)
	if err != nil {
		return nil, err
	}
	a := &ADMMBO{core: core, box: box, ledger: NewLedger(in.M), m: in.M, bestF: math.Inf(-1),
		pending: map[int64]*partial{}}
	if a.rho, err = ps.Float(name, "rho", 0.1); err != nil {
		return nil, err
	}
	if a.eps, err = ps.Float(name, "eps", 0.05); err != nil {
		return nil, err
	}
	for _, p := range []struct {
		k   string
		dst *int
		def int
	}{{"init", &a.init, 10}, {"alpha", &a.alpha, 2}, {"beta", &a.beta, 2}, {"iters", &a.iters, 50}} {
		if *p.dst, err = ps.Int(name, p.k, p.def); err != nil {
			return nil, err
		}
		if *p.dst < 1 {
			return nil, fmt.Errorf("%s: parameter %s = %d: must be at least 1", name, p.k, *p.dst)
		}
	}
	if !(a.rho > 0) || math.IsInf(a.rho, 0) {
		return nil, fmt.Errorf("%s: parameter rho = %v: must be a finite number > 0", name, a.rho)
	}
	if !(a.eps > 0) {
		return nil, fmt.Errorf("%s: parameter eps = %v: must be > 0", name, a.eps)
	}
	d := box.Dim()
	a.x = make([]float64, d)
	for i := range a.x {
		a.x[i] = (box.Lo[i] + box.Hi[i]) / 2
	}
	for j := 0; j < in.M; j++ {
		a.z = append(a.z, append([]float64(nil), a.x...))
		a.y = append(a.y, make([]float64, d))
	}
	a.left = a.alpha
	a.score = make([]float64, core.y.Len())
	return a, nil
}

func normCDF(u float64) float64 { return 0.5 * math.Erfc(-u/math.Sqrt2) }
func normPDF(u float64) float64 { return math.Exp(-u*u/2) / math.Sqrt(2*math.Pi) }

// ei is E[max(best − V, 0)] for V ~ N(mu, s²).
func ei(best, mu, s float64) float64 {
	if s <= 1e-12 {
		return math.Max(best-mu, 0)
	}
	u := (best - mu) / s
	return (best-mu)*normCDF(u) + s*normPDF(u)
}

// quad is ρ/2 Σ_i ‖x − z_i + y_i/ρ‖² (OPT) at x.
func (a *ADMMBO) quadOpt(x []float64) float64 {
	s := 0.0
	for i := range a.z {
		for k, v := range x {
			d := v - a.z[i][k] + a.y[i][k]/a.rho
			s += d * d
		}
	}
	return a.rho / 2 * s
}

// quadFeas is ρ/2 ‖x − z + y_i/ρ‖² at z.
func (a *ADMMBO) quadFeas(i int, z []float64) float64 {
	s := 0.0
	for k, v := range z {
		d := a.x[k] - v + a.y[i][k]/a.rho
		s += d * d
	}
	return a.rho / 2 * s
}

// argmin over the candidates of val(i); returns the candidate point.
func (a *ADMMBO) argmin(val func(i int) float64) []float64 {
	best, bi := math.Inf(1), 0
	for i := range a.score {
		if v := val(i); v < best {
			best, bi = v, i
		}
	}
	return append([]float64(nil), a.core.y.Action(bi).X...)
}

// closePhase ends the current subproblem: sets x or z_i from the posterior,
// and after the last FEAS the dual update and the stopping rule.
func (a *ADMMBO) closePhase() {
	c := a.core
	mu := c.y.Mean()
	if a.phase == 0 {
		a.x = a.argmin(func(i int) float64 { return -mu[i] + a.quadOpt(c.y.Action(i).X) })
	} else {
		j := a.phase - 1
		mg, vg := c.h[j].Mean(), c.h[j].Var()
		prev := a.z[j]
		a.z[j] = a.argmin(func(i int) float64 {
			infeas := 1 - normCDF(-mg[i]/math.Sqrt(math.Max(vg[i], 1e-18)))
			return infeas + a.quadFeas(j, c.y.Action(i).X)
		})
		r, s := 0.0, 0.0
		for k := range a.x {
			r += (a.x[k] - a.z[j][k]) * (a.x[k] - a.z[j][k])
			s += (a.z[j][k] - prev[k]) * (a.z[j][k] - prev[k])
		}
		if a.phase == a.m {
			a.iter++
			done := true
			for i := range a.z {
				rr := 0.0
				for k := range a.x {
					a.y[i][k] += a.rho * (a.x[k] - a.z[i][k])
					rr += (a.x[k] - a.z[i][k]) * (a.x[k] - a.z[i][k])
				}
				if math.Sqrt(rr) > a.eps {
					done = false
				}
			}
			if a.rho*math.Sqrt(s) > a.eps || math.Sqrt(r) > a.eps {
				done = false
			}
			if done || a.iter >= a.iters {
				a.stopped = true
				a.answer = a.x
				if a.feasBest != nil {
					a.answer = a.feasBest
				}
			}
		}
	}
	a.phase = (a.phase + 1) % (a.m + 1)
	a.left = a.alpha
	if a.phase > 0 {
		a.left = a.beta
	}
}

// Decide implements bandit.Agent.
func (a *ADMMBO) Decide(r *bandit.Round) (bandit.Decision, error) {
	c := a.core
	k := a.ledger.Decisions()
	if a.stopped {
		return a.ledger.Record(r.T, bandit.PointAction(a.answer), 0), nil
	}
	if k < a.init {
		x := make([]float64, len(a.x))
		for i := range x {
			x[i] = a.box.Lo[i] + (a.box.Hi[i]-a.box.Lo[i])*c.rng.Float64()
		}
		return a.ledger.Record(r.T, bandit.PointAction(x), 0), nil
	}
	if a.left == 0 {
		a.closePhase()
		if a.stopped {
			return a.ledger.Record(r.T, bandit.PointAction(a.answer), 0), nil
		}
	}
	a.left--
	mu, v := c.y.Mean(), c.y.Var()
	if a.phase == 0 {
		// EI for −f + q; best = min over the candidates of the posterior mean.
		best := math.Inf(1)
		for i := range a.score {
			best = math.Min(best, -mu[i]+a.quadOpt(c.y.Action(i).X))
		}
		for i := range a.score {
			q := a.quadOpt(c.y.Action(i).X)
			a.score[i] = ei(best, -mu[i]+q, math.Sqrt(math.Max(v[i], 0)))
		}
	} else {
		j := a.phase - 1
		mg, vg := c.h[j].Mean(), c.h[j].Var()
		best := math.Inf(1)
		theta := make([]float64, len(a.score))
		for i := range a.score {
			theta[i] = normCDF(-mg[i] / math.Sqrt(math.Max(vg[i], 1e-18))) // P(g_j ≤ 0)
			best = math.Min(best, 1-theta[i]+a.quadFeas(j, c.y.Action(i).X))
		}
		for i := range a.score {
			q := a.quadFeas(j, c.y.Action(i).X)
			a.score[i] = theta[i]*math.Max(best-q, 0) + (1-theta[i])*math.Max(best-1-q, 0)
		}
	}
	act, _, err := pickAction(c.rng, c.y, c.info.Domain, a.score, nil, nil)
	if err != nil {
		return bandit.Decision{}, fmt.Errorf("admmbo: round %d: %w", r.T, err)
	}
	return a.ledger.Record(r.T, act, 0), nil
}

// Observe implements bandit.Agent: f and every g_j enter their GPs when
// both are in.
func (a *ADMMBO) Observe(fb bandit.Feedback) error {
	acc, err := a.ledger.Accept(fb)
	if err != nil {
		return fmt.Errorf("admmbo: %w", err)
	}
	if a.stopped {
		return nil
	}
	p := a.pending[fb.ID]
	if p == nil {
		p = &partial{}
		a.pending[fb.ID] = p
	}
	if acc.HasReward {
		if err := a.core.y.Observe(acc.Action, acc.Reward); err != nil {
			return fmt.Errorf("admmbo: %w", err)
		}
		p.reward, p.hasReward = acc.Reward, true
	}
	if acc.Costs != nil {
		for j, c := range acc.Costs {
			if err := a.core.h[j].Observe(acc.Action, c); err != nil {
				return fmt.Errorf("admmbo: %w", err)
			}
		}
		p.costs = append([]float64(nil), acc.Costs...)
	}
	if !p.hasReward || p.costs == nil {
		return nil
	}
	delete(a.pending, fb.ID)
	for _, c := range p.costs {
		if c > 0 {
			return nil
		}
	}
	if p.reward > a.bestF {
		a.bestF, a.feasBest = p.reward, append([]float64(nil), acc.Action.X...)
	}
	return nil
}

func init() {
	Register(Spec{
		Name:    "admmbo",
		Summary: "ADMMBO: ADMM over BO subproblems with expected improvement, own stopping rule (baseline)",
		Source:  "Ariafar et al. 2019 (JMLR), baseline of 002 App. E; our reading, see doc",
		Params:  admmboParams,
		New:     newADMMBO,
	})
}
