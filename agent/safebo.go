package agent

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sort"

	"github.com/cbandit/cbandit/bandit"
	"github.com/cbandit/cbandit/domain"
	"github.com/cbandit/cbandit/estimator"
	"github.com/cbandit/cbandit/gp"
	"github.com/cbandit/cbandit/maximise"
	"github.com/cbandit/cbandit/model"
)

// The settings of the safe-BO baselines' β_t (Chowdhury & Gopalan 2017
// with the noise correction R/√λ when λ < 1) and λ.
var (
	safeAlpha  = failureDoc("alpha", "failure probability in β_t (R/√λ when λ < 1)", "Chowdhury & Gopalan 2017; 0.05 our choice")
	safeScale  = multiplierDoc("beta-scale", "multiplier on β_t", "1: Chowdhury & Gopalan 2017's β_t")
	safeLambda = lambdaAs("GP likelihood noise variance λ", "the problem's GP prior")
)

// safeParams are sgp-ucb's; safeChoiceParams those of SafeOpt and StageOpt,
// whose β_t applies with safe-set=lipschitz only.
var (
	safeParams       = []bandit.Param{safeAlpha, safeScale, safeLambda}
	safeChoiceParams = []bandit.Param{whenLipschitz(safeAlpha), whenLipschitz(safeScale), safeLambda}
)

// whenLipschitz is d applying with safe-set=lipschitz only.
func whenLipschitz(d bandit.FloatParam) bandit.FloatParam {
	d.When = bandit.Is("safe-set", "lipschitz")
	return d
}

// The safe-set rule of SafeOpt and StageOpt and its constants.
var (
	safeSetDoc = bandit.ChoiceParam{Name: "safe-set", Default: "gp", Choices: []string{"gp", "lipschitz"},
		Doc: "gp: the reference implementation's GP safe set, constant β; lipschitz: the paper's rule", Source: "Sui et al. 2015; Berkenkamp et al.'s safeopt"}
	safeBetaDoc = bandit.FloatParam{Name: "beta", Default: 2, Range: bandit.Above(0), When: bandit.Is("safe-set", "gp"),
		Doc: "the constant confidence multiplier β", Source: "the reference implementation's default"}
	lipschitzParam = bandit.FloatParam{Name: "L", Computed: "the problem's LipG, else G", Range: bandit.Above(0), When: bandit.Is("safe-set", "lipschitz"),
		Doc: "Lipschitz constant of g in the kernel metric", Source: "Zhou & Ji (CBO) Ass. 3: G bounds it"}
	safeSetParams = []bandit.Param{safeSetDoc, safeBetaDoc, lipschitzParam}
)

// safeCore is the machinery of the safe-BO baselines (Sui et al. 2015,
// 2018; Amani et al. 2020): GP models of f and g_j, confidence intervals
// l ≤ · ≤ u that only shrink (C_t = C_{t−1} ∩ Q_t, Sui et al. 2015 §3), the
// known safe seed, and the safe set S_t. The constraint is g_j(x) ≤ 0, i.e.
// the safety function of those papers is −g_j with threshold 0.
type safeCore struct {
	name   string
	info   bandit.Info
	rng    *rand.Rand
	f      model.Model
	g      []model.Model
	betaF  estimator.Beta
	betaG  estimator.Beta
	ledger *Ledger
	n      int
	seed   int
	// intervals (intersected over rounds)
	lf, uf []float64
	lg, ug [][]float64
	safe   []bool
	// Lipschitz rule (SafeOpt, StageOpt); dist is the n×n kernel metric.
	L    float64
	dist []float64
	buf  []float64
	// GP rule (safe-set=gp): constant β, noise variance, each model's prior
	// standard deviation (the reference implementation's "scaling"), and a
	// covariance column.
	gpRule bool
	beta   float64
	lam    float64
	scale  []float64
	col    []float64
	// busy are the arms of pending decisions (markPending), which a
	// selection passes over while another arm qualifies
	busy map[int]bool
}

// markPending notes the arms of the pending decisions. The batch rule of
// the safe-BO baselines: the safe set comes from observed data only, as
// in Sui et al. 2015/2018 and Amani et al. 2020, so their safety guarantee
// is untouched; the selection among safe arms passes over pending ones.
func (c *safeCore) markPending() {
	clear(c.busy)
	for _, a := range c.ledger.Pending(false, MaxPending) {
		if c.busy == nil {
			c.busy = map[int]bool{}
		}
		c.busy[a.Arm] = true
	}
}

// free wraps a selection's filter to pass over pending arms.
func (c *safeCore) free(in func(i int) bool) func(i int) bool {
	return func(i int) bool { return in(i) && !c.busy[i] }
}

// safeRule is how newSafeCore builds the safe set.
type safeRule int

const (
	ruleNone      safeRule = iota // SGP-UCB: its own pessimistic set
	ruleLipschitz                 // Sui et al. 2015
	ruleChoice                    // the safe-set parameter decides (gp by default)
)

func newSafeCore(name string, cfg Config, rule safeRule) (*safeCore, error) {
	in, p := cfg.Info, cfg.Params
	if in.Safe == nil {
		return nil, fmt.Errorf("%s: the problem gives no safe seed (Info.Safe is nil); safe-BO baselines need a known safe action", name)
	}
	fin, ok := in.Domain.(*domain.Finite)
	if !ok {
		return nil, fmt.Errorf("%s: domain %s: only finite domains are supported", name, in.Domain)
	}
	if in.Safe.Arm < 0 || in.Safe.Arm >= fin.N {
		return nil, fmt.Errorf("%s: safe seed arm = %d: outside [0, %d)", name, in.Safe.Arm, fin.N)
	}
	if !(in.B > 0) || !(in.G > 0) {
		return nil, fmt.Errorf("%s: the problem must state bounds B > 0 and G > 0 (got B = %v, G = %v)", name, in.B, in.G)
	}
	alpha, err := safeAlpha.Read(name, p)
	if err != nil {
		return nil, err
	}
	scale, err := safeScale.Read(name, p)
	if err != nil {
		return nil, err
	}
	lambda, err := lambdaParam(name, p, cfg.Horizon, in.NoiseVar)
	if err != nil {
		return nil, err
	}
	f, err := model.For(in, in.Kernel, lambda)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	n := f.Len()
	c := &safeCore{
		name: name, info: in, rng: seedRand(cfg.Seed), f: f,
		// The safe baselines' certificates rest on the confidence bound, so
		// β_t carries the noise correction for λ < 1 (estimator.NoiseFactor).
		betaF:  estimator.Beta{B: in.B, R: in.R, Alpha: alpha, Scale: scale, Lambda: lambda},
		betaG:  estimator.Beta{B: in.G, R: in.RG, Alpha: alpha, Scale: scale, Lambda: lambda},
		ledger: NewLedger(in.M), n: n, seed: in.Safe.Arm,
		lf: make([]float64, n), uf: make([]float64, n),
		safe: make([]bool, n), buf: make([]float64, n),
	}
	for i := range c.lf {
		c.lf[i], c.uf[i] = math.Inf(-1), math.Inf(1)
	}
	for j := 0; j < in.M; j++ {
		g, err := model.For(in, in.ConstraintKernel(), lambda)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		c.g = append(c.g, g)
		lo, hi := make([]float64, n), make([]float64, n)
		for i := range lo {
			lo[i], hi[i] = math.Inf(-1), math.Inf(1)
		}
		c.lg, c.ug = append(c.lg, lo), append(c.ug, hi)
	}
	c.safe[c.seed] = true
	lipschitz := rule == ruleLipschitz
	if rule == ruleChoice {
		mode, err := safeSetDoc.Read(name, p)
		if err != nil {
			return nil, err
		}
		lipschitz = mode == "lipschitz"
		c.gpRule = !lipschitz
	}
	if c.gpRule {
		beta, err := safeBetaDoc.Read(name, p)
		if err != nil {
			return nil, err
		}
		c.beta, c.lam, c.col = beta, lambda, make([]float64, n)
		for _, m := range append([]model.Model{c.f}, c.g...) {
			var v float64
			for _, x := range m.Var() {
				v = math.Max(v, x)
			}
			if !(v > 0) {
				v = 1
			}
			c.scale = append(c.scale, math.Sqrt(v))
		}
		for _, g := range c.g {
			if _, ok := g.(covColumner); !ok {
				return nil, fmt.Errorf("%s: safe-set=gp needs posterior covariance columns, which the %T model does not give", name, g)
			}
		}
	}
	if lipschitz {
		defL := in.G
		if in.LipG > 0 {
			defL = in.LipG
		}
		L, err := lipschitzParam.ReadOr(name, p, defL)
		if err != nil {
			return nil, err
		}
		c.L = L
		d := kernelMetric(in, fin)
		c.dist = make([]float64, n*n)
		for a := 0; a < n; a++ {
			for b := 0; b < n; b++ {
				c.dist[a*n+b] = d(a, b)
			}
		}
	}
	return c, nil
}

// kernelMetric returns the metric d(a,b) = √(k(a,a)+k(b,b)−2k(a,b)) of the
// constraint kernel between arms a and b; ‖g‖_k ≤ G gives
// |g(a) − g(b)| ≤ G·d(a,b) (reproducing property and Cauchy–Schwarz).
func kernelMetric(in bandit.Info, fin *domain.Finite) func(a, b int) float64 {
	k := in.ConstraintKernel()
	kv := func(a, b int) float64 { return k.Eval(fin.Points[a], fin.Points[b]) }
	if pk, ok := k.(*gp.Precomputed); ok {
		kv = func(a, b int) float64 { return pk.K[a*pk.N+b] }
	}
	return func(a, b int) float64 { return math.Sqrt(math.Max(0, kv(a, a)+kv(b, b)-2*kv(a, b))) }
}

// covColumner gives posterior covariance columns (gp.ArmPosterior does).
type covColumner interface{ CovColumn(i int, dst []float64) }

// intervals sets this round's confidence intervals: under the GP rule
// Q_t = [μ ± βσ] with the constant β, recomputed every round as the
// reference implementation does; otherwise Q_t with β_t of IGP-UCB,
// intersected into the running intervals of f and every g_j (Sui et al.
// 2015, §3).
func (c *safeCore) intervals() {
	if c.gpRule {
		set := func(m model.Model, lo, hi []float64) {
			mu, v := m.Mean(), m.Var()
			for i := range lo {
				s := c.beta * math.Sqrt(v[i])
				lo[i], hi[i] = mu[i]-s, mu[i]+s
			}
		}
		set(c.f, c.lf, c.uf)
		for j, g := range c.g {
			set(g, c.lg[j], c.ug[j])
		}
		return
	}
	upd := func(m model.Model, beta float64, lo, hi []float64) {
		mu, v := m.Mean(), m.Var()
		for i := range lo {
			s := beta * math.Sqrt(v[i])
			lo[i] = math.Max(lo[i], mu[i]-s)
			hi[i] = math.Min(hi[i], mu[i]+s)
			if lo[i] > hi[i] { // the intersection emptied: keep the newest interval
				lo[i], hi[i] = mu[i]-s, mu[i]+s
			}
		}
	}
	upd(c.f, c.betaF.At(c.f.InfoGain()), c.lf, c.uf)
	for j, g := range c.g {
		upd(g, c.betaG.At(g.InfoGain()), c.lg[j], c.ug[j])
	}
}

// updateSafe recomputes the safe set: under the GP rule S_t = seed ∪ {x :
// u_j(x) < 0 ∀j} (the reference implementation's strict test on the
// pessimistic bound; the seed stays safe, where the reference starts its GP
// from a safe observation there); otherwise the Lipschitz expansion.
func (c *safeCore) updateSafe() {
	if !c.gpRule {
		c.expandLipschitz()
		return
	}
	for i := range c.safe {
		ok := true
		for j := range c.g {
			if !(c.ug[j][i] < 0) {
				ok = false
				break
			}
		}
		c.safe[i] = ok || i == c.seed
	}
}

// isExpander is the expander test of the rule in force.
func (c *safeCore) isExpander(x int) bool {
	if c.gpRule {
		return c.expanderGP(x)
	}
	return c.expander(x)
}

// expanderGP reports whether observing every g_j at its lower bound l_j(x)
// would make some point outside the safe set pass u_j < 0, for each j — the
// reference implementation's expander test, with the hypothetical posterior
// in closed form: for y = μ(x) − βσ(x) and d = σ²(x) + λ,
// μ'(z) = μ(z) − Σ(z,x)·βσ(x)/d and σ'²(z) = σ²(z) − Σ(z,x)²/d.
// O(N·|S_obs|) per constraint.
func (c *safeCore) expanderGP(x int) bool {
	for _, g := range c.g {
		g.(covColumner).CovColumn(x, c.col)
		mu, v := g.Mean(), g.Var()
		sx := math.Sqrt(v[x])
		d := v[x] + c.lam
		found := false
		for z := 0; z < c.n && !found; z++ {
			if c.safe[z] {
				continue
			}
			m2 := mu[z] - c.col[z]*c.beta*sx/d
			v2 := math.Max(0, v[z]-c.col[z]*c.col[z]/d)
			found = m2+c.beta*math.Sqrt(v2) <= 0
		}
		if !found {
			return false
		}
	}
	return true
}

// scaledWidth is max(w_f/s_f, max_j w_j/s_j), the widths divided by each
// model's prior standard deviation (the reference implementation's
// acquisition; without the GP rule the scales are 1).
func (c *safeCore) scaledWidth(i int) float64 {
	sf := 1.0
	if c.scale != nil {
		sf = c.scale[0]
	}
	w := (c.uf[i] - c.lf[i]) / sf
	for j := range c.g {
		sg := 1.0
		if c.scale != nil {
			sg = c.scale[j+1]
		}
		w = math.Max(w, (c.ug[j][i]-c.lg[j][i])/sg)
	}
	return w
}

// firstExpander returns, among the safe points with in(i), the one with the
// largest score that is an expander (−1 if none): points are tried in
// decreasing score, as the reference implementation does, so at most a few
// expander tests run per round.
func (c *safeCore) firstExpander(in func(i int) bool, score func(i int) float64) int {
	if len(c.busy) > 0 {
		if i := c.firstExpanderOf(c.free(in), score); i >= 0 {
			return i
		}
	}
	return c.firstExpanderOf(in, score)
}

func (c *safeCore) firstExpanderOf(in func(i int) bool, score func(i int) float64) int {
	var cand []int
	for i := 0; i < c.n; i++ {
		if c.safe[i] && in(i) {
			cand = append(cand, i)
		}
	}
	sort.SliceStable(cand, func(a, b int) bool { return score(cand[a]) > score(cand[b]) })
	for _, i := range cand {
		if c.isExpander(i) {
			return i
		}
	}
	return -1
}

// expandLipschitz grows the safe set by the rule of Sui et al. 2015 (eq. 3):
// x' is safe when some safe x has u_j(x) + L·d(x,x') ≤ 0 for every j.
// O(|S|·|Sᶜ|·m) per call.
func (c *safeCore) expandLipschitz() {
	n := c.n
	for xp := 0; xp < n; xp++ {
		if c.safe[xp] {
			continue
		}
		for x := 0; x < n; x++ {
			if !c.safe[x] {
				continue
			}
			ok := true
			for j := range c.g {
				if c.ug[j][x]+c.L*c.dist[x*n+xp] > 0 {
					ok = false
					break
				}
			}
			if ok {
				c.safe[xp] = true
				break
			}
		}
	}
}

// expander reports whether safe x could certify some unsafe x' if g_j(x)
// were at its lower bound (Sui et al. 2015, eq. 5: e_t(x) > 0).
func (c *safeCore) expander(x int) bool {
	n := c.n
	for xp := 0; xp < n; xp++ {
		if c.safe[xp] {
			continue
		}
		ok := true
		for j := range c.g {
			if c.lg[j][x]+c.L*c.dist[x*n+xp] > 0 {
				ok = false
				break
			}
		}
		if ok {
			return true
		}
	}
	return false
}

// widthG is max_j u_j − l_j at x.
func (c *safeCore) widthG(x int) float64 {
	w := 0.0
	for j := range c.g {
		w = math.Max(w, c.ug[j][x]-c.lg[j][x])
	}
	return w
}

// argmaxOver returns the index maximising score over the arms with in[i],
// ties uniformly at random (maximise.ArgMaxOf); −1 when none. Arms of
// pending decisions compete only when no other arm is in.
func (c *safeCore) argmaxOver(in func(i int) bool, score func(i int) float64) int {
	if len(c.busy) > 0 {
		if i := maximise.ArgMaxOf(c.rng, c.n, c.free(in), score); i >= 0 {
			return i
		}
	}
	return maximise.ArgMaxOf(c.rng, c.n, in, score)
}

func (c *safeCore) record(t, arm int) bandit.Decision {
	return c.ledger.Record(t, c.f.Action(arm), 0)
}

// Observe implements bandit.Agent for every safe-BO baseline.
func (c *safeCore) Observe(fb bandit.Feedback) error {
	acc, err := c.ledger.Accept(fb)
	if err != nil {
		return fmt.Errorf("%s: %w", c.name, err)
	}
	if err := ObserveModels(acc, c.f, c.g); err != nil {
		return fmt.Errorf("%s: %w", c.name, err)
	}
	return nil
}

// SafeSet returns a copy of the current safe set (for tests and reports).
func (c *safeCore) SafeSet() []bool { return append([]bool(nil), c.safe...) }
