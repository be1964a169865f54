package agent

import (
	"fmt"
	"math"

	"github.com/cbandit/cbandit/bandit"
	"github.com/cbandit/cbandit/domain"
	"github.com/cbandit/cbandit/estimator"
	"github.com/cbandit/cbandit/maximise"
	"github.com/cbandit/cbandit/model"
)

// box holds what CKB needs beyond finite arms: predictors for the local
// refinement over a box (UCB estimators only: a Thompson draw has no value
// off the candidates) and the restart period of CKB-RestartUCB.
type box struct {
	pf      model.Predictor
	pg      []model.Predictor
	dom     *domain.Box
	restart int // H; 0 = never
	epoch   int
}

var ckbRestartParams = append(append([]bandit.ParamDoc(nil), ckbParams...),
	bandit.ParamDoc{Name: "H", Default: "⌈γ_T^{1/4}(T/P_T)^{1/2}⌉ with P_T = 2", Doc: "restart period: GPs reset every H rounds (Deng et al. 2022), forgetting as fast as RPOL-SWUCB's W"})

func (a *CKB) setupBox(name string, cfg Config, o ckbOptions) error {
	if b, ok := cfg.Info.Domain.(*domain.Box); ok {
		_, uf := o.estF.(estimator.UCB)
		_, ug := o.estG.(estimator.UCB)
		if uf && ug {
			a.box.pf, a.box.pg = predictors(a.f, a.g)
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
		return fmt.Errorf("%s: parameter H = %d: restart period must be at least 1", name, h)
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

// refine returns the action for candidate i: the candidate itself on finite
// domains, else the local maximiser of the CKB-UCB score near the best
// candidates; it updates a.gAtX to ḡ at the returned point.
func (a *CKB) refine(i int) (bandit.Action, error) {
	if a.box.pf == nil {
		return a.f.Action(i), nil
	}
	bf := a.betaF.At(a.f.InfoGain())
	bg := make([]float64, len(a.g))
	for j, g := range a.g {
		bg[j] = a.betaG.At(g.InfoGain())
	}
	clip := func(v, c float64) float64 { return math.Max(-c, math.Min(c, v)) }
	gAt := func(x []float64, dst []float64) {
		for j, pg := range a.box.pg {
			m, s2 := pg.Predict(x)
			dst[j] = clip(m-bg[j]*math.Sqrt(s2), a.clipG)
		}
	}
	acq := func(mv []float64) float64 {
		v := clip(mv[0]+bf*math.Sqrt(mv[1]), a.clipF)
		for j, phi := range a.rule.Phi {
			v -= phi * clip(mv[2+2*j]-bg[j]*math.Sqrt(mv[3+2*j]), a.clipG)
		}
		return v
	}
	starts := [][]float64{a.f.Action(i).X}
	for _, k := range maximise.TopK(a.score, refineStarts) {
		if k != i {
			starts = append(starts, a.f.Action(k).X)
		}
	}
	x, err := refineAcq(a.box.dom, starts, append([]model.Model{a.f}, a.g...), acq)
	if err != nil {
		return bandit.Action{}, err
	}
	if x == nil {
		return a.f.Action(i), nil
	}
	gAt(x, a.gAtX)
	return bandit.PointAction(x), nil
}

func init() {
	Register(Spec{
		Name:    "ckb-restart-ucb",
		Can:     Caps{Domains: []string{DomainFinite, DomainBox}, Kinds: []string{KindLongTerm}, Pending: PendingHallucinate},
		Summary: "CKB-UCB with GP posteriors restarted every H rounds (non-stationary)",
		Source:  "Deng et al. 2022 (CKB-RestartUCB), baseline of 000 §7",
		Params:  ckbRestartParams,
		New: func(cfg Config) (bandit.Agent, error) {
			return newCKB("ckb-restart-ucb", cfg, ckbOptions{estF: estimator.UCB{}, estG: estimator.UCB{}, restart: true})
		},
	})
}
