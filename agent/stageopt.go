package agent

import (
	"math"
	"slices"

	"github.com/cbandit/cbandit/bandit"
)

// StageOpt is Sui et al. 2018 (ICML), Alg. 1: a safe-expansion stage that
// plays the expander with the widest constraint interval,
// x_t = argmax_{G_t} max_j (u^g_j − l^g_j), for T0 rounds or until no
// expander is wider than ε; then an optimisation stage that plays GP-UCB
// inside the safe set, x_t = argmax_{S_t} u^f(x). The safe set keeps being
// updated in both stages. Per round: O(N²·m) during expansion (expanders),
// O(N²·m) for the safe-set update.
type StageOpt struct {
	*safeCore
	T0       int
	Eps      float64
	expanded bool
}

// Decide implements bandit.Agent.
func (a *StageOpt) Decide(r *bandit.Round) (bandit.Decision, error) {
	c := a.safeCore
	c.markPending()
	c.intervals()
	c.updateSafe()
	if !a.expanded && r.T <= a.T0 {
		var x int
		if c.gpRule {
			x = c.firstExpander(func(int) bool { return true }, c.widthG)
		} else {
			x = c.argmaxOver(func(i int) bool { return c.safe[i] && c.expander(i) }, c.widthG)
		}
		if x >= 0 && c.widthG(x) >= a.Eps {
			return c.record(r.T, x), nil
		}
		a.expanded = true // no expander left, or all narrower than ε
	}
	x := c.argmaxOver(func(i int) bool { return c.safe[i] }, func(i int) float64 { return c.uf[i] })
	if x < 0 {
		x = c.seed
	}
	return c.record(r.T, x), nil
}

var (
	stageOptT0 = bandit.IntParam{Name: "T0", Computed: "⌈T/10⌉", Range: bandit.AtLeast(0),
		Doc: "length of the safe-expansion stage (an input of the algorithm)", Source: "Sui et al. 2018; Zhou & Ji (CBO) do not state it: our choice"}
	stageOptEps = bandit.FloatParam{Name: "eps", Default: 0, Range: zeroToInf,
		Doc: "stop expanding when every expander's interval is narrower than ε", Source: "Sui et al. 2018, §4"}
	stageOptParams = []bandit.Param{stageOptT0, stageOptEps}
)

func init() {
	Register(Spec{
		Name:    "stageopt",
		Can:     Caps{Domains: []string{DomainFinite}, Kinds: []bandit.ConstraintKind{KindPerRound}, NeedsConstraints: true, NeedsSafe: true, Pending: PendingExclude},
		Summary: "StageOpt: safe expansion for T0 rounds, then GP-UCB inside the safe set; GP safe set as SafeOpt's reference implementation (or the Lipschitz rule) (needs a safe seed)",
		Source:  "Sui, Zhuang, Burdick, Yue 2018 (ICML), Alg. 1; safe set and expanders as safeopt's reference implementation; baseline of Zhou & Ji (CBO) §5",
		Params:  append(append(slices.Clone(safeChoiceParams), safeSetParams...), stageOptParams...),
		New: func(cfg Config) (bandit.Agent, error) {
			c, err := newSafeCore("stageopt", cfg, ruleChoice)
			if err != nil {
				return nil, err
			}
			t0, err := stageOptT0.ReadOr("stageopt", cfg.Params, int(math.Ceil(float64(cfg.Horizon)/10)))
			if err != nil {
				return nil, err
			}
			eps, err := stageOptEps.Read("stageopt", cfg.Params)
			if err != nil {
				return nil, err
			}
			return &StageOpt{safeCore: c, T0: t0, Eps: eps}, nil
		},
	})
}
