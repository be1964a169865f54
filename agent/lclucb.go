package agent

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/cbandit/cbandit/bandit"
	"github.com/cbandit/cbandit/domain"
	"github.com/cbandit/cbandit/linear"
)

// This file holds LC-LUCB (Pacchiano et al. Alg. 1) and the pieces every stage-wise agent
// of Pacchiano et al. shares (lc-lucb, oplb, opb, opnlb, safe-lts): reading Info.Stage,
// the defaults of α_r and α_c, the warm start for unknown r₀ and c₀ (Pacchiano et al.
// Remark 12, App. F.1, Alg. 5), reading a round's action set, and sampling a
// policy.

// stageParams are the parameters shared by the stage-wise agents of Pacchiano et al.
var stageParams = []bandit.Param{stageDelta, stageLambda, stageAlphaR, stageAlphaC, stageWarm}

// The settings newStageCommon reads (each agent declares those it takes).
var (
	stageDelta  = failureDoc("delta", "failure probability δ of the confidence sets", "Pacchiano et al. Thm. 10 leave δ open: our choice")
	stageLambda = bandit.FloatParam{Name: "lambda", Default: 1, Range: bandit.Above(0), Doc: "regulariser λ of Σ_t = λI + Σ XXᵀ", Source: "Pacchiano et al. eq. (3); λ = 1 in §4.5"}
	stageAlphaR = bandit.FloatParam{Name: "alpha-r", Computed: "1 + 2(1 − r₀)/min_i(τ_i − c₀⁽ⁱ⁾)", Range: bandit.AtLeast(1),
		Doc: "reward scaling α_r; 1 + 6Δ̂_r/Δ̂_c after a warm start", Source: "Pacchiano et al. Thm. 19, 24, 27; eq. (5): α_r ≥ 1"}
	stageAlphaC = bandit.FloatParam{Name: "alpha-c", Default: 1, Range: bandit.AtLeast(1), Doc: "cost scaling α_c", Source: "Pacchiano et al. Thm. 19, 24, 27; eq. (5): α_c ≥ 1"}
	stageWarm   = bandit.BoolParam{Name: "warm-start", Default: false,
		Doc: "unknown r₀, c₀: play x₀ until they are estimated, then set α_r", Source: "Pacchiano et al. Alg. 5, App. F.1"}
)

// stageCommon is the state every stage-wise agent shares.
type stageCommon struct {
	name      string
	info      bandit.Info
	st        *bandit.Stage
	m         int
	tau       []float64
	horizon   int
	delta     float64
	lambda    float64
	alphaR    float64
	alphaC    float64
	alphaRSet bool
	warm      *warmStart // nil: r₀, c₀ known and used
	ledger    *Ledger
	rng       *rand.Rand
	t         int
	costs     []float64 // scratch: observed costs c = g + τ
}

// stageOpts says what an agent supports.
type stageOpts struct {
	warm      bool // the warm start of Pacchiano et al. App. F.1
	freeAlpha bool // α_r is the agent's own (OPNLB: Lemma 37), not checked here
}

// newStageCommon reads the problem's stage-wise facts and the shared
// parameters.
func newStageCommon(name string, cfg Config, o stageOpts) (*stageCommon, error) {
	in := cfg.Info
	st := in.Stage
	if st == nil {
		return nil, fmt.Errorf("%s: the problem is not stage-wise (Info.Stage is nil); %s needs thresholds τ and a safe action x₀ (Pacchiano et al. §2, Ass. 5)", name, name)
	}
	if len(st.Tau) != in.M {
		return nil, fmt.Errorf("%s: the problem gives %d thresholds τ for M = %d constraints", name, len(st.Tau), in.M)
	}
	p := cfg.Params
	c := &stageCommon{name: name, info: in, st: st, m: in.M, tau: st.Tau, horizon: cfg.Horizon,
		ledger: NewLedger(in.M), rng: seedRand(cfg.Seed), costs: make([]float64, in.M)}
	var err error
	if c.delta, err = stageDelta.Read(name, p); err != nil {
		return nil, err
	}
	if c.lambda, err = stageLambda.Read(name, p); err != nil {
		return nil, err
	}
	warm, err := stageWarm.Read(name, p)
	if err != nil {
		return nil, err
	}
	if warm && !o.warm {
		return nil, bandit.ParamErrorf(name, "warm-start", ": not supported by %s (Pacchiano et al. App. F.1 covers lc-lucb, oplb and opb)", name)
	}
	if !warm && !st.Known {
		return nil, fmt.Errorf("%s: the problem does not disclose r₀ and c₀ of the safe action (Info.Stage.Known = false): set warm-start=true to estimate them (Pacchiano et al. Remark 12, App. F.1)", name)
	}
	if !warm {
		if len(st.C0) != in.M {
			return nil, fmt.Errorf("%s: the problem gives %d safe costs c₀ for M = %d constraints", name, len(st.C0), in.M)
		}
		for i := range st.Tau {
			if !(st.Tau[i] > st.C0[i]) {
				return nil, fmt.Errorf("%s: τ_%d = %v ≤ c₀ = %v: no safe margin (Pacchiano et al. Ass. 5 requires c₀ < τ)", name, i+1, st.Tau[i], st.C0[i])
			}
		}
	}
	gap := math.Inf(1)
	if !warm {
		for i := range st.Tau {
			gap = math.Min(gap, st.Tau[i]-st.C0[i])
		}
		c.alphaR = 1 + 2*math.Max(0, 1-st.R0)/gap
	} else {
		c.alphaR = 1 // replaced after the warm start
		c.warm = newWarmStart(in.M, c.tau, cfg.Horizon, c.delta)
	}
	if _, ok := p.Given(stageAlphaR); ok {
		c.alphaRSet = true
	}
	c.alphaC = stageAlphaC.Default
	if o.freeAlpha {
		return c, nil // the agent reads its own α_r
	}
	if c.alphaR, err = stageAlphaR.ReadOr(name, p, c.alphaR); err != nil {
		return nil, err
	}
	if c.alphaC, err = stageAlphaC.Read(name, p); err != nil {
		return nil, err
	}
	if math.IsInf(c.alphaR, 0) { // the computed default, with a vanishing safe margin
		return nil, fmt.Errorf("%s: alpha-r = %v, alpha-c = %v: both must be finite and ≥ 1 (Pacchiano et al. eq. (5))", name, c.alphaR, c.alphaC)
	}
	return c, nil
}

// gapAlpha is α_r after a warm start: 1 + 6Δ̂_r/min_i Δ̂_c⁽ⁱ⁾ (see stageParams).
func (c *stageCommon) gapAlpha() float64 {
	if c.alphaRSet {
		return c.alphaR
	}
	dc := math.Inf(1)
	for _, v := range c.warm.dC {
		dc = math.Min(dc, v)
	}
	return 1 + 6*math.Max(0, c.warm.dR)/dc
}

// accept matches feedback to its decision and turns the observed constraint
// values g = c − τ back into costs c (Info.Stage convention).
func (c *stageCommon) accept(fb bandit.Feedback) (Accepted, []float64, error) {
	acc, err := c.ledger.Accept(fb)
	if err != nil {
		return acc, nil, fmt.Errorf("%s: %w", c.name, err)
	}
	if acc.Costs == nil {
		return acc, nil, nil
	}
	for i, g := range acc.Costs {
		c.costs[i] = g + c.tau[i]
	}
	return acc, c.costs, nil
}

// points returns the round's action set: Round.Arms when set, otherwise the
// points of the problem's finite domain.
func (c *stageCommon) points(r *bandit.Round, d int) ([][]float64, error) {
	pts := r.Arms
	if pts == nil {
		fin, ok := c.info.Domain.(*domain.Finite)
		if !ok || fin.Points == nil {
			return nil, fmt.Errorf("%s: round %d: no action set (neither Round.Arms nor a finite domain with points)", c.name, r.T)
		}
		pts = fin.Points
	}
	if len(pts) == 0 {
		return nil, fmt.Errorf("%s: round %d: the action set is empty", c.name, r.T)
	}
	for i, p := range pts {
		if len(p) != d {
			return nil, fmt.Errorf("%s: round %d: action %d has %d coordinates, want d = %d", c.name, r.T, i, len(p), d)
		}
	}
	return pts, nil
}

// safeIndex finds x₀ among the points of a finite action set (Pacchiano et al. Ass. 5:
// x₀ ∈ A_t for every t).
func (c *stageCommon) safeIndex(r *bandit.Round, pts [][]float64) (int, error) {
	if r.Arms == nil && c.st.SafeArm >= 0 {
		if c.st.SafeArm >= len(pts) {
			return 0, fmt.Errorf("%s: safe arm %d is outside the %d arms", c.name, c.st.SafeArm, len(pts))
		}
		return c.st.SafeArm, nil
	}
	x0 := c.st.X0
	for i, p := range pts {
		same := len(p) == len(x0)
		for j := 0; same && j < len(p); j++ {
			same = math.Abs(p[j]-x0[j]) <= 1e-12*(1+math.Abs(x0[j]))
		}
		if same {
			return i, nil
		}
	}
	return 0, fmt.Errorf("%s: round %d: the safe action x₀ = %v is missing from the action set (Pacchiano et al. Ass. 5: x₀ ∈ A_t for all t)", c.name, r.T, x0)
}

// sample draws an arm from the policy pi.
func (c *stageCommon) sample(pi []float64) int {
	u := c.rng.Float64()
	last := -1
	for a, p := range pi {
		if p <= 0 {
			continue
		}
		last = a
		u -= p
		if u < 0 {
			return a
		}
	}
	return last
}

// warmStart is Pacchiano et al. Alg. 5: empirical means of the safe action's reward and
// costs, with the stopping rules 4–6 and the gap estimates Δ̂_r, Δ̂_c.
type warmStart struct {
	logTerm float64 // 2 log(2T/δ) of (52)–(53)
	tau     []float64
	nR      int
	sR      float64
	nC      []int
	sC      []float64
	doneR   bool
	doneC   []bool
	dR      float64
	dC      []float64
	rounds  int // decisions made during the warm start (T₀)
}

func newWarmStart(m int, tau []float64, horizon int, delta float64) *warmStart {
	return &warmStart{logTerm: 2 * math.Log(2*float64(horizon)/delta), tau: tau,
		nC: make([]int, m), sC: make([]float64, m), doneC: make([]bool, m), dC: make([]float64, m)}
}

// observe records a feedback of the safe action (costs may be nil).
func (w *warmStart) observe(hasReward bool, reward float64, costs []float64) {
	if hasReward && !w.doneR {
		w.nR++
		w.sR += reward
		r := w.sR / float64(w.nR)
		if r+3*math.Sqrt(w.logTerm/float64(w.nR)) <= 1 { // Alg. 5 line 5
			w.doneR, w.dR = true, 1-r
		}
	}
	for i, c := range costs {
		if w.doneC[i] {
			continue
		}
		w.nC[i]++
		w.sC[i] += c
		m := w.sC[i] / float64(w.nC[i])
		if m+3*math.Sqrt(w.logTerm/float64(w.nC[i])) <= w.tau[i] { // Alg. 5 line 4
			w.doneC[i], w.dC[i] = true, w.tau[i]-m
		}
	}
}

// done is Alg. 5 line 6.
func (w *warmStart) done() bool {
	if !w.doneR {
		return false
	}
	for _, d := range w.doneC {
		if !d {
			return false
		}
	}
	return true
}

// T0 is the number of rounds spent in the warm start so far.
func (w *warmStart) T0() int { return w.rounds }

// newSafeModel builds the linear models of Pacchiano et al. eq. (3)–(5) for an agent.
func (c *stageCommon) newSafeModel(d int, x0 []float64, delta float64) (*linear.Safe, error) {
	in := c.info
	S, L := c.st.S, c.st.L
	if !(S > 0) {
		S = 1
	}
	if !(L > 0) {
		L = 1
	}
	cfg := linear.SafeConfig{D: d, Lambda: c.lambda, Delta: delta, R: in.R, RC: in.RG, S: S, L: L,
		X0: x0, M: c.m, AlphaR: c.alphaR, AlphaC: c.alphaC}
	if c.warm == nil {
		cfg.C0 = c.st.C0
	}
	mdl, err := linear.NewSafe(cfg)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", c.name, err)
	}
	return mdl, nil
}

// LCLUCB is Pacchiano et al. Alg. 1 (Linear Constraint Linear UCB) over finite star-convex
// action sets A_t = ∪_i [x₀, x_i] (Pacchiano et al. Def. 13), with m constraints (§4.4,
// (23)) and optionally unknown r₀, c₀ (Pacchiano et al. Remark 12, App. F.1).
//
// Each round it computes, per ray [x₀, x_i], the largest scale α_i* with
// pessimistic cost Ṽ^{c(j)}_t(x₀ + α(x_i − x₀)) ≤ τ_j for every j (Pacchiano et al. eq. (7),
// (10)); with known c₀ the cost is linear in α, Ṽ^c = (1−α)c₀ + αṼ^c(x_i)
// (Pacchiano et al. eq. (18)), so α_i* is a ratio; otherwise the root of a quadratic. Since the
// optimistic reward (Pacchiano et al. eq. (9)) is convex in x, its maximum over the ray is at
// x₀ or x₀ + α_i*(x_i − x₀) (Pacchiano et al. Lemma 14). Cost per round: O(K d² m) for K rays.
type LCLUCB struct {
	*stageCommon
	model *linear.Safe
	d     int
	x0    []float64
	u     []float64
	xbest []float64
}

func newLCLUCB(cfg Config) (bandit.Agent, error) {
	const name = "lc-lucb"
	c, err := newStageCommon(name, cfg, stageOpts{warm: true})
	if err != nil {
		return nil, err
	}
	st := c.st
	if !st.StarConvex {
		return nil, fmt.Errorf("%s: the action set is not star-convex around x₀ (Info.Stage.StarConvex = false: only the listed points may be played); LC-LUCB plays points of the segments [x₀, x_i] (Pacchiano et al. Ass. 9, Def. 13): use oplb or opb for finite action sets", name)
	}
	d := cfg.Info.Domain.Dim()
	if len(st.X0) > 0 {
		d = len(st.X0)
	}
	if d < 1 {
		return nil, fmt.Errorf("%s: actions have no coordinates (dimension %d)", name, d)
	}
	x0 := st.X0
	if x0 == nil {
		x0 = make([]float64, d)
	}
	if len(x0) != d {
		return nil, fmt.Errorf("%s: x₀ has %d coordinates, actions have %d", name, len(x0), d)
	}
	a := &LCLUCB{stageCommon: c, d: d, x0: append([]float64(nil), x0...), u: make([]float64, d), xbest: make([]float64, d)}
	if a.model, err = c.newSafeModel(d, x0, c.delta); err != nil {
		return nil, err
	}
	return a, nil
}

// Decide implements bandit.Agent: lines 3–4 of Pacchiano et al. Alg. 1.
func (a *LCLUCB) Decide(r *bandit.Round) (bandit.Decision, error) {
	a.t++
	pts, err := a.points(r, a.d)
	if err != nil {
		return bandit.Decision{}, err
	}
	if a.warm != nil && !a.warm.done() {
		a.warm.rounds++
		return a.ledger.Record(r.T, bandit.Action{Arm: -1, X: a.x0}, 1), nil
	}
	best := a.alongRays(a.model, pts, a.x0, a.u, a.xbest, true, -1, 0, a.model.OptimisticReward(a.x0),
		func(u []float64, alpha float64) float64 { return a.model.RewardSeg(u).At(alpha) })
	return a.ledger.Record(r.T, bandit.Action{Arm: best, X: a.xbest}, 0), nil
}

// Observe implements bandit.Agent: line 5 of Pacchiano et al. Alg. 1, whenever the
// feedback arrives.
func (a *LCLUCB) Observe(fb bandit.Feedback) error {
	acc, costs, err := a.accept(fb)
	if err != nil {
		return err
	}
	return a.observeLinear(a.model, acc, costs, func() {
		if err := a.model.SetAlpha(a.gapAlpha(), a.alphaC); err == nil {
			a.alphaR = a.gapAlpha()
		}
	})
}

// observeLinear feeds accepted feedback to a linear model and to the warm
// start; onWarmDone runs once when the warm start ends.
func (c *stageCommon) observeLinear(mdl *linear.Safe, acc Accepted, costs []float64, onWarmDone func()) error {
	x := acc.Action.X
	if acc.HasReward {
		if err := mdl.ObserveReward(x, acc.Reward); err != nil {
			return fmt.Errorf("%s: %w", c.name, err)
		}
	}
	for j, v := range costs {
		if err := mdl.ObserveCost(j, x, v); err != nil {
			return fmt.Errorf("%s: %w", c.name, err)
		}
	}
	if c.warm != nil && acc.Tag == 1 && !c.warm.done() {
		c.warm.observe(acc.HasReward, acc.Reward, costs)
		if c.warm.done() {
			onWarmDone()
		}
	}
	return nil
}

// Model returns the agent's linear models (for tests and reports).
func (a *LCLUCB) Model() *linear.Safe { return a.model }

func init() {
	Register(Spec{
		Name:    "lc-lucb",
		Can:     Caps{Domains: []string{DomainContextual}, Kinds: []bandit.ConstraintKind{KindPerRound}, NeedsConstraints: true, NeedsSafe: true, NeedsStage: true, Pending: PendingObserved},
		Summary: "LC-LUCB: optimistic reward, pessimistic cost over star-convex action sets (stage-wise constraint w.h.p.)",
		Source:  "Pacchiano et al. Alg. 1, §4.1, Prop. 11, Lemma 14, Thm. 19; §4.4 (m constraints); Remark 12, App. F.1 (unknown r₀, c₀)",
		Params:  stageParams,
		New:     newLCLUCB,
	})
}
