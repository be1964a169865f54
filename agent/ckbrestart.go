package agent

import (
	"math"
	"slices"

	"github.com/cbandit/cbandit/bandit"
	"github.com/cbandit/cbandit/domain"
	"github.com/cbandit/cbandit/estimator"
)

// box holds what CKB needs beyond finite arms: the box its acquisition is
// refined on (UCB estimators only: a Thompson draw has no value off the
// candidates) and the restart period of CKB-RestartUCB.
type box struct {
	dom     *domain.Box
	restart int // H; 0 = never
	epoch   int
}

var ckbRestartParams = append(slices.Clone(ckbParams),
	bandit.IntParam{Name: "H", Computed: "⌈γ_T^{1/4}(T/P_T)^{1/2}⌉ with P_T = 2", Range: bandit.AtLeast(1),
		Doc: "restart period: GPs reset every H rounds, forgetting as fast as RPOL-SWUCB's W", Source: "Deng et al. 2022"})

func (a *CKB) setupBox(name string, cfg Config, o ckbOptions) error {
	if b, ok := cfg.Info.Domain.(*domain.Box); ok {
		_, uf := o.estF.(estimator.UCB)
		_, ug := o.estG.(estimator.UCB)
		if pf, _ := predictors(a.f, a.g); uf && ug && pf != nil {
			a.box.dom = b
		}
	}
	if !o.restart {
		return nil
	}
	T := float64(cfg.Horizon)
	d := float64(max(cfg.Info.Domain.Dim(), 1))
	def := int(math.Ceil(math.Pow(math.Pow(math.Log(math.Max(T, 1)), d+1), 0.25) * math.Sqrt(T/2)))
	h, err := cfg.Params.Int(name, "H", def)
	if err != nil {
		return err
	}
	if h <= 0 {
		return bandit.ParamErrorf(name, "H", "= %d: restart period must be at least 1", h)
	}
	a.box.restart = h
	return nil
}

// maybeRestart resets the posteriors at rounds 1 + kH (k ≥ 1).
func (a *CKB) maybeRestart(t int) {
	if h := a.box.restart; h > 0 && t > 1 && (t-1)%h == 0 {
		a.f.Reset()
		for _, g := range a.g {
			g.Reset()
		}
		a.box.epoch++
	}
}

func init() {
	Register(Spec{
		Name:    "ckb-restart-ucb",
		Can:     Caps{Domains: []string{DomainFinite, DomainBox}, Kinds: []bandit.ConstraintKind{KindLongTerm}, Pending: PendingHallucinate, LearnsFailures: true},
		Summary: "CKB-UCB with GP posteriors restarted every H rounds (non-stationary)",
		Source:  "Deng et al. 2022 (CKB-RestartUCB), baseline of Guo et al. §7",
		Params:  ckbRestartParams,
		New: func(cfg Config) (bandit.Agent, error) {
			return newCKB("ckb-restart-ucb", cfg, ckbOptions{estF: estimator.UCB{}, estG: estimator.UCB{}, restart: true})
		},
	})
}
