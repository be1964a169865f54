package agent

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/cbandit/cbandit/bandit"
	"github.com/cbandit/cbandit/domain"
	"github.com/cbandit/cbandit/linear"
)

// OPLB is Pacchiano et al. Alg. 2 (Optimistic–Pessimistic Linear Bandit) over a finite
// action set A_t = {x_1..x_K} (per round or fixed; a multi-armed bandit
// without coordinates uses the one-hot features e_a, x₀ = e_safe). Two
// algorithms share this type:
//
//   - `oplb` solves problem (34) as stated: max over π ∈ Δ_K of the optimistic
//     reward (31) subject to the pessimistic cost (32) ≤ τ, both evaluated at
//     the mean action x_π. (34) maximises a convex function over a convex set
//     (Pacchiano et al. §5.1.1: "could be intractable"); [linear.PolicySolver] solves it
//     globally by branch-and-bound over simplices with a certified optimality
//     gap (relative 1e-9), started from the LP policy below and the previous
//     round's policy. The optimum may mix more than m + 1 actions: mixing
//     shrinks ‖x_π‖ in (32). Cost per round: O(K d² + K² d) for the closed
//     forms plus the search (simplices of O(K³) each; with one-hot features
//     a few to a few hundred per round on average at K = 5 thanks to the
//     budget bound of linear.PolicySolver, but 10⁴ to more than 10⁶ in many rounds at
//     K = 10 and 20, see experiments/stagewise/oplb-exact.yaml). The
//     parameter nodes bounds the simplices per round; a round that reaches
//     it plays the best feasible policy found and is counted in
//     [OPLB.Diagnostics] (experiments/stagewise/oplb-budget.yaml runs K = 10
//     and 20 so).
//
//   - `oplb-lp` solves a relaxation of (34) that replaces the two norms of
//     the mean action by the mean of the norms,
//
//     U^r(π) = Σ_a π_a Ṽ^r_t(x_a),   U^c(π) = Σ_a π_a Ṽ^c_t(x_a),
//
//     with Ṽ^r, Ṽ^c the closed forms (9), (10) of each action. By the triangle
//     inequality ‖x_π‖ ≤ Σ_a π_a ‖x_a‖, so U^r ≥ Ṽ^r (29) and U^c ≥ Ṽ^c (30):
//     safety (Pacchiano et al. Prop. 26) is kept, since U^c(π) ≤ τ implies Ṽ^c(π) ≤ τ;
//     optimism (Pacchiano et al. Lemma 29) is kept, with π̃ = γπ* + (1−γ)π₀ the argument of
//     Lemma 18 goes through with C₁ = β Σ_a π*_a ‖x_a^{o,⊥}‖ (Lemma 17 per
//     action, x₀^{o,⊥} = 0), under the same condition on α_r, α_c; the width
//     term becomes (α_r + 1)β Σ_a π_a ‖x_a‖_{Σ⁻¹}, bounded like Lemma 28 plus
//     Prop. 15 (as in the OPB analysis, Pacchiano et al. Prop. 42). The relaxed problem is
//     the LP (37) with u^r_a = Ṽ^r_t(x_a), u^c_a = Ṽ^c_t(x_a), so an optimal
//     policy needs at most m + 1 actions (Pacchiano et al. Lemma 30, App. D.4), found in
//     O(K) pivots for one constraint. The price is conservatism: mixing cannot
//     shrink the confidence widths as it does in (31)–(32). Cost per round:
//     O(K d² m).
//
// Both play only policies that are feasible for (33), so both keep Pacchiano et al. Prop. 26.
type OPLB struct {
	*stageCommon
	model  *linear.Safe
	d      int
	oneHot bool
	x0     []float64
	ur     []float64
	uc     [][]float64
	pi     []float64
	onehot [][]float64

	exact      bool
	solver     linear.PolicySolver
	prob       linear.PolicyProblem
	prev, exPi []float64
	diag       oplbDiag
}

// oplbDiag counts the work of oplb's exact search (see [OPLB.Diagnostics]).
type oplbDiag struct {
	searched, uncertified int
	nodes                 float64
	gapSum, gapMax        float64
}

func newOPLB(cfg Config) (bandit.Agent, error) { return newOPLBAgent("oplb", cfg, true) }

func newOPLBLP(cfg Config) (bandit.Agent, error) { return newOPLBAgent("oplb-lp", cfg, false) }

func newOPLBAgent(name string, cfg Config, exact bool) (bandit.Agent, error) {
	c, err := newStageCommon(name, cfg, stageOpts{warm: true})
	if err != nil {
		return nil, err
	}
	a := &OPLB{stageCommon: c, exact: exact}
	if exact {
		n, err := oplbNodes.Read(name, cfg.Params)
		if err != nil {
			return nil, err
		}
		a.solver.MaxNodes = n
	} else if _, ok := cfg.Params.Given(oplbNodes); ok {
		return nil, bandit.ParamErrorf(name, "nodes", ": only oplb searches (34); oplb-lp solves an LP")
	}
	fin, isFinite := cfg.Info.Domain.(*domain.Finite)
	x0 := c.st.X0
	switch {
	case isFinite && fin.Points == nil:
		if c.st.SafeArm < 0 || c.st.SafeArm >= fin.N {
			return nil, fmt.Errorf("%s: safe arm %d is outside the %d arms", name, c.st.SafeArm, fin.N)
		}
		if fin.N < 2 {
			return nil, fmt.Errorf("%s: K = %d arms: need at least 2 (the safe arm and another)", name, fin.N)
		}
		a.oneHot, a.d = true, fin.N
		for i := 0; i < fin.N; i++ {
			e := make([]float64, fin.N)
			e[i] = 1
			a.onehot = append(a.onehot, e)
		}
		x0 = a.onehot[c.st.SafeArm]
	default:
		a.d = cfg.Info.Domain.Dim()
		if len(x0) > 0 {
			a.d = len(x0)
		}
		if x0 == nil {
			x0 = make([]float64, a.d)
		}
	}
	if a.d < 1 {
		return nil, fmt.Errorf("%s: actions have no coordinates (dimension %d)", name, a.d)
	}
	a.x0 = append([]float64(nil), x0...)
	if a.model, err = c.newSafeModel(a.d, a.x0, c.delta); err != nil {
		return nil, err
	}
	a.uc = make([][]float64, c.m)
	return a, nil
}

func (a *OPLB) roundPoints(r *bandit.Round) ([][]float64, int, error) {
	if a.oneHot {
		if r.Arms != nil {
			return nil, 0, fmt.Errorf("%s: round %d: per-round action sets need coordinates", a.name, r.T)
		}
		return a.onehot, a.st.SafeArm, nil
	}
	pts, err := a.points(r, a.d)
	if err != nil {
		return nil, 0, err
	}
	s, err := a.safeIndex(r, pts)
	return pts, s, err
}

// Decide implements bandit.Agent: lines 3–7 of Pacchiano et al. Alg. 2, line 6 solved
// exactly (`oplb`) or through the relaxation documented on the type (`oplb-lp`).
func (a *OPLB) Decide(r *bandit.Round) (bandit.Decision, error) {
	a.t++
	pts, safe, err := a.roundPoints(r)
	if err != nil {
		return bandit.Decision{}, err
	}
	k := len(pts)
	if cap(a.ur) < k {
		a.ur = make([]float64, k)
		a.pi = make([]float64, k)
		for j := range a.uc {
			a.uc[j] = make([]float64, k)
		}
	}
	a.ur, a.pi = a.ur[:k], a.pi[:k]
	for j := range a.uc {
		a.uc[j] = a.uc[j][:k]
	}
	for i := range a.pi {
		a.pi[i] = 0
	}
	if a.warm != nil && !a.warm.done() {
		a.warm.rounds++
		a.pi[safe] = 1
		return a.decision(r, pts, safe, 1), nil
	}
	for i, x := range pts {
		a.ur[i] = a.model.OptimisticReward(x)
		for j := range a.uc {
			a.uc[j][i] = a.model.PessimisticCost(j, x)
		}
	}
	if _, err := linear.SolveLP(a.ur, a.uc, a.tau, safe, a.pi); err != nil {
		if !errors.Is(err, linear.ErrInfeasible) {
			return bandit.Decision{}, fmt.Errorf("%s: round %d: %w", a.name, r.T, err)
		}
		for i := range a.pi {
			a.pi[i] = 0
		}
		a.pi[safe] = 1
	}
	if a.exact {
		if err := a.solveExact(pts, safe); err != nil {
			return bandit.Decision{}, fmt.Errorf("%s: round %d: %w", a.name, r.T, err)
		}
	}
	return a.decision(r, pts, a.sample(a.pi), 0), nil
}

// solveExact replaces a.pi (the LP policy, feasible for (34)) by an optimal
// policy of (34). The previous round's policy, when the action set has not
// changed size and it is still feasible, is a second starting point.
func (a *OPLB) solveExact(pts [][]float64, safe int) error {
	k := len(pts)
	if err := a.model.PolicyProblem(pts, &a.prob); err != nil {
		return err
	}
	start := a.pi
	if len(a.prev) == k && a.prob.Feasible(a.prev, a.tau) && a.prob.Reward(a.prev) > a.prob.Reward(a.pi) {
		start = a.prev
	}
	if cap(a.exPi) < k {
		a.exPi = make([]float64, k)
	}
	a.exPi = a.exPi[:k]
	v, err := a.solver.Solve(&a.prob, a.tau, safe, start, a.exPi)
	a.diag.searched++
	a.diag.nodes += float64(a.solver.Nodes)
	if errors.Is(err, linear.ErrNotCertified) {
		a.diag.uncertified++
		g := a.solver.Gap / math.Max(1, math.Abs(v))
		a.diag.gapSum += g
		a.diag.gapMax = math.Max(a.diag.gapMax, g)
	} else if err != nil {
		return err
	}
	for i, v := range a.exPi {
		if v < 0 {
			v = 0
		}
		a.pi[i] = v
	}
	a.prev = append(a.prev[:0], a.pi...)
	return nil
}

// Uncertified is the number of rounds whose exact search stopped at its node
// budget (the best feasible policy found, always feasible for (33), was
// played). TestOPLBRelaxationIsSafe checks it stays 0 on the 4-armed
// Bernoulli bandit.
func (a *OPLB) Uncertified() int { return a.diag.uncertified }

// Diagnostics implements bandit.Diagnostics for `oplb` (nil for `oplb-lp`,
// which searches nothing):
//
//   - searched_rounds: rounds where (34) was searched (after the warm-up);
//   - uncertified_rounds: those that ended at the node budget, playing the
//     best feasible policy found (the incumbent), and their fraction of the
//     searched rounds, uncertified_fraction;
//   - gap_mean, gap_max: the relative optimality gap certified at the budget,
//     (upper bound − incumbent)/max(1, |incumbent|) — the tolerance's scale
//     of linear.PolicySolver — mean and largest over the uncertified rounds
//     (0 when every round was certified);
//   - nodes_per_round: mean simplices examined per searched round.
func (a *OPLB) Diagnostics() map[string]float64 {
	if !a.exact {
		return nil
	}
	d := a.diag
	out := map[string]float64{
		"searched_rounds":      float64(d.searched),
		"uncertified_rounds":   float64(d.uncertified),
		"uncertified_fraction": 0,
		"gap_mean":             0,
		"gap_max":              d.gapMax,
		"nodes_per_round":      0,
	}
	if d.searched > 0 {
		out["uncertified_fraction"] = float64(d.uncertified) / float64(d.searched)
		out["nodes_per_round"] = d.nodes / float64(d.searched)
	}
	if d.uncertified > 0 {
		out["gap_mean"] = d.gapSum / float64(d.uncertified)
	}
	return out
}

func (a *OPLB) decision(r *bandit.Round, pts [][]float64, arm, tag int) bandit.Decision {
	act := bandit.ArmAction(arm)
	act.X = pts[arm]
	d := a.ledger.Record(r.T, act, tag)
	if a.oneHot {
		d.Action.X = nil
	}
	d.Policy = append([]float64(nil), a.pi...)
	return d
}

// Observe implements bandit.Agent.
func (a *OPLB) Observe(fb bandit.Feedback) error {
	acc, costs, err := a.accept(fb)
	if err != nil {
		return err
	}
	if acc.Action.X == nil || len(acc.Action.X) == 0 {
		if !a.oneHot || acc.Action.Arm < 0 || acc.Action.Arm >= len(a.onehot) {
			return fmt.Errorf("%s: feedback id = %d: decision has no coordinates", a.name, fb.ID)
		}
		acc.Action.X = a.onehot[acc.Action.Arm]
	}
	return a.observeLinear(a.model, acc, costs, func() {
		if err := a.model.SetAlpha(a.gapAlpha(), a.alphaC); err == nil {
			a.alphaR = a.gapAlpha()
		}
	})
}

// Model returns the agent's linear models (for tests and reports).
func (a *OPLB) Model() *linear.Safe { return a.model }

// oplbNodes declares the budget of oplb's global solver of (34).
var oplbNodes = bandit.IntParam{Name: "nodes", Default: 200000, Range: bandit.AtLeast(1),
	Doc: "simplex budget per round for (34); beyond it the incumbent, reported in diagnostics", Source: "our choice"}

var oplbParams = append(slices.Clone(stageParams), oplbNodes)

func init() {
	Register(Spec{
		Name:    "oplb",
		Can:     Caps{Domains: []string{DomainFinite, DomainContextual}, Kinds: []bandit.ConstraintKind{KindPerRound}, NeedsConstraints: true, NeedsStage: true, Randomised: true, Pending: PendingDraw},
		Summary: "OPLB: optimistic–pessimistic policies, linear actions; (34) solved exactly",
		Source:  "Pacchiano et al. Alg. 2, §5.1, Prop. 25, Thm. 27; (34) solved globally by branch-and-bound over simplices with a certified gap (linear.PolicySolver)",
		Params:  oplbParams,
		New:     newOPLB,
	})
	Register(Spec{
		Name:    "oplb-lp",
		Can:     Caps{Domains: []string{DomainFinite, DomainContextual}, Kinds: []bandit.ConstraintKind{KindPerRound}, NeedsConstraints: true, NeedsStage: true, Randomised: true, Pending: PendingDraw},
		Summary: "OPLB with (34) relaxed to the LP (37): safe, optimistic, more conservative",
		Source:  "Pacchiano et al. Alg. 2 with the relaxation documented in agent/oplb.go (LP (37), support ≤ m+1, Lemma 30, App. D.4)",
		Params:  stageParams,
		New:     newOPLBLP,
	})
}
