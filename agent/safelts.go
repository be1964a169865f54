package agent

import (
	"fmt"
	"math"

	"github.com/cbandit/cbandit/bandit"
	"github.com/cbandit/cbandit/linear"
)

// SafeLTS is the Safe-LTS baseline of Pacchiano et al. §4.5: linear Thompson sampling
// restricted to the estimated safe set (Moradipari, Amani, Alizadeh and
// Thrampoulidis 2019, "Safe linear Thompson sampling with side information",
// Alg. 1), with the choices of the code Pacchiano et al. ran it with
// (pacchiano/constrainedBandits, utilities_linear.py, class LinTS; read, not
// copied). Each round t it
//
//  1. samples θ̃_t ~ N(θ̂_t, d·ρ_t²·Σ_t⁻¹), i.e. θ̃_t = θ̂_t + √d ρ_t Σ_t^{-1/2} η_t
//     with η_t ~ N(0, I_d), where ρ_t = κ·R√(d log((1 + tL²/λ)/δ_t)) + √λ S
//     inflates only the noise part of the radius by κ = 1/min(1, τ − c₀)
//     (their 1/min(1, τ) for x₀ = 0) and δ_t = 1/(1+t) (their
//     `delta = 1/(1+len(self.regrets))`);
//  2. builds the estimated safe set D^s_t = {x : ⟨x, μ̂_t⟩ + β_t(δ_t)‖x‖_{Σ_t⁻¹} ≤ τ}
//     (the pessimistic cost of Pacchiano et al. eq. (10) with α_c = 1, the same δ_t);
//  3. plays argmax_{x ∈ A_t ∩ D^s_t} ⟨x, θ̃_t⟩: over a star-convex set each
//     ray is scaled to its safe length min(1, τ/UCB) as in their
//     `scale_context_to_safety` (Pacchiano et al. Lemma 14 in general); over a finite set,
//     the safe points and x₀.
//
// Departures from their code, kept on purpose (also in
// experiments/stagewise/shifts.yaml and unit-ball.yaml): the radius is the
// bound of Pacchiano et al. Thm. 10, R√(d log((1+tL²/λ)/δ)) + √λS, shared with LC-LUCB,
// not the log-det form 2·√(2 log(det(V)^{1/2}λ^{-d/2}/δ)) + √λ‖θ*‖ (their R is
// a hard-coded 2.0 and their S the true norm, for both algorithms); λ = 1 as
// Pacchiano et al. §4.5 states (their scripts use 0.1); x₀ is a candidate (their argmax
// over rays never plays the safe action); no first round of a random ray
// scaled with the true costs. The previous version (κ = 1 + 2/(τ − c₀) on the
// whole radius, δ′ = δ/(4T), no √d) is close to
// `kappa=…;delta-schedule=fixed;sqrt-d=false`, except that κ now leaves the
// √λS term of the radius uninflated.
type SafeLTS struct {
	*stageCommon
	model *linear.Safe
	d     int
	x0    []float64
	kappa float64
	star  bool
	chol  []float64
	z, th []float64
	u, xb []float64
	fixed bool
	sqrtD float64
}

// The settings of Safe-LTS as Pacchiano et al. ran it (constrainedBandits).
var (
	ltsSchedule = bandit.ChoiceParam{Name: "delta-schedule", Default: "authors", Choices: []string{"authors", "fixed"},
		Doc: "authors: δ_t = 1/(1+t), as Pacchiano et al. ran it; fixed: δ′ = δ/(4T)", Source: "constrainedBandits; Moradipari et al. 2019"}
	ltsKappa = bandit.FloatParam{Name: "kappa", Computed: "1/min(1, τ − c₀)", Range: bandit.Above(0),
		Doc: "inflation of the noise part of the TS radius", Source: "constrainedBandits LinTS: 1/min(1, τ)"}
	ltsSqrtD = bandit.BoolParam{Name: "sqrt-d", Default: true,
		Doc: "sample with covariance d·ρ_t²Σ_t⁻¹ instead of ρ_t²Σ_t⁻¹", Source: "constrainedBandits LinTS"}
	safeLTSParams = []bandit.Param{
		bandit.FloatParam{Name: "delta", Default: stageDelta.Default, Range: stageDelta.Range, When: bandit.Is("delta-schedule", "fixed"),
			Doc: "failure probability δ, δ′ = δ/(4T)", Source: "Moradipari et al. 2019; 0.05 our choice"},
		ltsSchedule,
		bandit.FloatParam{Name: "lambda", Default: stageLambda.Default, Range: stageLambda.Range,
			Doc: "regulariser λ; the authors' scripts use 0.1", Source: "Pacchiano et al. §4.5: λ = 1 for both algorithms"},
		ltsKappa, ltsSqrtD,
	}
)

func newSafeLTS(cfg Config) (bandit.Agent, error) {
	const name = "safe-lts"
	c, err := newStageCommon(name, cfg, stageOpts{})
	if err != nil {
		return nil, err
	}
	st := c.st
	d := cfg.Info.Domain.Dim()
	if len(st.X0) > 0 {
		d = len(st.X0)
	}
	if d < 1 {
		return nil, fmt.Errorf("%s: actions have no coordinates (dimension %d); Safe-LTS is a linear bandit algorithm", name, d)
	}
	x0 := st.X0
	if x0 == nil {
		x0 = make([]float64, d)
	}
	gap := math.Inf(1)
	for i := range c.tau {
		gap = math.Min(gap, c.tau[i]-st.C0[i])
	}
	a := &SafeLTS{stageCommon: c, d: d, x0: append([]float64(nil), x0...), star: st.StarConvex,
		chol: make([]float64, d*d), z: make([]float64, d), th: make([]float64, d),
		u: make([]float64, d), xb: make([]float64, d)}
	if a.kappa, err = ltsKappa.ReadOr(name, cfg.Params, 1/math.Min(1, gap)); err != nil {
		return nil, err
	}
	sched, err := ltsSchedule.Read(name, cfg.Params)
	if err != nil {
		return nil, err
	}
	a.fixed = sched == "fixed"
	sq, err := ltsSqrtD.Read(name, cfg.Params)
	if err != nil {
		return nil, err
	}
	a.sqrtD = 1
	if sq {
		a.sqrtD = math.Sqrt(float64(d))
	}
	c.alphaR, c.alphaC = 1, 1
	deltaP := c.delta / (4 * float64(cfg.Horizon))
	if !a.fixed {
		deltaP = 0.5 // δ_1 = 1/(1+1); Decide sets δ_t
	}
	if a.model, err = c.newSafeModel(d, a.x0, deltaP); err != nil {
		return nil, err
	}
	return a, nil
}

// cholesky writes the lower-triangular L with L Lᵀ = A (d×d, row-major) into dst.
func cholesky(a []float64, d int, dst []float64) error {
	for i := range dst {
		dst[i] = 0
	}
	for j := 0; j < d; j++ {
		s := a[j*d+j]
		for k := 0; k < j; k++ {
			s -= dst[j*d+k] * dst[j*d+k]
		}
		if !(s > 0) {
			return fmt.Errorf("matrix is not positive definite (pivot %d = %v)", j, s)
		}
		l := math.Sqrt(s)
		dst[j*d+j] = l
		for i := j + 1; i < d; i++ {
			v := a[i*d+j]
			for k := 0; k < j; k++ {
				v -= dst[i*d+k] * dst[j*d+k]
			}
			dst[i*d+j] = v / l
		}
	}
	return nil
}

// Decide implements bandit.Agent.
func (a *SafeLTS) Decide(r *bandit.Round) (bandit.Decision, error) {
	a.t++
	pts, err := a.points(r, a.d)
	if err != nil {
		return bandit.Decision{}, err
	}
	if !a.fixed {
		if err := a.model.SetDelta(1 / (1 + float64(a.t))); err != nil {
			return bandit.Decision{}, fmt.Errorf("%s: round %d: %w", a.name, r.T, err)
		}
	}
	// 1. θ̃ = θ̂ + √d ρ_t Σ^{-1/2} η, ρ_t = κ(β_t − √λS) + √λS.
	rm := a.model.Reward()
	if err := cholesky(rm.Inverse(), a.d, a.chol); err != nil {
		return bandit.Decision{}, fmt.Errorf("%s: round %d: %w", a.name, r.T, err)
	}
	for i := range a.z {
		a.z[i] = a.rng.NormFloat64()
	}
	mc := a.model.Config()
	prior := math.Sqrt(mc.Lambda) * mc.S
	scale := a.sqrtD * (a.kappa*(a.model.BetaR()-prior) + prior)
	th := rm.Theta()
	for i := 0; i < a.d; i++ {
		var v float64
		for k := 0; k <= i; k++ {
			v += a.chol[i*a.d+k] * a.z[k]
		}
		a.th[i] = th[i] + scale*v
	}
	// 2–3. maximise ⟨x, θ̃⟩ over A_t ∩ D^s_t.
	best, bestAlpha := -1, 0.0
	if !a.star {
		safe, err := a.safeIndex(r, pts)
		if err != nil {
			return bandit.Decision{}, err
		}
		best, bestAlpha = safe, 1
	}
	best = a.alongRays(a.model, pts, a.x0, a.u, a.xb, a.star, best, bestAlpha, dotf(a.x0, a.th),
		func(u []float64, alpha float64) float64 { return bestValAt(a.x0, u, alpha, a.th) })
	return a.ledger.Record(r.T, bandit.Action{Arm: best, X: a.xb}, 0), nil
}

func bestValAt(x0, u []float64, alpha float64, th []float64) float64 {
	var v float64
	for k := range x0 {
		v += (x0[k] + alpha*u[k]) * th[k]
	}
	return v
}

func dotf(a, b []float64) float64 {
	var s float64
	for i := range a {
		s += a[i] * b[i]
	}
	return s
}

// Observe implements bandit.Agent.
func (a *SafeLTS) Observe(fb bandit.Feedback) error {
	acc, costs, err := a.accept(fb)
	if err != nil {
		return err
	}
	return a.observeLinear(a.model, acc, costs, func() {})
}

func init() {
	Register(Spec{
		Name:    "safe-lts",
		Can:     Caps{Domains: []string{DomainContextual}, Kinds: []bandit.ConstraintKind{KindPerRound}, NeedsConstraints: true, NeedsSafe: true, NeedsStage: true, Randomised: true, Pending: PendingDraw},
		Summary: "Safe-LTS: linear Thompson sampling in the estimated safe set (baseline)",
		Source:  "Moradipari et al. 2019 (arXiv:1911.02156), Alg. 1, with the κ, δ_t and √d of the code Pacchiano et al. ran (constrainedBandits LinTS); the baseline of their §4.5",
		Params:  safeLTSParams,
		New:     newSafeLTS,
	})
}
