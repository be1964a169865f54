package agent

import (
	"math"
	"slices"

	"github.com/cbandit/cbandit/bandit"
	"github.com/cbandit/cbandit/estimator"
)

// restartDoc declares H, the restart period of CKB-RestartUCB.
var restartDoc = bandit.IntParam{Name: "H", Computed: "⌈γ_T^{1/4}(T/P_T)^{1/2}⌉ with P_T = 2", Range: bandit.AtLeast(1),
	Doc: "restart period: GPs reset every H rounds, forgetting as fast as RPOL-SWUCB's W", Source: "Deng et al. 2022"}

var ckbRestartParams = append(slices.Clone(ckbParams), restartDoc)

// restartParam reads H, the restart period of CKB-RestartUCB.
func restartParam(name string, cfg Config) (int, error) {
	T := float64(cfg.Horizon)
	d := float64(max(cfg.Info.Domain.Dim(), 1))
	def := int(math.Ceil(math.Pow(math.Pow(math.Log(math.Max(T, 1)), d+1), 0.25) * math.Sqrt(T/2)))
	return restartDoc.ReadOr(name, cfg.Params, def)
}

// begin starts round t, own or imposed: CKB-RestartUCB resets the
// posteriors at rounds 1 + kH (k ≥ 1), and feedback of the decisions
// before no longer reaches them.
func (a *CKB) begin(t int) {
	if h := a.restart; h > 0 && t > 1 && (t-1)%h == 0 {
		a.reset()
	}
}

func init() {
	Register(onCore(Spec{
		Name:    "ckb-restart-ucb",
		Can:     Caps{Domains: []string{DomainFinite, DomainBox}, Kinds: []bandit.ConstraintKind{KindLongTerm}, NeedsConstraints: true},
		Summary: "CKB-UCB with GP posteriors restarted every H rounds (non-stationary)",
		Source:  "Deng et al. 2022 (CKB-RestartUCB), baseline of Guo et al. §7",
		Params:  ckbRestartParams,
	}, func(name string, cfg Config) (bandit.Agent, error) {
		return newCKB(name, cfg, ckbOptions{estF: estimator.UCB{}, estG: estimator.UCB{}, restart: true})
	}))
}
