package linear

import (
	"fmt"
	"math"
)

// SafeConfig configures the models of LC-LUCB and OPLB (Pacchiano et al. §4.1, §5.1).
type SafeConfig struct {
	// D is the dimension d of actions.
	D int
	// Lambda is the regulariser λ of Pacchiano et al. eq. (3).
	Lambda float64
	// Delta is δ of Pacchiano et al. Thm. 10.
	Delta float64
	// R and RC are the sub-Gaussian scales of the reward and cost noise (Pacchiano et al. Ass. 1).
	R, RC float64
	// S bounds ‖θ*‖, ‖μ*‖ (Pacchiano et al. Ass. 2); L bounds ‖x‖ (Ass. 3).
	S, L float64
	// X0 is the safe action x₀ (nil means x₀ = 0).
	X0 []float64
	// M is the number of constraints.
	M int
	// C0 are the known costs c₀ of x₀ (Pacchiano et al. Ass. 5, Ass. 22). Nil means
	// unknown: every μ^{(i)} is then estimated in all d directions, as Pacchiano et al.
	// Remark 12 / App. F.1 prescribe after the warm start.
	C0 []float64
	// AlphaR and AlphaC are the scaling parameters α_r, α_c ≥ 1 of Pacchiano et al. eq. (5).
	AlphaR, AlphaC float64
}

// Safe is the reward model (θ̂_t, Σ_t) and the m cost models (μ̂^{o,⊥}_t,
// Σ^{o,⊥}_t) of Pacchiano et al. eq. (3)–(5), with the closed forms of Prop. 11 and Prop. 25.
type Safe struct {
	cfg    SafeConfig
	proj   Projector
	reward *Ridge
	cost   []*Ridge
	dimC   int
	// cache of Σ⁻¹x₀ per model
	w0r   []float64
	w0rV  uint64
	w0c   [][]float64
	w0cV  []uint64
	w0set bool
	tmp   []float64
	tmpU  []float64
	// cached radii, valid when the stored count is N()+1
	betaR  float64
	betaRN int
	betaC  []float64
	betaCN []int
}

// NewSafe validates cfg and returns models with no observations.
func NewSafe(cfg SafeConfig) (*Safe, error) {
	if cfg.D < 1 {
		return nil, fmt.Errorf("linear: dimension d = %d: must be at least 1", cfg.D)
	}
	if cfg.M < 1 {
		return nil, fmt.Errorf("linear: number of constraints m = %d: must be at least 1", cfg.M)
	}
	if !(cfg.Delta > 0 && cfg.Delta < 1) {
		return nil, fmt.Errorf("linear: delta = %v: must be in (0, 1)", cfg.Delta)
	}
	if !(cfg.R >= 0) || !(cfg.RC >= 0) || !(cfg.S > 0) || !(cfg.L > 0) {
		return nil, fmt.Errorf("linear: need R, RC ≥ 0 and S, L > 0 (got R = %v, RC = %v, S = %v, L = %v)", cfg.R, cfg.RC, cfg.S, cfg.L)
	}
	if !(cfg.AlphaR >= 1) || !(cfg.AlphaC >= 1) || math.IsInf(cfg.AlphaR, 0) || math.IsInf(cfg.AlphaC, 0) {
		return nil, fmt.Errorf("linear: alpha-r = %v, alpha-c = %v: both must be finite and ≥ 1 (Pacchiano et al. eq. (5))", cfg.AlphaR, cfg.AlphaC)
	}
	proj, err := NewProjector(cfg.D, cfg.X0)
	if err != nil {
		return nil, err
	}
	if cfg.C0 != nil {
		if len(cfg.C0) != cfg.M {
			return nil, fmt.Errorf("linear: c0 has %d values for m = %d constraints", len(cfg.C0), cfg.M)
		}
		if proj.Zero() {
			for i, c := range cfg.C0 {
				if c != 0 {
					return nil, fmt.Errorf("linear: c0[%d] = %v, but x0 = 0 has cost ⟨0, μ⟩ = 0", i, c)
				}
			}
		}
	}
	s := &Safe{cfg: cfg, proj: proj, tmp: make([]float64, cfg.D), tmpU: make([]float64, cfg.D)}
	if s.reward, err = NewRidge(cfg.D, cfg.Lambda); err != nil {
		return nil, err
	}
	for i := 0; i < cfg.M; i++ {
		var r *Ridge
		if cfg.C0 != nil && !proj.Zero() {
			r, err = NewRidgePerp(cfg.D, cfg.Lambda, proj.E0())
		} else {
			r, err = NewRidge(cfg.D, cfg.Lambda)
		}
		if err != nil {
			return nil, err
		}
		s.cost = append(s.cost, r)
	}
	s.dimC = s.cost[0].Dim()
	s.w0c = make([][]float64, cfg.M)
	s.w0cV = make([]uint64, cfg.M)
	s.betaC = make([]float64, cfg.M)
	s.betaCN = make([]int, cfg.M)
	return s, nil
}

// SetAlpha changes the scaling parameters α_r, α_c (after the warm start of
// Pacchiano et al. App. F.1, which sets them from the estimated gaps).
func (s *Safe) SetAlpha(alphaR, alphaC float64) error {
	if !(alphaR >= 1) || !(alphaC >= 1) || math.IsInf(alphaR, 0) || math.IsInf(alphaC, 0) {
		return fmt.Errorf("linear: alpha-r = %v, alpha-c = %v: both must be finite and ≥ 1 (Pacchiano et al. eq. (5))", alphaR, alphaC)
	}
	s.cfg.AlphaR, s.cfg.AlphaC = alphaR, alphaC
	return nil
}

// SetDelta changes δ of Pacchiano et al. Thm. 10 (for agents whose confidence level
// changes with the round, e.g. Safe-LTS's δ_t = 1/(1+t)); the radii are
// recomputed at their next use.
func (s *Safe) SetDelta(delta float64) error {
	if !(delta > 0 && delta < 1) {
		return fmt.Errorf("linear: delta = %v: must be in (0, 1)", delta)
	}
	if delta != s.cfg.Delta {
		s.cfg.Delta = delta
		s.betaRN = 0
		for i := range s.betaCN {
			s.betaCN[i] = 0
		}
	}
	return nil
}

// Config returns the configuration.
func (s *Safe) Config() SafeConfig { return s.cfg }

// Projector returns the projections onto span(x₀) and its complement.
func (s *Safe) Projector() Projector { return s.proj }

// Reward is the reward model.
func (s *Safe) Reward() *Ridge { return s.reward }

// Cost is the model of constraint i.
func (s *Safe) Cost(i int) *Ridge { return s.cost[i] }

// KnownSafe reports whether c₀ is known (the model of Pacchiano et al. eq. (4)) or estimated.
func (s *Safe) KnownSafe() bool { return s.cfg.C0 != nil }

// BetaR is β_t(δ, d) of the reward model (Pacchiano et al. Thm. 10).
func (s *Safe) BetaR() float64 {
	n := s.reward.N()
	if s.betaRN != n+1 {
		s.betaR = Beta(s.cfg.Delta, s.cfg.D, n, s.cfg.R, s.cfg.L, s.cfg.S, s.cfg.Lambda)
		s.betaRN = n + 1
	}
	return s.betaR
}

// BetaC is β_t(δ, d − 1) of cost model i (β_t(δ, d) when x₀ = 0 or c₀ is
// estimated: the model then spans all of R^d, Pacchiano et al. §2 footnote 2).
func (s *Safe) BetaC(i int) float64 {
	n := s.cost[i].N()
	if s.betaCN[i] != n+1 {
		s.betaC[i] = Beta(s.cfg.Delta, s.dimC, n, s.cfg.RC, s.cfg.L, s.cfg.S, s.cfg.Lambda)
		s.betaCN[i] = n + 1
	}
	return s.betaC[i]
}

// ObserveReward adds the reward r of action x.
func (s *Safe) ObserveReward(x []float64, r float64) error { return s.reward.Add(x, r) }

// ObserveCost adds the cost c of constraint i at x. With known c₀ the model
// learns C^⊥ = C − ⟨x, e₀⟩c₀/‖x₀‖ along V_o^⊥ (Pacchiano et al. §4.1).
func (s *Safe) ObserveCost(i int, x []float64, c float64) error {
	if s.cfg.C0 != nil && !s.proj.Zero() {
		c -= s.proj.Along(x) * s.cfg.C0[i] / s.proj.NormX0()
	}
	return s.cost[i].Add(x, c)
}

// OptimisticReward is Ṽ^r_t(x) = ⟨x, θ̂_t⟩ + α_r β_t(δ,d) ‖x‖_{Σ_t⁻¹}
// (Pacchiano et al. eq. (9)); with x = x_π it is eq. (31).
func (s *Safe) OptimisticReward(x []float64) float64 {
	return dot(x, s.reward.Theta()) + s.cfg.AlphaR*s.BetaR()*s.reward.NormInv(x)
}

// PessimisticCost is Ṽ^{c(i)}_t(x) of Pacchiano et al. eq. (10) (x = x_π: eq. (32)):
//
//	⟨x^o, e₀⟩c₀/‖x₀‖ + ⟨x^{o,⊥}, μ̂^{o,⊥}_t⟩ + α_c β_t(δ, d−1) ‖x^{o,⊥}‖_{(Σ^{o,⊥}_t)⁻¹}.
//
// With unknown c₀ it is ⟨x, μ̂_t⟩ + α_c β_t(δ, d) ‖x‖_{Σ_t⁻¹} (Pacchiano et al. App. F.1).
func (s *Safe) PessimisticCost(i int, x []float64) float64 {
	m := s.cost[i]
	v := dot(x, m.Theta()) + s.cfg.AlphaC*s.BetaC(i)*m.NormInv(x)
	if s.cfg.C0 != nil && !s.proj.Zero() {
		v += s.proj.Along(x) * s.cfg.C0[i] / s.proj.NormX0()
	}
	return v
}

// Seg is a function of the scale α ∈ [0, 1] along a segment x(α) = x₀ + αu:
//
//	f(α) = A + Bα + K √(P0 + 2 P1 α + P2 α²),
//
// the form both closed forms take on a segment (K ≥ 0 and the quadratic is
// non-negative, so f is convex).
type Seg struct{ A, B, K, P0, P1, P2 float64 }

// At evaluates f(α).
func (g Seg) At(a float64) float64 {
	q := g.P0 + 2*g.P1*a + g.P2*a*a
	if q < 0 {
		q = 0
	}
	return g.A + g.B*a + g.K*math.Sqrt(q)
}

// MaxScale returns the largest α ∈ [0, 1] with f(α) ≤ τ, the α_i* of Pacchiano et al.
// Lemma 14 (f convex, so {α : f(α) ≤ τ} is an interval), and false when even
// f(0) > τ.
func (g Seg) MaxScale(tau float64) (float64, bool) {
	tol := 1e-12 * (1 + math.Abs(tau))
	if g.At(0) > tau+tol {
		return 0, false
	}
	if g.At(1) <= tau {
		return 1, true
	}
	// Solve f(α) = τ on (0, 1): with h = τ − A − Bα ≥ 0, K²q(α) = h².
	h0 := tau - g.A
	k2 := g.K * g.K
	qa := k2*g.P2 - g.B*g.B
	qb := 2 * (k2*g.P1 + h0*g.B)
	qc := k2*g.P0 - h0*h0
	best := -1.0
	consider := func(a float64) {
		if a >= 0 && a <= 1 && math.Abs(g.At(a)-tau) <= 1e-9*(1+math.Abs(tau)) && a > best {
			best = a
		}
	}
	if math.Abs(qa) < 1e-300 {
		if qb != 0 {
			consider(-qc / qb)
		}
	} else {
		disc := qb*qb - 4*qa*qc
		if disc >= 0 {
			sq := math.Sqrt(disc)
			// numerically stable roots
			var q float64
			if qb >= 0 {
				q = -0.5 * (qb + sq)
			} else {
				q = -0.5 * (qb - sq)
			}
			if q != 0 {
				consider(qc / q)
			}
			consider(q / qa)
		}
	}
	if best >= 0 {
		// Never overshoot: step back to a point that satisfies the constraint.
		for best > 0 && g.At(best) > tau {
			best = math.Nextafter(best, 0)
		}
		return best, true
	}
	// Fallback: bisection on the convex function (f(0) ≤ τ < f(1)).
	lo, hi := 0.0, 1.0
	for k := 0; k < 200 && hi-lo > 1e-15; k++ {
		mid := 0.5 * (lo + hi)
		if g.At(mid) <= tau {
			lo = mid
		} else {
			hi = mid
		}
	}
	return lo, true
}

func (s *Safe) w0(m *Ridge, cache *[]float64, ver *uint64) []float64 {
	if *cache == nil {
		*cache = make([]float64, s.cfg.D)
		*ver = ^uint64(0)
	}
	if *ver != m.Version() {
		m.InvMul(s.proj.X0(), *cache)
		*ver = m.Version()
	}
	return *cache
}

// RewardSeg returns Ṽ^r_t(x₀ + αu) (Pacchiano et al. eq. (9)) as a [Seg].
func (s *Safe) RewardSeg(u []float64) Seg {
	m := s.reward
	th := m.Theta()
	g := Seg{B: dot(u, th), K: s.cfg.AlphaR * s.BetaR()}
	m.InvMul(u, s.tmp)
	g.P2 = dot(u, s.tmp)
	if !s.proj.Zero() {
		w := s.w0(m, &s.w0r, &s.w0rV)
		x0 := s.proj.X0()
		g.A = dot(x0, th)
		g.P0 = dot(x0, w)
		g.P1 = dot(u, w)
	}
	return g
}

// CostSeg returns Ṽ^{c(i)}_t(x₀ + αu) (Pacchiano et al. eq. (10)) as a [Seg]. With known c₀
// it is linear in α: c₀ + α(Ṽ^c(x₀+u) − c₀), the identity behind Pacchiano et al. eq. (18).
func (s *Safe) CostSeg(i int, u []float64) Seg {
	m := s.cost[i]
	th := m.Theta()
	g := Seg{K: s.cfg.AlphaC * s.BetaC(i)}
	if s.cfg.C0 != nil {
		pu := u
		if !s.proj.Zero() {
			pu = s.proj.Perp(u, s.tmpU)
			g.A = s.cfg.C0[i]
			g.B = s.proj.Along(u) * s.cfg.C0[i] / s.proj.NormX0()
		}
		g.B += dot(pu, th)
		m.InvMul(pu, s.tmp)
		g.P2 = dot(pu, s.tmp)
		return g
	}
	g.B = dot(u, th)
	m.InvMul(u, s.tmp)
	g.P2 = dot(u, s.tmp)
	if !s.proj.Zero() {
		w := s.w0(m, &s.w0c[i], &s.w0cV[i])
		x0 := s.proj.X0()
		g.A = dot(x0, th)
		g.P0 = dot(x0, w)
		g.P1 = dot(u, w)
	}
	return g
}
