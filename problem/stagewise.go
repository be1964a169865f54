package problem

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/cbandit/cbandit/bandit"
	"github.com/cbandit/cbandit/domain"
	"github.com/cbandit/cbandit/internal/seed"
	"github.com/cbandit/cbandit/linear"
)

// The stage-wise constrained problems of Pacchiano et al. §4.5 and §5.4. They report the
// constraint values g_i = c_i − τ_i, so the runner's violation_count counts the
// rounds whose played action (LC-LUCB, Safe-LTS) or policy (OPB, OPLB) has
// true expected cost above τ; StageCost reports E[c_1] for the "cost" metric.

func init() {
	Register(Spec{
		Name:    "star-convex-shifts",
		Summary: "linear bandit on the star-convex set of the d cyclic shifts of v/‖v‖, v = (0..d−1); x₀ = 0",
		Source:  "Pacchiano et al. §4.5 (Fig. 1), App. B (Figs. 5–7)",
		Params:  shiftsParams,
		New:     newShifts,
	})
	Register(Spec{
		Name:    "unit-ball",
		Summary: "linear bandit on rays to random points of the unit sphere; θ*, μ* uniform on the sphere, τ ~ U[0,1]; x₀ = 0",
		Source:  "Pacchiano et al. §4.5 (Fig. 2)",
		Params:  unitBallParams,
		New:     newUnitBall,
	})
	Register(Spec{
		Name:    "random-mab",
		Summary: "K-armed Bernoulli bandit with random means; safe arm 1 with reward = cost = 0",
		Source:  "Pacchiano et al. §5.4 (Fig. 3)",
		Params:  randomMABParams,
		New:     newRandomMAB,
	})
	Register(Spec{
		Name:    "bernoulli-4arm",
		Summary: "4-armed Bernoulli bandit r̄ = (0.1, 0.2, 0.4, 0.7), c̄ = (0, 0.4, 0.5, 0.2); safe arm 1",
		Source:  "Pacchiano et al. §5.4 (Fig. 4), App. H (Fig. 8)",
		Params:  fourArmParams,
		New:     newFourArm,
	})
}

// The settings of the stage-wise problems of Pacchiano et al. A threshold
// τ is any number here: one at or below the safe action's cost is refused
// with the reason (no safe margin, Ass. 5).
var (
	noiseDoc = bandit.FloatParam{Name: "noise", Default: 0.1, Range: bandit.AtLeast(0),
		Doc: "std of the Gaussian reward and cost noise (sub-Gaussian R of Ass. 1)", Source: "Pacchiano et al. §4.5 does not state it: our choice"}
	knownDoc = bandit.BoolParam{Name: "known", Default: true,
		Doc: "disclose r₀ and c₀ of the safe action (Ass. 5); false exercises the warm start", Source: "Pacchiano et al. Remark 12, App. F.1"}

	shiftsD   = bandit.IntParam{Name: "d", Default: 10, Range: bandit.AtLeast(2), Doc: "dimension", Source: "Pacchiano et al. Fig. 1: 10; App. B: 3, 5, 10"}
	shiftsTau = bandit.FloatParam{Name: "tau", Default: 0.5, Doc: "threshold τ", Source: "Pacchiano et al. Fig. 1: 0.2, 0.5, 0.8"}

	ballD        = bandit.IntParam{Name: "d", Default: 5, Range: bandit.AtLeast(2), Doc: "dimension", Source: "Pacchiano et al. Fig. 2: 5 and 10"}
	ballRays     = bandit.IntParam{Name: "rays", Default: 100, Range: bandit.AtLeast(1), Doc: "number of random rays approximating the ball", Source: "Pacchiano et al. §4.5: 100"}
	ballTau      = bandit.FloatParam{Name: "tau", Computed: "U[0,1] per instance", Doc: "threshold τ of every constraint; a number fixes it", Source: "Pacchiano et al. §4.5 draws τ ~ U[0,1] per instance"}
	ballM        = bandit.IntParam{Name: "m", Default: 1, Range: bandit.AtLeast(1), Doc: "number of constraints (μ*⁽ⁱ⁾ uniform on the sphere, τ_i ~ U[0,1])", Source: "Pacchiano et al. §4.4"}
	ballResample = bandit.BoolParam{Name: "resample", Default: false, Doc: "draw new rays every round (contextual action sets A_t)",
		Source: "Pacchiano et al. §4.5 is ambiguous: our default keeps one set per instance"}

	mabK   = bandit.IntParam{Name: "k", Default: 5, Range: bandit.AtLeast(2), Doc: "number of arms K (the safe arm and another at least)", Source: "Pacchiano et al. §5.2; Fig. 3: 5, 10, 20"}
	mabTau = bandit.FloatParam{Name: "tau", Default: 0.5, Doc: "threshold τ > 0", Source: "Pacchiano et al. Fig. 3: 0.2, 0.5, 0.8"}
	mabM   = bandit.IntParam{Name: "m", Default: 1, Range: bandit.AtLeast(1), Doc: "number of cost signals; the same τ for each", Source: "Pacchiano et al. App. D.4"}

	fourTau   = bandit.FloatParam{Name: "tau", Default: 0.8, Doc: "threshold τ", Source: "Pacchiano et al. Fig. 4: 0.8 and 0.2; Fig. 8: 0.5 and 0.6"}
	fourClass = bandit.IntParam{Name: "class", Default: 0, Range: bandit.AtLeast(0),
		Doc: "size of finite function classes G_r, G_c for OPNLB: the true means plus class−1 random alternatives with the same safe-arm values; 0 gives none", Source: "Pacchiano et al. §5.3"}
)

var (
	shiftsParams    = []bandit.Param{shiftsD, shiftsTau, noiseDoc, knownDoc}
	unitBallParams  = []bandit.Param{ballD, ballRays, ballTau, ballM, ballResample, noiseDoc, knownDoc}
	randomMABParams = []bandit.Param{mabK, mabTau, mabM, knownDoc}
	fourArmParams   = []bandit.Param{fourTau, fourClass, knownDoc}
)

// linStage is a linear bandit over a finite star-convex set around x₀ = 0
// (Pacchiano et al. §2, Def. 13): A_t = ∪_i [0, x_i].
type linStage struct {
	info     bandit.Info
	d        int
	theta    []float64
	mu       [][]float64
	tau      []float64
	rays     [][]float64 // fixed endpoints (nil when resampled per round)
	resample bool
	nrays    int
	noise    float64
	opt      float64 // optimum of the fixed rays
}

func unit(v []float64) []float64 {
	var n float64
	for _, x := range v {
		n += x * x
	}
	n = math.Sqrt(n)
	out := make([]float64, len(v))
	for i := range v {
		out[i] = v[i] / n
	}
	return out
}

func sphere(rng *rand.Rand, d int) []float64 {
	v := make([]float64, d)
	for i := range v {
		v[i] = rng.NormFloat64()
	}
	return unit(v)
}

func dotp(a, b []float64) float64 {
	var s float64
	for i := range a {
		s += a[i] * b[i]
	}
	return s
}

func newLinStage(owner string, d int, theta []float64, mu [][]float64, tau []float64, rays [][]float64, resample bool, noise float64, known bool) (*linStage, error) {
	m := len(mu)
	for i, t := range tau {
		if !(t > 0) || math.IsInf(t, 0) {
			return nil, fmt.Errorf("%s: tau_%d = %v ≤ c₀ = 0: no safe margin (Pacchiano et al. Ass. 5 requires c₀ < τ; x₀ = 0 costs 0)", owner, i+1, t)
		}
	}
	dom, err := domain.NewFinite(rays)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", owner, err)
	}
	p := &linStage{d: d, theta: theta, mu: mu, tau: tau, resample: resample, nrays: len(rays), noise: noise}
	if !resample {
		p.rays = rays
		p.opt = p.optimum(rays)
	}
	st := &bandit.Stage{Tau: tau, X0: make([]float64, d), SafeArm: -1, Known: known, S: 1, L: 1, StarConvex: true}
	if known {
		st.C0 = make([]float64, m)
	}
	p.info = bandit.Info{Domain: dom, M: m, B: 1, G: 1, R: noise, RG: noise,
		Safe: &bandit.Action{Arm: -1, X: make([]float64, d)}, Stage: st}
	return p, nil
}

func newShifts(ps bandit.Params, _ uint64) (Problem, error) {
	const owner = "star-convex-shifts"
	d, err := shiftsD.Read(owner, ps)
	if err != nil {
		return nil, err
	}
	tau, err := shiftsTau.Read(owner, ps)
	if err != nil {
		return nil, err
	}
	noise, err := noiseDoc.Read(owner, ps)
	if err != nil {
		return nil, err
	}
	known, err := knownDoc.Read(owner, ps)
	if err != nil {
		return nil, err
	}
	v := make([]float64, d)
	flip := make([]float64, d)
	for i := range v {
		v[i] = float64(i)
		flip[i] = float64(d - 1 - i)
	}
	nv := math.Sqrt(dotp(v, v))
	theta := unit(v)
	mu := make([]float64, d)
	for i := range mu {
		mu[i] = flip[i] / nv
	}
	u := unit(v)
	rays := make([][]float64, d)
	for k := 0; k < d; k++ {
		r := make([]float64, d)
		for i := range r {
			r[i] = u[(i+k)%d]
		}
		rays[k] = r
	}
	return newLinStage(owner, d, theta, [][]float64{mu}, []float64{tau}, rays, false, noise, known)
}

func newUnitBall(ps bandit.Params, s uint64) (Problem, error) {
	const owner = "unit-ball"
	d, err := ballD.Read(owner, ps)
	if err != nil {
		return nil, err
	}
	nr, err := ballRays.Read(owner, ps)
	if err != nil {
		return nil, err
	}
	m, err := ballM.Read(owner, ps)
	if err != nil {
		return nil, err
	}
	noise, err := noiseDoc.Read(owner, ps)
	if err != nil {
		return nil, err
	}
	known, err := knownDoc.Read(owner, ps)
	if err != nil {
		return nil, err
	}
	resample, err := ballResample.Read(owner, ps)
	if err != nil {
		return nil, err
	}
	rng := seed.Rand(seed.Derive(s, "unit-ball"))
	theta := sphere(rng, d)
	mu := make([][]float64, m)
	tau := make([]float64, m)
	for i := range mu {
		mu[i] = sphere(rng, d)
		tau[i] = rng.Float64()
	}
	if _, set := ps.Given(ballTau); set {
		t, err := ballTau.ReadOr(owner, ps, 0)
		if err != nil {
			return nil, err
		}
		for i := range tau {
			tau[i] = t
		}
	}
	rays := make([][]float64, nr)
	for i := range rays {
		rays[i] = sphere(rng, d)
	}
	return newLinStage(owner, d, theta, mu, tau, rays, resample, noise, known)
}

// Info implements Problem.
func (p *linStage) Info() bandit.Info { return p.info }

// Round implements Problem: a new set of rays when resampled.
func (p *linStage) Round(rng *rand.Rand, t int) *bandit.Round {
	if !p.resample {
		return &bandit.Round{T: t}
	}
	rays := make([][]float64, p.nrays)
	for i := range rays {
		rays[i] = sphere(rng, p.d)
	}
	return &bandit.Round{T: t, Arms: rays}
}

func (p *linStage) endpoints(r *bandit.Round) [][]float64 {
	if r != nil && r.Arms != nil {
		return r.Arms
	}
	return p.rays
}

// optimum is the best feasible action of the star set: on ray [0, x] reward
// and costs are linear in the scale, so the best point is 0 or the largest
// feasible scale min_i τ_i/⟨x, μ_i⟩ (capped at 1).
func (p *linStage) optimum(rays [][]float64) float64 {
	best := 0.0
	for _, x := range rays {
		r := dotp(x, p.theta)
		if r <= 0 {
			continue
		}
		a := 1.0
		for i, mu := range p.mu {
			if c := dotp(x, mu); c > p.tau[i] {
				a = math.Min(a, p.tau[i]/c)
			}
		}
		best = math.Max(best, a*r)
	}
	return best
}

// point returns the coordinates of a and checks that it lies in the star set.
func (p *linStage) point(r *bandit.Round, a bandit.Action) ([]float64, error) {
	eps := p.endpoints(r)
	x := a.X
	if x == nil {
		if a.Arm < 0 || a.Arm >= len(eps) {
			return nil, fmt.Errorf("action arm = %d: outside [0, %d) and no coordinates given", a.Arm, len(eps))
		}
		return eps[a.Arm], nil
	}
	if len(x) != p.d {
		return nil, fmt.Errorf("action x has %d coordinates, want d = %d", len(x), p.d)
	}
	onRay := func(e []float64) bool {
		// x = α e with α ∈ [0, 1]
		ee := dotp(e, e)
		al := dotp(x, e) / ee
		if al < -1e-9 || al > 1+1e-9 {
			return false
		}
		for i := range x {
			if math.Abs(x[i]-al*e[i]) > 1e-9 {
				return false
			}
		}
		return true
	}
	zero := true
	for _, v := range x {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("action x = %v: coordinates must be finite", x)
		}
		if v != 0 {
			zero = false
		}
	}
	if zero {
		return x, nil
	}
	if a.Arm >= 0 && a.Arm < len(eps) && onRay(eps[a.Arm]) {
		return x, nil
	}
	for _, e := range eps {
		if onRay(e) {
			return x, nil
		}
	}
	return nil, fmt.Errorf("action x = %v is not in the star-convex action set (not on any segment [x₀, x_i])", x)
}

// Truth implements Problem.
func (p *linStage) Truth(r *bandit.Round, a bandit.Action, costs []float64) (float64, error) {
	x, err := p.point(r, a)
	if err != nil {
		return 0, err
	}
	for i, mu := range p.mu {
		costs[i] = dotp(x, mu) - p.tau[i]
	}
	return dotp(x, p.theta), nil
}

// Observe implements Problem.
func (p *linStage) Observe(rng *rand.Rand, r *bandit.Round, a bandit.Action, costs []float64) (float64, error) {
	f, err := p.Truth(r, a, costs)
	if err != nil {
		return 0, err
	}
	for i := range costs {
		costs[i] += p.noise * rng.NormFloat64()
	}
	return f + p.noise*rng.NormFloat64(), nil
}

// Optimum implements Problem.
func (p *linStage) Optimum(r *bandit.Round) float64 {
	if r != nil && r.Arms != nil {
		return p.optimum(r.Arms)
	}
	return p.opt
}

// StageCost reports ⟨X_t, μ*⟩ of the first constraint, or E_{π_t}⟨X, μ*⟩ for a policy.
func (p *linStage) StageCost(r *bandit.Round, d bandit.Decision) (float64, error) {
	if d.Policy != nil {
		eps := p.endpoints(r)
		if len(d.Policy) != len(eps) {
			return 0, fmt.Errorf("policy has %d entries for %d actions", len(d.Policy), len(eps))
		}
		var c float64
		for i, w := range d.Policy {
			c += w * dotp(eps[i], p.mu[0])
		}
		return c, nil
	}
	x, err := p.point(r, d.Action)
	if err != nil {
		return 0, err
	}
	return dotp(x, p.mu[0]), nil
}

// Means returns θ*, μ*⁽¹⁾ and τ (for tests and reports).
func (p *linStage) Means() ([]float64, []float64, []float64) { return p.theta, p.mu[0], p.tau }

// mabStage is a K-armed Bernoulli bandit with stage-wise constraints in
// expectation (Pacchiano et al. §5.2), safe arm 0 (the paper's arm 1).
type mabStage struct {
	info bandit.Info
	r    []float64
	c    [][]float64
	tau  []float64
	opt  float64
}

func newMAB(owner string, r []float64, c [][]float64, tau []float64, known bool, class int, s uint64) (*mabStage, error) {
	k := len(r)
	if k < 2 {
		return nil, fmt.Errorf("%s: K = %d arms: need at least 2 (the safe arm and another, Pacchiano et al. §5.2)", owner, k)
	}
	for i := range tau {
		if !(tau[i] > c[i][0]) || math.IsInf(tau[i], 0) {
			return nil, fmt.Errorf("%s: tau = %v ≤ c̄₁ = %v (the safe arm's cost): no safe margin (Pacchiano et al. §5.2 requires c̄₁ < τ)", owner, tau[i], c[i][0])
		}
	}
	dom, err := domain.Arms(k)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", owner, err)
	}
	p := &mabStage{r: r, c: c, tau: tau}
	pi := make([]float64, k)
	if p.opt, err = linear.SolveLP(r, c, tau, 0, pi); err != nil {
		return nil, fmt.Errorf("%s: optimal policy: %w", owner, err)
	}
	st := &bandit.Stage{Tau: tau, SafeArm: 0, Known: known, S: math.Sqrt(float64(k)), L: 1}
	if known {
		st.R0 = r[0]
		st.C0 = make([]float64, len(c))
		for i := range c {
			st.C0[i] = c[i][0]
		}
	}
	if class > 0 {
		if len(c) != 1 {
			return nil, bandit.ParamErrorf(owner, "class", "needs one constraint (Pacchiano et al. §5.3)")
		}
		rng := seed.Rand(seed.Derive(s, "class"))
		at := rng.IntN(class)
		for j := 0; j < class; j++ {
			if j == at {
				st.RewardClass = append(st.RewardClass, append([]float64(nil), r...))
				st.CostClass = append(st.CostClass, append([]float64(nil), c[0]...))
				continue
			}
			fr, fc := make([]float64, k), make([]float64, k)
			fr[0], fc[0] = r[0], c[0][0]
			for a := 1; a < k; a++ {
				fr[a], fc[a] = rng.Float64(), rng.Float64()
			}
			st.RewardClass = append(st.RewardClass, fr)
			st.CostClass = append(st.CostClass, fc)
		}
	}
	p.info = bandit.Info{Domain: dom, M: len(c), B: 1, G: 1, R: 0.5, RG: 0.5,
		Safe: &bandit.Action{Arm: 0}, Stage: st}
	return p, nil
}

func newRandomMAB(ps bandit.Params, s uint64) (Problem, error) {
	const owner = "random-mab"
	k, err := mabK.Read(owner, ps)
	if err != nil {
		return nil, err
	}
	tau, err := mabTau.Read(owner, ps)
	if err != nil {
		return nil, err
	}
	m, err := mabM.Read(owner, ps)
	if err != nil {
		return nil, err
	}
	known, err := knownDoc.Read(owner, ps)
	if err != nil {
		return nil, err
	}
	rng := seed.Rand(seed.Derive(s, "random-mab"))
	r := make([]float64, k)
	c := make([][]float64, m)
	for i := range c {
		c[i] = make([]float64, k)
	}
	for a := 1; a < k; a++ {
		r[a] = rng.Float64()
		for i := range c {
			c[i][a] = rng.Float64()
		}
	}
	taus := make([]float64, m)
	for i := range taus {
		taus[i] = tau
	}
	return newMAB(owner, r, c, taus, known, 0, s)
}

func newFourArm(ps bandit.Params, s uint64) (Problem, error) {
	const owner = "bernoulli-4arm"
	tau, err := fourTau.Read(owner, ps)
	if err != nil {
		return nil, err
	}
	known, err := knownDoc.Read(owner, ps)
	if err != nil {
		return nil, err
	}
	class, err := fourClass.Read(owner, ps)
	if err != nil {
		return nil, err
	}
	return newMAB(owner, []float64{0.1, 0.2, 0.4, 0.7}, [][]float64{{0, 0.4, 0.5, 0.2}}, []float64{tau}, known, class, s)
}

// Info implements Problem.
func (p *mabStage) Info() bandit.Info { return p.info }

// Round implements Problem.
func (p *mabStage) Round(_ *rand.Rand, t int) *bandit.Round { return &bandit.Round{T: t} }

func (p *mabStage) arm(a bandit.Action) (int, error) {
	if a.Arm < 0 || a.Arm >= len(p.r) {
		return 0, fmt.Errorf("action arm = %d: outside [0, %d)", a.Arm, len(p.r))
	}
	return a.Arm, nil
}

// Truth implements Problem.
func (p *mabStage) Truth(_ *bandit.Round, a bandit.Action, costs []float64) (float64, error) {
	i, err := p.arm(a)
	if err != nil {
		return 0, err
	}
	for j := range p.c {
		costs[j] = p.c[j][i] - p.tau[j]
	}
	return p.r[i], nil
}

func bernoulli(rng *rand.Rand, q float64) float64 {
	if rng.Float64() < q {
		return 1
	}
	return 0
}

// Observe implements Problem: Bernoulli reward and costs (Pacchiano et al. §5.4).
func (p *mabStage) Observe(rng *rand.Rand, _ *bandit.Round, a bandit.Action, costs []float64) (float64, error) {
	i, err := p.arm(a)
	if err != nil {
		return 0, err
	}
	rew := bernoulli(rng, p.r[i])
	for j := range p.c {
		costs[j] = bernoulli(rng, p.c[j][i]) - p.tau[j]
	}
	return rew, nil
}

// Optimum implements Problem: the value of the best feasible policy, the LP
// (37) with the true means.
func (p *mabStage) Optimum(_ *bandit.Round) float64 { return p.opt }

// StageCost reports E_{π_t}[c̄⁽¹⁾] (or c̄⁽¹⁾ of the played arm without a policy).
func (p *mabStage) StageCost(_ *bandit.Round, d bandit.Decision) (float64, error) {
	if d.Policy != nil {
		if len(d.Policy) != len(p.r) {
			return 0, fmt.Errorf("policy has %d entries for %d arms", len(d.Policy), len(p.r))
		}
		var c float64
		for a, w := range d.Policy {
			c += w * p.c[0][a]
		}
		return c, nil
	}
	i, err := p.arm(d.Action)
	if err != nil {
		return 0, err
	}
	return p.c[0][i], nil
}

// Means returns r̄, c̄⁽¹⁾ and τ (for tests and reports).
func (p *mabStage) Means() ([]float64, []float64, []float64) { return p.r, p.c[0], p.tau }
