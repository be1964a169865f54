package agent

import (
	"errors"
	"fmt"
	"math"

	"github.com/cbandit/cbandit/bandit"
	"github.com/cbandit/cbandit/domain"
	"github.com/cbandit/cbandit/linear"
)

// OPB is Pacchiano et al. Alg. 3 (Optimism–Pessimism Bandit) for K-armed bandits with m
// stage-wise constraints in expectation: each round it solves the LP (37)
//
//	max_{π ∈ Δ_K} Σ_a π_a u^r_a(t)  s.t.  Σ_a π_a u^c_a(t, i) ≤ τ_i,
//
// with u^r_a = r̂_a + α_r β_a, u^c_a = ĉ_a + α_c β_a and β_a = √(2 log(1/δ′)/T_a)
// (Pacchiano et al. §5.2), and plays an arm drawn from the solution. For m = 1 the LP is
// solved in closed form with support ≤ 2 (Pacchiano et al. Lemma 30, [linear.SolveLP1]);
// for m > 1 with gonum's simplex method, support ≤ m + 1 (App. D.4).
//
// Choices the paper leaves open, documented here:
//   - The safe arm's mean reward and costs are known (Ass. 5 / Ass. 43), so
//     its bounds are the known values themselves.
//   - An arm never observed (T_a = 0) has β_a = ∞. Its cost bound is then the
//     known range c̄_a ≤ 1 (Pacchiano et al. Ass. 4) and its reward bound +∞, and the LP
//     (37) in that limit puts the largest safe weight on it: the policy mixes
//     the lowest-index unobserved arm with the safe arm,
//     π = η δ_a + (1−η) δ_safe with η = min_i (τ_i − u^c_safe(i))/(1 − u^c_safe(i)).
//     This explores each arm once without violating the constraint.
//   - Reward and cost counts are kept apart, so feedback may arrive partially.
//   - If the LP has no feasible policy (only possible after a warm start,
//     when the safe arm's cost is estimated), OPB plays the safe arm.
type OPB struct {
	*stageCommon
	k, safe int
	logTerm float64 // 2 log(1/δ′)
	nR      []int
	sR      []float64
	nC      []int
	sC      [][]float64
	ur      []float64
	uc      [][]float64
	pi      []float64
	ready   bool   // ur, uc hold every arm's bounds
	next    int    // no arm below next is unobserved
	hint    [2]int // previous LP pair (SolveLP1Hint)
}

// opbParams are the parameters of OPB (δ enters through δ′ = δ/(4KT), Thm. 31).
var opbParams = func() []bandit.Param {
	alphaR, alphaC := stageAlphaR, stageAlphaC
	alphaR.Computed = "m = 1: 1 + 2(1 − r̄₁)/(τ − c̄₁); m > 1: 1 + 2/min_i(τ_i − c̄₁⁽ⁱ⁾)"
	alphaR.Doc, alphaR.Source = "reward scaling α_r", "Pacchiano et al. Thm. 31; Thm. 45 for m constraints"
	alphaC.Source = "Pacchiano et al. Thm. 31, Thm. 45"
	return []bandit.Param{
		failureDoc("delta", "failure probability δ, δ′ = δ/(4KT) in β_a(t)", "Pacchiano et al. Thm. 31 leave δ open: our choice"),
		alphaR, alphaC, stageWarm,
	}
}()

func newOPB(cfg Config) (bandit.Agent, error) {
	const name = "opb"
	c, err := newStageCommon(name, cfg, stageOpts{warm: true})
	if err != nil {
		return nil, err
	}
	fin, ok := cfg.Info.Domain.(*domain.Finite)
	if !ok {
		return nil, fmt.Errorf("%s: OPB needs a finite set of arms (Pacchiano et al. §5.2), the domain is %v", name, cfg.Info.Domain)
	}
	k := fin.N
	if k < 2 {
		return nil, fmt.Errorf("%s: K = %d arms: need at least 2 (the safe arm and another, Pacchiano et al. §5.2)", name, k)
	}
	a := &OPB{stageCommon: c, k: k, safe: c.st.SafeArm,
		nR: make([]int, k), sR: make([]float64, k), nC: make([]int, k),
		ur: make([]float64, k), pi: make([]float64, k), hint: [2]int{-1, -1}}
	if a.safe < 0 {
		if a.safe, err = c.safeIndex(&bandit.Round{}, fin.Points); err != nil {
			return nil, err
		}
	}
	if a.safe >= k {
		return nil, fmt.Errorf("%s: safe arm %d is outside the %d arms", name, a.safe, k)
	}
	for i := 0; i < c.m; i++ {
		a.sC = append(a.sC, make([]float64, k))
		a.uc = append(a.uc, make([]float64, k))
	}
	deltaP := c.delta / (4 * float64(k) * float64(cfg.Horizon))
	a.logTerm = 2 * math.Log(1/deltaP)
	if c.warm == nil && !c.alphaRSet && c.m > 1 {
		gap := math.Inf(1)
		for i := range c.tau {
			gap = math.Min(gap, c.tau[i]-c.st.C0[i])
		}
		c.alphaR = 1 + 2/gap // Thm. 45
	}
	return a, nil
}

// Decide implements bandit.Agent: lines 3–6 of Pacchiano et al. Alg. 3.
func (a *OPB) Decide(r *bandit.Round) (bandit.Decision, error) {
	a.t++
	if r.Arms != nil && len(r.Arms) != a.k {
		return bandit.Decision{}, fmt.Errorf("%s: round %d has %d arms, the problem has %d (OPB needs a fixed set of arms)", a.name, r.T, len(r.Arms), a.k)
	}
	for i := range a.pi {
		a.pi[i] = 0
	}
	if a.warm != nil && !a.warm.done() {
		a.warm.rounds++
		a.pi[a.safe] = 1
		return a.decision(r, a.safe, 1), nil
	}
	// Line 3: the bounds u^r_a(t), u^c_a(t, i), kept up to date arm by arm
	// (only the observed arm's bounds change between rounds).
	if !a.ready {
		for arm := 0; arm < a.k; arm++ {
			a.refresh(arm)
		}
		a.ready = true
	}
	for a.next < a.k && a.seen(a.next) {
		a.next++
	}
	unseen := -1
	if a.next < a.k {
		unseen = a.next
	}
	if unseen >= 0 {
		// The β_a → ∞ limit of (37) (see the type's documentation).
		eta := 1.0
		for i := range a.uc {
			cs := a.uc[i][a.safe]
			if a.nC[a.safe] == 0 && a.warm != nil {
				cs = math.Inf(1)
			}
			if cs >= a.tau[i] {
				eta = 0
			} else if a.tau[i] < 1 {
				eta = math.Min(eta, (a.tau[i]-cs)/(1-cs))
			}
		}
		a.pi[unseen] = eta
		a.pi[a.safe] += 1 - eta
		return a.decision(r, a.sample(a.pi), 0), nil
	}
	// Lines 4–5: the LP (37), from the previous round's pair when m = 1.
	var err error
	if a.m == 1 {
		_, err = linear.SolveLP1Hint(a.ur, a.uc[0], a.tau[0], a.pi, a.hint[:])
	} else {
		_, err = linear.SolveLP(a.ur, a.uc, a.tau, a.safe, a.pi)
	}
	if err != nil {
		if !errors.Is(err, linear.ErrInfeasible) {
			return bandit.Decision{}, fmt.Errorf("%s: round %d: %w", a.name, r.T, err)
		}
		for i := range a.pi {
			a.pi[i] = 0
		}
		a.pi[a.safe] = 1
	}
	// Line 6.
	return a.decision(r, a.sample(a.pi), 0), nil
}

func (a *OPB) decision(r *bandit.Round, arm, tag int) bandit.Decision {
	act := bandit.ArmAction(arm)
	if r.Arms != nil {
		act.X = r.Arms[arm]
	}
	d := a.ledger.Record(r.T, act, tag)
	d.Policy = append([]float64(nil), a.pi...)
	return d
}

// seen reports whether arm has bounds: the known safe arm, or an arm with at
// least one reward and one cost observation.
func (a *OPB) seen(arm int) bool {
	if arm == a.safe && a.warm == nil {
		return true
	}
	return a.nR[arm] > 0 && a.nC[arm] > 0
}

// refresh recomputes the bounds of one arm (Pacchiano et al. §5.2).
func (a *OPB) refresh(arm int) {
	if arm == a.safe && a.warm == nil {
		a.ur[arm] = a.st.R0
		for i := range a.uc {
			a.uc[i][arm] = a.st.C0[i]
		}
		return
	}
	if a.nR[arm] == 0 || a.nC[arm] == 0 {
		a.ur[arm] = 0
		for i := range a.uc {
			a.uc[i][arm] = math.Inf(1)
		}
		return
	}
	br := math.Sqrt(a.logTerm / float64(a.nR[arm]))
	bc := math.Sqrt(a.logTerm / float64(a.nC[arm]))
	a.ur[arm] = a.sR[arm]/float64(a.nR[arm]) + a.alphaR*br
	for i := range a.uc {
		a.uc[i][arm] = a.sC[i][arm]/float64(a.nC[arm]) + a.alphaC*bc
	}
}

// Observe implements bandit.Agent.
func (a *OPB) Observe(fb bandit.Feedback) error {
	acc, costs, err := a.accept(fb)
	if err != nil {
		return err
	}
	arm := acc.Action.Arm
	if arm < 0 || arm >= a.k {
		return fmt.Errorf("%s: feedback id = %d: arm %d outside [0, %d)", a.name, fb.ID, arm, a.k)
	}
	if acc.HasReward {
		a.nR[arm]++
		a.sR[arm] += acc.Reward
	}
	if costs != nil {
		a.nC[arm]++
		for i, c := range costs {
			a.sC[i][arm] += c
		}
	}
	a.refresh(arm)
	if a.warm != nil && acc.Tag == 1 && !a.warm.done() {
		a.warm.observe(acc.HasReward, acc.Reward, costs)
		if a.warm.done() {
			a.alphaR = a.gapAlpha()
			a.ready = false
		}
	}
	return nil
}

// Counts returns T_a(t) of the rewards (for tests and reports).
func (a *OPB) Counts() []int { return append([]int(nil), a.nR...) }

func init() {
	Register(Spec{
		Name:    "opb",
		Can:     Caps{Domains: []string{DomainFinite}, Kinds: []bandit.ConstraintKind{KindPerRound}, NeedsConstraints: true, NeedsStage: true, Randomised: true, Pending: PendingDraw},
		Summary: "OPB: optimistic–pessimistic LP over policies, K arms (stage-wise, in mean)",
		Source:  "Pacchiano et al. Alg. 3, §5.2, (37), Lemma 30, Thm. 31; App. D.4 (m constraints); App. F.1 (unknown r̄₁, c̄₁)",
		Params:  opbParams,
		New:     newOPB,
	})
}
