package agent

import (
	"fmt"
	"math"

	"github.com/cbandit/cbandit/bandit"
)

// SGPUCB is SGP-UCB of Amani, Alizadeh & Thrampoulidis 2020 ("Regret bounds
// for safe Gaussian process bandit optimization"): a pure-exploration phase
// of T' rounds playing actions uniformly at random from the known safe set
// D⁰ (here the problem's safe seed), then GP-UCB restricted to the
// pessimistic safe set D_t = {x : μ̃_{t−1}(x) + β̃_t σ̃_{t−1}(x) ≤ 0 ∀j}
// (falling back to the seed while that set is empty). No Lipschitz constant.
// Per round: O(N·m).
type SGPUCB struct {
	*safeCore
	Explore int
}

// Decide implements bandit.Agent.
func (a *SGPUCB) Decide(r *bandit.Round) (bandit.Decision, error) {
	c := a.safeCore
	if r.T <= a.Explore {
		return c.record(r.T, c.seed), nil // D⁰ = {seed}: uniform over it
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

func init() {
	Register(Spec{
		Name:    "sgp-ucb",
		Summary: "SGP-UCB: random exploration of the known safe set, then GP-UCB in the pessimistic safe set (needs a safe seed)",
		Source:  "Amani, Alizadeh, Thrampoulidis 2020 (L4DC), SGP-UCB; baseline of 001 §5",
		Params: append(append([]bandit.ParamDoc(nil), safeParams...),
			bandit.ParamDoc{Name: "explore", Default: "⌈√T⌉", Doc: "length T' of the pure-exploration phase (Amani et al. 2020 set it from the problem constants; 001 does not state it; our choice)"}),
		New: func(cfg Config) (bandit.Agent, error) {
			c, err := newSafeCore("sgp-ucb", cfg, ruleNone)
			if err != nil {
				return nil, err
			}
			e, err := cfg.Params.Int("sgp-ucb", "explore", int(math.Ceil(math.Sqrt(float64(cfg.Horizon)))))
			if err != nil {
				return nil, err
			}
			if e < 0 {
				return nil, fmt.Errorf("sgp-ucb: parameter explore = %d: must be ≥ 0", e)
			}
			return &SGPUCB{safeCore: c, Explore: e}, nil
		},
	})
}
