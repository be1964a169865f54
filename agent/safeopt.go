package agent

import (
	"math"
	"slices"

	"github.com/cbandit/cbandit/bandit"
)

// SafeOpt is Sui et al. 2015 (ICML), Alg. 1, with the safety function −g
// modelled by its own GP (the multi-constraint form of Berkenkamp et al.
// 2016): safe set S_t, potential maximisers
// M_t = {x ∈ S_t : u^f(x) ≥ max_{S_t} l^f}, expanders G_t, and
// x_t = argmax_{G_t ∪ M_t} w_t(x) with w_t = max(u^f − l^f, max_j u^g_j − l^g_j).
//
// safe-set=gp (default) follows the public reference implementation
// (safeopt.SafeOpt without a Lipschitz constant): GP safe set, widths scaled
// by each model's prior standard deviation, and only the widest expander
// outside M_t that is wider than every maximiser is searched for (the only
// one that can win the arg max). Per round O(N·m) plus O(N·|S_obs|) per
// expander test. safe-set=lipschitz is Sui et al. 2015's theory rule,
// O(N²·m) per round.
type SafeOpt struct{ *safeCore }

// Decide implements bandit.Agent.
func (a *SafeOpt) Decide(r *bandit.Round) (bandit.Decision, error) {
	c := a.safeCore
	c.markPending()
	c.intervals()
	c.updateSafe()
	maxL := math.Inf(-1)
	for i := 0; i < c.n; i++ {
		if c.safe[i] {
			maxL = math.Max(maxL, c.lf[i])
		}
	}
	inM := func(i int) bool { return c.safe[i] && c.uf[i] >= maxL }
	if !c.gpRule {
		in := func(i int) bool { return c.safe[i] && (inM(i) || c.expander(i)) }
		w := func(i int) float64 { return math.Max(c.uf[i]-c.lf[i], c.widthG(i)) }
		x := c.argmaxOver(in, w)
		if x < 0 {
			x = c.seed
		}
		return c.record(r.T, x), nil
	}
	x := c.argmaxOver(inM, c.scaledWidth)
	if x < 0 {
		x = c.seed
	}
	// An expander can only win when it is wider than the widest maximiser;
	// the reference compares the maximisers' f-width here.
	maxVar := math.Inf(-1)
	for i := 0; i < c.n; i++ {
		if inM(i) {
			maxVar = math.Max(maxVar, (c.uf[i]-c.lf[i])/c.scale[0])
		}
	}
	if e := c.firstExpander(func(i int) bool { return !inM(i) && c.scaledWidth(i) > maxVar }, c.scaledWidth); e >= 0 && c.scaledWidth(e) > c.scaledWidth(x) {
		x = e
	}
	return c.record(r.T, x), nil
}

func init() {
	Register(Spec{
		Name:    "safeopt",
		Can:     Caps{Domains: []string{DomainFinite}, Kinds: []bandit.ConstraintKind{KindPerRound}, NeedsConstraints: true, NeedsSafe: true, Pending: PendingExclude, DefaultFor: []string{string(KindPerRound) + "+safe"}},
		Summary: "SafeOpt: safe exploration with maximisers and expanders; GP safe set as the reference implementation (or the Lipschitz rule of the paper) (needs a safe seed)",
		Source:  "Sui, Gotovos, Burdick, Krause 2015 (ICML), Alg. 1; Berkenkamp et al.'s reference implementation (safeopt); baseline of Zhou & Ji (CBO) §5",
		Params:  append(slices.Clone(safeChoiceParams), safeSetParams...),
		New: func(cfg Config) (bandit.Agent, error) {
			c, err := newSafeCore("safeopt", cfg, ruleChoice)
			if err != nil {
				return nil, err
			}
			return &SafeOpt{c}, nil
		},
	})
}
