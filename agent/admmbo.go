package agent

import (
	"fmt"
	"math"
	"slices"

	"github.com/cbandit/cbandit/bandit"
	"github.com/cbandit/cbandit/domain"
	"github.com/cbandit/cbandit/model"
)

// The public code cited below is github.com/SetarehAr/ADMMBO (Ariafar et al.
// 2019): admmbo/ADMMBO.m (outer loop, stopping rule, ρ adaptation,
// incumbent), admmbo/bayesfeas.m and admmbo/EI_Z.m (feasibility subproblem),
// bayesopt/bayesopt.m (optimality subproblem) and
// experiments/toy1_Small_Feasible_Region.m ("toy1", the gardner problem
// sin x + sin y on [0,6]² that Shi & Eryilmaz 2022 App. E.1 runs with this code).
var admmboParams = append(append(withoutParam(igpParams[3:], "standardise"),
	withDoc(standardiseDoc, "on: f standardised, g scaled, ADMM in unit-free terms; off: the public code's units")),
	admmboFloats[0], admmboFloats[1], admmboFloats[2], admmboFloats[3], admmboFloats[4], admmboFloats[5], admmboFloats[6],
	admmboInts[0], admmboInts[1], admmboInts[2], admmboInts[3], admmboInts[4], admmboFloats[7],
)

// admmboFloats and admmboInts are ADMMBO's own settings, read in this order.
var (
	admmboFloats = []bandit.FloatParam{
		{Name: "rho", Default: 0.1, Range: bandit.Above(0), Doc: "initial ADMM penalty ρ", Source: "toy1: rho = .1"},
		{Name: "M", Default: 50, Range: bandit.Above(0), Doc: "feasibility subproblem 1[g(z) > 0] + ρ/(2M)‖x − z + y/ρ‖²", Source: "bayesfeas.m h_func, EI_Z.m; toy1: M = 50"},
		{Name: "mu", Default: 10, Range: bandit.Above(0), Doc: "ρ adaptation: ρ·τ when mean‖r‖ > μ·mean‖s‖, ρ/τ when μ·mean‖r‖ < mean‖s‖", Source: "ADMMBO.m: mu = 10"},
		{Name: "tau", Default: 2, Range: bandit.AtLeast(1), Doc: "ρ adaptation factor τ; 1 keeps ρ fixed", Source: "ADMMBO.m: thai = 2"},
		{Name: "abstol", Default: 0.05, Range: bandit.Above(0), Doc: "absolute tolerance of the stopping rule's ε_pri and ε_dual", Source: "ADMMBO.m: ABSTOL = 0.05"},
		{Name: "reltol", Default: 0.05, Range: bandit.AtLeast(0), Doc: "stopping rule, relative tolerance", Source: "ADMMBO.m: RELTOL = 0.05"},
		{Name: "relax", Default: 1.5, Range: bandit.AtLeast(0), Doc: "stopping rule, factor on reltol", Source: "ADMMBO.m: relaxp = relaxd = 1.5"},
		{Name: "tolc", Default: 0.01, Range: bandit.Finite(), Doc: "incumbent feasible when every observed g_j ≤ tolc (g_j/s_j if standardised)", Source: "ADMMBO.m: tolC = 0.01"},
	}
	admmboInts = []bandit.IntParam{
		{Name: "init", Default: 2, Range: bandit.AtLeast(1), Doc: "initial points shared by f and every g (ours uniformly random)", Source: "toy1: initial_num = 2"},
		{Name: "budget-f1", Default: 10, Range: bandit.AtLeast(1), Doc: "BO queries of the optimality subproblem in the first ADMM iteration", Source: "toy1: initial_bud_f = 10"},
		{Name: "budget-c1", Default: 50, Range: bandit.AtLeast(1), Doc: "BO queries of each feasibility subproblem in the first ADMM iteration", Source: "toy1: initial_bud_c = 50"},
		{Name: "budget", Default: 5, Range: bandit.AtLeast(1), Doc: "BO queries of every subproblem in later ADMM iterations", Source: "toy1: final_bud = 5"},
		{Name: "iters", Default: 0, Range: bandit.AtLeast(0), Doc: "maximum ADMM iterations; 0: toy1's rule from the budgets (15 on gardner)", Source: "toy1; docs/parameters.md"},
	}
)

// withoutParam returns decls without the parameter named name (admmbo takes
// igp-ucb's model parameters but documents its own standardise).
func withoutParam(decls []bandit.Param, name string) []bandit.Param {
	var out []bandit.Param
	for _, d := range decls {
		if d.Describe().Name != name {
			out = append(out, d)
		}
	}
	return out
}

// ADMMBO is the constrained Bayesian optimisation baseline of Shi & Eryilmaz 2022 App. E
// (Ariafar, Coll-Font, Brooks & Dy 2019, JMLR), following the authors'
// public code (github.com/SetarehAr/ADMMBO, file names in admmboParams):
// ADMM on min −f(x) + Σ_j 1[g_j(z_j) > 0] s.t. x = z_j, each subproblem
// solved by a budget of BO queries with expected improvement (EI). ADMM
// iteration i:
//
//	OPT:  x ← the observed point minimising −f(x) + ρ/2 Σ_j ‖x − z_j + y_j/ρ‖²,
//	      after budget-f1 (i = 1) or budget EI queries (bayesopt.m; EI's best
//	      is the least observed value; the form of ADMMBO.m, (Nρ/2)‖x − z̄ + ȳ/ρ‖²,
//	      differs from ours by a constant in x)
//	FEAS: for each j, z_j ← the observed point minimising
//	      h_j(z) = 1[g_j(z) > 0] + ρ/(2M)‖x − z + y_j/ρ‖², after budget-c1 (i = 1)
//	      or budget queries of EI_Z.m's EI: with Q = h⁺ − ρ/(2M)‖…‖² and
//	      θ = P(g_j ≤ 0), EI = θQ for 0 ≤ Q < 1, Q − (1 − θ) for Q ≥ 1, 0 for Q < 0;
//	      then y_j ← y_j + ρ(x − z_j)
//	stop: r_j = ‖x − z_j‖ < ε_pri,j and s_j = ρ‖z_j − z_j^prev‖ < ε_dual,j for
//	      every j (once met, constraint j stays converged: ADMMBO.m's con(j) is
//	      never reset), or i = iters
//	ρ:    ρ·τ if mean r > μ·mean s, ρ/τ if μ·mean r < mean s (ADMMBO.m)
//
// starting from z_j = the box's upper corner and y_j = 0 (toy1). The
// incumbent is updated after every subproblem with its answer (x, then each
// z_j) when its observed g are all ≤ tolc and its observed f is the best
// so far (ADMMBO.m incumbent_update). Every query is one round; from the stop
// on the agent plays the incumbent ([ADMMBO.StopRound] is the last query's
// round); Shi & Eryilmaz 2022 plot ADMMBO only up to its stop.
//
// Departures from the public code, ours: (1) every query observes f and
// every g (the bandit protocol), and every GP uses every observation,
// where the code queries f only in OPT and each g_j only in its FEAS; (2)
// fixed kernel hyper-parameters (the GP parameters of cbandit) where the code
// fits them by marginal likelihood at every query; (3) the acquisitions are
// maximised over the model's candidates, the code over 10⁵ random (FEAS) or
// Sobol (OPT) points; (4) θ uses the posterior standard deviation, the code
// passes the variance to normcdf as the deviation (EI_Z.m); (5) the
// initial design is uniformly random from the agent's seed, the code's is
// read from a stored file; (6) the code re-evaluates f at every old sample in
// each OPT call (bayesopt.m with initial_points), which costs nothing there;
// we reuse the observed values; (7) with no feasible incumbent the code
// returns a point outside the box (InfPoint); we play x.
type ADMMBO struct {
	core    *igpCore
	box     *domain.Box
	ledger  *Ledger
	m       int
	rho     float64
	bigM    float64
	mu, tau float64
	abstol  float64
	reltol  float64
	relax   float64
	tolc    float64
	init    int
	bf1     int
	bc1     int
	budget  int
	iters   int
	// ADMM state
	x         []float64
	z, y      [][]float64
	zold      [][]float64
	conv      []bool
	iter      int // ADMM iteration, 1-based once the initial design is done
	phase     int // 0: OPT, 1..m: FEAS of constraint phase−1
	left      int // queries left in the phase
	stopped   bool
	stopRound int
	answer    []float64
	incumbent []float64
	incF      float64
	obs       []admmObs
	// std: standardise=on. The ADMM problem min −f(x) + Σ_j
	// 1[g_j(z_j) > 0] s.t. x = z_j (Ariafar et al. 2019, §3) is posed on the
	// standardised f̃ = (f − m)/s (m, s those of f's GP, core.f), so the
	// augmented Lagrangian's ρ and duals y_j, which carry f's units per
	// unit of x (§3.1, eq. 6–8), the residual s_j = ρ‖z_j − z_j^prev‖ of
	// the stopping rule and the ρ adaptation (§3.3) are unit-free; the
	// feasibility subproblem (§3.2) sees g only through its sign and θ =
	// P(g ≤ 0) of the scaled constraint GP, both unit-free; tolc is
	// compared with g_j/s_j (s_j the scale of g_j's GP). x, z, abstol and
	// M are in the domain's units or none, so they stay. The incumbent
	// compares raw f (an affine change with a > 0 keeps the order).
	std bool
}

// admmObs is one query with its reward and costs both observed.
type admmObs struct {
	x    []float64
	f    float64
	g    []float64
	feas bool // every g ≤ tolc
}

func newADMMBO(name string, cfg Config) (bandit.Agent, error) {
	in, ps := cfg.Info, cfg.Params
	box, ok := in.Domain.(*domain.Box)
	if !ok {
		return nil, fmt.Errorf("%s: needs a box domain, got %v", name, in.Domain)
	}
	core, err := newIGPCore(name, cfg, in.M, hConstraint)
	if err != nil {
		return nil, err
	}
	a := &ADMMBO{core: core, box: box, ledger: core.ledger, m: in.M, incF: math.Inf(-1), std: core.std}
	for i, dst := range []*float64{&a.rho, &a.bigM, &a.mu, &a.tau, &a.abstol, &a.reltol, &a.relax, &a.tolc} {
		if *dst, err = admmboFloats[i].Read(name, ps); err != nil {
			return nil, err
		}
	}
	for i, dst := range []*int{&a.init, &a.bf1, &a.bc1, &a.budget, &a.iters} {
		if *dst, err = admmboInts[i].Read(name, ps); err != nil {
			return nil, err
		}
	}
	if a.iters == 0 {
		a.iters = ADMMBOIters(in.M, a.bf1, a.bc1, a.budget)
	}
	d := box.Dim()
	a.x = append([]float64(nil), box.Hi...)
	for j := 0; j < in.M; j++ {
		a.z = append(a.z, append([]float64(nil), box.Hi...)) // toy1: opt.f.z{j} = bounds(:,2)'
		a.y = append(a.y, make([]float64, d))
	}
	a.conv = make([]bool, in.M)
	return a, nil
}

// ADMMBOIters is the public code's iteration cap (toy1):
// 1 + round((100(N+1) − N·bc1 − bf1)/((N+1)·b)), at least 1, for N
// constraints, first-iteration budgets bf1 (OPT) and bc1 (each FEAS) and
// later budget b.
func ADMMBOIters(n, bf1, bc1, b int) int {
	it := 1 + int(math.Round(float64(100*(n+1)-n*bc1-bf1)/float64((n+1)*b)))
	if it < 1 {
		it = 1
	}
	return it
}

// StopRound is the round of ADMMBO's last BO query when it has stopped
// (from the next round on it replays its incumbent), 0 while it runs.
func (a *ADMMBO) StopRound() int { return a.stopRound }

// Rho is the current ADMM penalty ρ.
func (a *ADMMBO) Rho() float64 { return a.rho }

// quadOpt is ρ/2 Σ_j ‖x − z_j + y_j/ρ‖² (OPT) at x.
func (a *ADMMBO) quadOpt(x []float64) float64 {
	s := 0.0
	for j := range a.z {
		for k, v := range x {
			d := v - a.z[j][k] + a.y[j][k]/a.rho
			s += d * d
		}
	}
	return a.rho / 2 * s
}

// quadFeas is ρ/(2M) ‖x − z + y_j/ρ‖² at z (bayesfeas.m h_func).
func (a *ADMMBO) quadFeas(j int, z []float64) float64 {
	s := 0.0
	for k, v := range z {
		d := a.x[k] - v + a.y[j][k]/a.rho
		s += d * d
	}
	return a.rho / (2 * a.bigM) * s
}

// alX is the optimality subproblem's objective at an observation (on the
// standardised f with standardise=on, as f's GP).
func (a *ADMMBO) alX(o admmObs) float64 { return -a.fUnits(o.f) + a.quadOpt(o.x) }

// fUnits is an observed f in the units of f's GP: (f − m)/s with
// standardise=on, f itself with off.
func (a *ADMMBO) fUnits(f float64) float64 {
	if ad, ok := a.core.f.(*model.Adaptive); ok && a.std {
		m, s := ad.Standardisation()
		return (f - m) / s
	}
	return f
}

// hZ is feasibility subproblem j's objective at an observation.
func (a *ADMMBO) hZ(j int, o admmObs) float64 {
	v := a.quadFeas(j, o.x)
	if o.g[j] > 0 {
		v++
	}
	return v
}

// argminObs is the index of the observation minimising val (−1 with none).
func (a *ADMMBO) argminObs(val func(o admmObs) float64) int {
	best, bi := math.Inf(1), -1
	for i, o := range a.obs {
		if v := val(o); v < best {
			best, bi = v, i
		}
	}
	return bi
}

// offer updates the incumbent with observation i (ADMMBO.m incumbent_update).
func (a *ADMMBO) offer(i int) {
	if i < 0 {
		return
	}
	if o := a.obs[i]; o.feas && o.f >= a.incF {
		a.incF, a.incumbent = o.f, o.x
	}
}

func dist(u, v []float64) float64 {
	s := 0.0
	for k := range u {
		s += (u[k] - v[k]) * (u[k] - v[k])
	}
	return math.Sqrt(s)
}

func norm(u []float64) float64 { return dist(u, make([]float64, len(u))) }

// closePhase ends the current subproblem; after the last FEAS, the
// stopping rule and the ρ adaptation of ADMMBO.m.
func (a *ADMMBO) closePhase() {
	if a.phase == 0 {
		if i := a.argminObs(a.alX); i >= 0 {
			a.x = append([]float64(nil), a.obs[i].x...)
			a.offer(i)
		}
		a.zold = nil
		for _, z := range a.z {
			a.zold = append(a.zold, append([]float64(nil), z...))
		}
	} else {
		j := a.phase - 1
		if i := a.argminObs(func(o admmObs) float64 { return a.hZ(j, o) }); i >= 0 {
			a.z[j] = append([]float64(nil), a.obs[i].x...)
			a.offer(i)
		}
		for k := range a.x {
			a.y[j][k] += a.rho * (a.x[k] - a.z[j][k])
		}
		if a.phase == a.m {
			a.endIteration()
			if a.stopped {
				return
			}
		}
	}
	a.phase = (a.phase + 1) % (a.m + 1)
	if a.phase == 0 {
		a.iter++
	}
	a.left = a.budget
	if a.iter == 1 {
		a.left = a.bf1
		if a.phase > 0 {
			a.left = a.bc1
		}
	}
}

// endIteration is ADMMBO.m's termination check and ρ update.
func (a *ADMMBO) endIteration() {
	d := math.Sqrt(float64(len(a.x)))
	var rs, ss float64
	for j := range a.z {
		r := dist(a.x, a.z[j])
		s := a.rho * dist(a.z[j], a.zold[j])
		epsPri := d*a.abstol + a.relax*a.reltol*math.Max(norm(a.x), norm(a.z[j]))
		rhoY := make([]float64, len(a.y[j]))
		for k, v := range a.y[j] {
			rhoY[k] = a.rho * v
		}
		epsDual := d*a.abstol + a.relax*a.reltol*norm(rhoY)
		if r < epsPri && s < epsDual {
			a.conv[j] = true
		}
		rs += r
		ss += s
	}
	done := true
	for _, c := range a.conv {
		done = done && c
	}
	if done || a.iter >= a.iters {
		a.stopped = true
		a.stopRound = a.ledger.Decisions()
		a.answer = a.x
		if a.incumbent != nil {
			a.answer = a.incumbent
		}
		return
	}
	rs, ss = rs/float64(a.m), ss/float64(a.m)
	switch {
	case rs > a.mu*ss:
		a.rho *= a.tau
	case a.mu*rs < ss:
		a.rho /= a.tau
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
	if a.iter == 0 {
		a.iter, a.phase, a.left = 1, 0, a.bf1
	}
	if a.left == 0 {
		a.closePhase()
		if a.stopped {
			return a.ledger.Record(r.T, bandit.PointAction(a.answer), 0), nil
		}
	}
	a.left--
	return c.decideTurn(r, func() (turn, error) { return turn{acq: a.subproblem, fill: a.fill(), blind: true}, nil })
}

// fill is the current subproblem's EI at the candidates, for the core's
// maximiser (it reads the value as subproblem does): the score depends on
// the candidate's point, not only on the posteriors there. The failure
// model does not steer the choice (turn.blind): the authors' code has no
// failed evaluations.
func (a *ADMMBO) fill() func(i int, mv []float64) {
	c := a.core
	if a.phase == 0 {
		// bayesopt.m: EI of the augmented Lagrangian, best = least observed value.
		mu, v := c.f.Mean(), c.f.Var()
		best := math.Inf(1)
		for _, o := range a.obs {
			best = math.Min(best, a.alX(o))
		}
		return func(i int, mv []float64) {
			x := c.f.Action(i).X
			m := -mu[i] + a.quadOpt(x)
			if math.IsInf(best, 1) {
				mv[0] = -m // no observation yet: the posterior mean
				return
			}
			mv[0] = ei(best, m, math.Sqrt(math.Max(v[i], 0)))
		}
	}
	// EI_Z.m: h⁺ = least observed h_j.
	j := a.phase - 1
	mg, vg := c.g[j].Mean(), c.g[j].Var()
	best := math.Inf(1)
	for _, o := range a.obs {
		best = math.Min(best, a.hZ(j, o))
	}
	if math.IsInf(best, 1) {
		best = 1
	}
	return func(i int, mv []float64) {
		q := best - a.quadFeas(j, c.f.Action(i).X)
		theta := normCDF(-mg[i] / math.Sqrt(math.Max(vg[i], 1e-18))) // P(g_j ≤ 0)
		switch {
		case q < 0:
			mv[0] = 0
		case q < 1:
			mv[0] = q * theta
		default:
			mv[0] = q - (1 - theta)
		}
	}
}

// subproblem reads the score fill wrote.
func (a *ADMMBO) subproblem(p Posterior) float64 { return p.mv[0] }

// Observe implements bandit.Agent: f and every g_j enter their GPs as they
// arrive; a query enters the observed set (for the subproblems' answers and
// EI's best) when both are in.
func (a *ADMMBO) Observe(fb bandit.Feedback) error {
	acc, err := a.ledger.Accept(fb)
	if err != nil {
		return fmt.Errorf("%s: %w", a.core.name, err)
	}
	if acc.Failed { // nothing to wait for: the failure model (if any) has it
		return nil
	}
	if a.stopped {
		return nil
	}
	if acc.HasReward {
		if err := a.core.f.Observe(acc.Action, acc.Reward); err != nil {
			return fmt.Errorf("%s: %w", a.core.name, err)
		}
	}
	for j, c := range acc.Costs {
		if err := a.core.g[j].Observe(acc.Action, c); err != nil {
			return fmt.Errorf("%s: %w", a.core.name, err)
		}
	}
	if !acc.Complete {
		return nil
	}
	reward, costs := a.ledger.Observed(fb.ID)
	o := admmObs{x: append([]float64(nil), acc.Action.X...), f: reward, g: slices.Clone(costs), feas: true}
	for j, c := range o.g {
		if a.std {
			c /= model.Scale(a.core.g[j])
		}
		if c > a.tolc {
			o.feas = false
		}
	}
	a.obs = append(a.obs, o)
	return nil
}

func init() {
	// On the core, its ledger models failures as every core policy's; its
	// subproblems' choice is blind to them (turn.blind, Decide): the
	// authors' code has no failed evaluations.
	Register(onCore(Spec{
		Name:    "admmbo",
		Can:     Caps{Domains: []string{DomainBox}, Kinds: []bandit.ConstraintKind{KindPerRound}, NeedsConstraints: true, Randomised: true},
		Summary: "ADMMBO: ADMM over EI-solved BO subproblems, as the authors' code (baseline)",
		Source:  "Ariafar et al. 2019 (JMLR) and github.com/SetarehAr/ADMMBO, baseline of Shi & Eryilmaz 2022 App. E; departures in doc",
		Params:  admmboParams,
	}, newADMMBO))
}

// decisionCore is the core ADMMBO stands on.
func (a *ADMMBO) decisionCore() *gpCore { return a.core.gpCore }
