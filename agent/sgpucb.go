package agent

import (
	"math"
	"slices"

	"github.com/cbandit/cbandit/bandit"
	"github.com/cbandit/cbandit/domain"
)

// SGPUCB is SGP-UCB of Amani, Alizadeh & Thrampoulidis 2020 ("Regret bounds
// for safe Gaussian process bandit optimization"): a pure-exploration phase
// of T' rounds playing actions uniformly at random from the known safe set
// D⁰, then GP-UCB restricted to the pessimistic safe set
// D_t = {x : μ̃_{t−1}(x) + β̃_t σ̃_{t−1}(x) ≤ 0 ∀j} (falling back to the seed
// while that set is empty). Per round: O(N·m).
//
// D⁰: Amani et al. take the known safe set as given; Zhou & Ji (CBO) do not say which
// set its SGP-UCB had. Here D⁰ is what the problem's safe seed x₀, its
// stated costs g_j(x₀) and the stated Lipschitz constant Info.LipG (an RKHS
// norm: reproducing property and Cauchy–Schwarz) certify:
// g_j(x) ≤ g_j(x₀) + LipG·d(x, x₀) ≤ 0 with d the kernel metric, so every
// arm of D⁰ is safe. Without stated costs or constant D⁰ = {x₀}.
type SGPUCB struct {
	*safeCore
	Explore int
	known   []int // D⁰
}

// knownSafeSet returns D⁰ (see SGPUCB).
func knownSafeSet(c *safeCore) []int {
	in := c.info
	if len(in.SafeCosts) != in.M || !(in.LipG > 0) {
		return []int{c.seed}
	}
	d := kernelMetric(in, in.Domain.(*domain.Finite))
	var set []int
	s := c.seed
	for x := 0; x < c.n; x++ {
		dx := d(x, s)
		ok := true
		for _, g0 := range in.SafeCosts {
			if g0+in.LipG*dx > 0 {
				ok = false
			}
		}
		if ok || x == s {
			set = append(set, x)
		}
	}
	return set
}

// Decide implements bandit.Agent.
func (a *SGPUCB) Decide(r *bandit.Round) (bandit.Decision, error) {
	c := a.safeCore
	c.markPending()
	if r.T <= a.Explore {
		return c.record(r.T, a.known[c.rng.IntN(len(a.known))]), nil // uniform over D⁰
	}
	// Pessimistic set and UCB from this round's posterior (no intersection).
	bf := c.betaF.At(c.f.InfoGain())
	mu, v := c.f.Mean(), c.f.Var()
	for i := range c.safe {
		c.safe[i] = i == c.seed
	}
	for i := 0; i < c.n; i++ {
		ok := true
		for _, g := range c.g {
			bg := c.betaG.At(g.InfoGain())
			if g.Mean()[i]+bg*math.Sqrt(g.Var()[i]) > 0 {
				ok = false
				break
			}
		}
		if ok {
			c.safe[i] = true
		}
	}
	x := c.argmaxOver(func(i int) bool { return c.safe[i] }, func(i int) float64 { return mu[i] + bf*math.Sqrt(v[i]) })
	return c.record(r.T, x), nil
}

// sgpExplore declares the length of SGP-UCB's exploration phase.
var sgpExplore = bandit.IntParam{Name: "explore", Computed: "⌈√T⌉", Range: bandit.AtLeast(0),
	Doc: "length T' of the pure-exploration phase", Source: "Amani et al. 2020 derive it; Zhou & Ji (CBO) do not state it: our choice"}

func init() {
	Register(Spec{
		Name:    "sgp-ucb",
		Can:     Caps{Domains: []string{DomainFinite}, Kinds: []bandit.ConstraintKind{KindPerRound}, NeedsConstraints: true, NeedsSafe: true, Randomised: true, Pending: PendingExclude},
		Summary: "SGP-UCB: random exploration of the known safe set (certified from the safe seed's stated cost), then GP-UCB in the pessimistic safe set (needs a safe seed)",
		Source:  "Amani, Alizadeh, Thrampoulidis 2020 (L4DC), SGP-UCB; baseline of Zhou & Ji (CBO) §5",
		Params:  append(slices.Clone(safeParams), sgpExplore),
		New: func(cfg Config) (bandit.Agent, error) {
			c, err := newSafeCore("sgp-ucb", cfg, ruleNone)
			if err != nil {
				return nil, err
			}
			e, err := sgpExplore.ReadOr("sgp-ucb", cfg.Params, int(math.Ceil(math.Sqrt(float64(cfg.Horizon)))))
			if err != nil {
				return nil, err
			}
			return &SGPUCB{safeCore: c, Explore: e, known: knownSafeSet(c)}, nil
		},
	})
}
