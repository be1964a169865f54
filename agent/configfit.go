// config's model fits beyond the doubling schedule: the first fit at
// 2(d+2) in 20+ dims (first-fit) and the safe stage's refits (safe-refit).

package agent

import (
	"slices"

	"github.com/cbandit/cbandit/domain"
	"github.com/cbandit/cbandit/model"
)

// refitSafe is safe-refit: once, at the safe stage's first decision on a
// box of NoisyBetaBelow dims or more where some constraint is noisy, every
// constraint's model refits at once and then every refitEvery
// observations (model.Adaptive.SetRefitEvery). The doubling schedule's
// last fit saw the first half's data, far from the boundary, and its noise
// left the safe set overconfident there (docs/live_limits.md,
// "Generation 19").
func (a *ConfigAgent) refitSafe() error {
	if a.refitEvery <= 0 || a.refitting {
		return nil
	}
	box, ok := a.info.Domain.(*domain.Box)
	if !ok || box.Dim() < NoisyBetaBelow {
		return nil
	}
	if !slices.Contains(a.exact()[1:], false) {
		return nil // every constraint deterministic
	}
	ads, ok := adaptives(a.g, model.FirstFit(box.Dim()))
	if !ok {
		return nil // too few observations to fit yet: at a later decision
	}
	a.refitting = true
	for _, ad := range ads {
		if err := ad.SetRefitEvery(a.refitEvery); err != nil {
			return err
		}
	}
	return nil
}

// fitEarly is first-fit=early: on a box of floats of NoisyBetaBelow dims
// or more, once every model holds model.FirstFit(d) observations, each one
// not yet fitted fits its hyperparameters at once (from every start, as
// the schedule's first fit), once; the doubling schedule's refits follow.
// Before it, a 20-dim model kept the prior's kernel for 64 observations,
// and the first stage crawled (docs/live_limits.md, "Generation 36").
func (a *ConfigAgent) fitEarly() error {
	box, ok := a.info.Domain.(*domain.Box)
	if !ok || box.Dim() < NoisyBetaBelow || box.Mixed() {
		a.earlyDone = true
		return nil
	}
	ads, ok := adaptives(append([]model.Model{a.f}, a.g...), model.FirstFit(box.Dim()))
	if !ok {
		return nil // at a later decision
	}
	a.earlyDone = true
	for _, ad := range ads {
		if ad.Fitted() {
			continue
		}
		if err := ad.SetNoisy(model.NoisyPriorKept, 0); err != nil {
			return err
		}
	}
	return nil
}

// adaptives returns the adaptive models among ms (a window's inside), and
// false while one of them holds fewer than n observations.
func adaptives(ms []model.Model, n int) ([]*model.Adaptive, bool) {
	var ads []*model.Adaptive
	for _, m := range ms {
		if w, ok := m.(*model.Window); ok {
			m = w.Model
		}
		if ad, ok := m.(*model.Adaptive); ok {
			if ad.Count() < n {
				return nil, false
			}
			ads = append(ads, ad)
		}
	}
	return ads, true
}
