package model

import "fmt"

// The fits of a noisy metric (SetNoisy, SetRefitEvery): other priors and
// refits every k observations besides the doubling schedule's.

// Noisy priors of SetNoisy.
const (
	NoisyPriorKept    = 0 // the Fit priors (FitPriorLengthscale, …)
	NoisyPriorOptuna  = 1 // Optuna v4.6 GPSampler's (OptunaPriorVariance, …)
	NoisyPriorBetween = 2 // GPSampler's with the noise prior BetweenPriorNoise
)

// TrialNoise returns the noise variance (in the inner GP's units) that a
// fit to the current observations would give, without applying it: the
// test that tells a noisy metric from a deterministic one before the
// schedule's first fit. It needs Fit and at least FirstFit observations.
func (a *Adaptive) TrialNoise() (float64, error) {
	if !a.fit || len(a.ys) < FirstFit(len(a.side)) {
		return 0, fmt.Errorf("model: a trial fit needs hyper = fit and %d observations, have %d", FirstFit(len(a.side)), len(a.ys))
	}
	r, err := a.compute(a.acts, a.ys, a.k, a.lam, nil, 0, true)
	if err != nil {
		return 0, err
	}
	return r.lam, nil
}

// SetNoisy switches a fitted model to the fits of a noisy metric: the
// priors prior (NoisyPriorKept, NoisyPriorOptuna or NoisyPriorBetween)
// and, with every > 0, a refit at every every-th observation count below
// DeferFrom (the doubling schedule's refits stay); it refits at once from
// every start.
// A deferred refit under way is dropped (the rebuild replaces it).
func (a *Adaptive) SetNoisy(prior, every int) error {
	if !a.fit || len(a.ys) < FirstFit(len(a.side)) {
		return fmt.Errorf("model: SetNoisy needs hyper = fit and %d observations, have %d", FirstFit(len(a.side)), len(a.ys))
	}
	saved := *a
	a.noisyPrior, a.every = prior, every
	a.theta, a.job, a.from, a.due = nil, nil, 0, 0
	if err := a.refresh(); err != nil {
		*a = saved
		return err
	}
	return nil
}

// SetRefitEvery is SetNoisy with the kept priors and refits every k
// observations at every count from now on, not only below DeferFrom: a
// model whose first fits saw the data far from where it is now used
// (config's safe stage in 20+ dims, docs/live_limits.md, "Generation 19").
func (a *Adaptive) SetRefitEvery(k int) error {
	if k <= 0 {
		return fmt.Errorf("model: refits every k = %d observations: k must be at least 1", k)
	}
	if err := a.SetNoisy(NoisyPriorKept, k); err != nil {
		return err
	}
	a.everyAfter = true
	return nil
}

// early reports whether count n is one of SetNoisy's extra refits: every
// `every` observations below DeferFrom, or at any count with everyAfter
// (never deferred).
func (a *Adaptive) early(n int) bool {
	return a.every > 0 && a.fit && (a.everyAfter || n < DeferFrom(len(a.side))) && n%a.every == 0
}
