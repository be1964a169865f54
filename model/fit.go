// The hyperparameter fit of Adaptive: MAP under Gamma priors on a strided subset, run in the background (fitJob) and applied at a later round.

package model

import (
	"fmt"
	"math"
	"slices"

	"github.com/cbandit/cbandit/bandit"
	"github.com/cbandit/cbandit/gp"
)

// Weak priors of hyper=fit (maximum a posteriori, as BoTorch fits its
// SingleTaskGP): the Gamma priors of BoTorch's SingleTaskGP before v0.12
// (botorch/models/utils/gpytorch_modules.py: lengthscale Gamma(3, 6) on
// inputs scaled to [0, 1], outputscale Gamma(2, 0.15), noise Gamma(1.1,
// 0.05) on standardised outcomes), here on ℓ_d/side_d, σ²/v and λ/v (v the
// variance of the data the GP sees). Without them a fit to a handful of
// nearly equal values drives the lengthscales to their upper bound and the
// agent stops exploring (docs/defaults.md: gardner).
var (
	FitPriorLengthscale = gp.GammaPrior{Shape: 3, Rate: 6}
	FitPriorVariance    = gp.GammaPrior{Shape: 2, Rate: 0.15}
	FitPriorNoise       = gp.GammaPrior{Shape: 1.1, Rate: 0.05}
)

// Optuna v4.6 GPSampler's priors (optuna/_gp/prior.py, default_log_prior,
// on inputs scaled to [0, 1] and standardised values): kernel scale
// Gamma(2, 1) and noise variance Gamma(1.1, 30) (mean 0.037: a fit on few
// points calls a trend noise only when the data insist), here on σ²/v and
// λ/v; the lengthscales' is optunaLengthscalePrior. Used where every
// metric is noisy (SetNoisy).
var (
	OptunaPriorVariance = gp.GammaPrior{Shape: 2, Rate: 1}
	OptunaPriorNoise    = gp.GammaPrior{Shape: 1.1, Rate: 30}
)

// BetweenPriorNoise is the noise prior of NoisyPriorBetween: Gamma(1.1, 1)
// on λ/v (mean 1.1), the rate near the geometric mean (1.2) of the kept prior's 0.05
// and GPSampler's 30, so a fit calls more of the data noise than
// GPSampler's and less than the kept one's.
var BetweenPriorNoise = gp.GammaPrior{Shape: 1.1, Rate: 1}

// optunaLengthscalePrior is GPSampler's log prior −(0.1/ι + 0.1·ι) on the
// inverse squared lengthscale ι = 1/ℓ² (ℓ on ℓ_d/side_d), at θ = ln ℓ, and
// its derivative in θ: −0.1(e^{2θ} + e^{−2θ}), a bump centred at ℓ = 1.
func optunaLengthscalePrior(theta float64) (float64, float64) {
	a, b := math.Exp(2*theta), math.Exp(-2*theta)
	return -0.1 * (a + b), -0.2 * (a - b)
}

// FitMaxPoints bounds the observations a fit sees: beyond it the fit uses
// an evenly strided subset (every (n/FitMaxPoints)-th observation in
// order, early exploration and late rounds alike); the posterior still
// uses them all. A fit's cost is O(n³) per likelihood evaluation, so
// without the bound the round that triggers a refit grows without limit;
// 128 points pin down d + 2 ≤ 8 hyperparameters (our choice; timings in
// docs/defaults.md, "Evidence", and BenchmarkAdaptiveRefit).
const FitMaxPoints = 128

// FitSubset returns xs, ys, or their evenly strided subset of most
// entries when there are more.
func FitSubset(xs [][]float64, ys []float64, most int) ([][]float64, []float64) {
	n := len(ys)
	if n <= most {
		return xs, ys
	}
	sx, sy := make([][]float64, most), make([]float64, most)
	for j := range sx {
		i := j * n / most
		sx[j], sy[j] = xs[i], ys[i]
	}
	return sx, sy
}

// FitNu is the smoothness of the ARD kernel that hyper=fit learns: Matérn
// 5/2 (Snoek, Larochelle & Adams 2012, NeurIPS, §3.1; BoTorch's default;
// the kernel of the scikit-learn loop).
const FitNu = 2.5

// fitJob is a deferred refit running off the path: its result once done
// is closed; taken once join has used it.
type fitJob struct {
	from  int
	done  chan struct{}
	r     *refreshed
	err   error
	taken bool
}

// start begins the refit due at the current count n: from the first n
// observations, off the path, swapped in by join at n + RefitLag(n).
func (a *Adaptive) start() {
	n := len(a.ys)
	a.from, a.due = n, n+RefitLag(n)
	acts, ys := slices.Clone(a.acts), slices.Clone(a.ys)
	k, lam, theta, fits := a.k, a.lam, a.theta, a.fits
	a.fits++
	j := &fitJob{from: n, done: make(chan struct{})}
	a.job = j
	c := *a // the job reads a copy: a's fields are rewritten (Observe's undo)
	go func() {
		j.r, j.err = c.compute(acts, ys, k, lam, theta, fits, true)
		close(j.done)
	}()
}

// takeJob removes and returns a's running refit started at from (nil if
// there is none: it was never started in this process — a model restored
// from a snapshot — or was taken, also by a join that Observe undid).
func (a *Adaptive) takeJob() *fitJob {
	j := a.job
	a.job = nil
	if j == nil || j.from != a.from || j.taken {
		return nil
	}
	j.taken = true
	return j
}

// join swaps in the pending refit (waiting for it, or computing it when no
// job runs) and replays into it the observations since its count.
func (a *Adaptive) join() error {
	var r *refreshed
	var err error
	if j := a.takeJob(); j != nil {
		<-j.done
		r, err = j.r, j.err
	} else {
		r, err = a.compute(a.acts[:a.from], a.ys[:a.from], a.k, a.lam, a.theta, a.fits-1, true)
	}
	if err != nil {
		return err
	}
	for i := a.from; i < len(a.ys); i++ {
		if err := r.inner.Observe(a.acts[i], unit(a.ys[i], r.m, r.s, r.knee, a.constraint)-r.off); err != nil {
			return err
		}
	}
	a.apply(r)
	a.from, a.due = 0, 0
	return nil
}

// FirstFit is the number of observations at which a GP with fitted
// hyperparameters on a d-dimensional box first fits them: 2(d+2), two per
// hyperparameter of the ARD kernel (d lengthscales, signal and noise
// variance). The agents' initial design (parameter init) plays this many points.
func FirstFit(d int) int { return 2 * (d + 2) }

// refit fits the ARD Matérn-5/2 hyperparameters to ys (in the inner GP's
// units) at the observed points. Bounds (our choice, in the units of the
// data's sample variance v and the box side ℓ_d): σ² ∈ [0.01v, 100v], ℓ_d ∈
// [0.01, 100]·side_d, λ ∈ [1e-6v, v]; narrower than scikit-learn's
// (1e-5, 1e5), so a few points cannot drive a lengthscale to 0 or λ to an
// interpolating 1e-5 of a huge signal.
func (a *Adaptive) refit(acts []bandit.Action, ys, theta []float64, fits int) ([]float64, gp.ARD, float64, error) {
	d := len(a.side)
	xs := make([][]float64, len(acts))
	for i, act := range acts {
		if len(act.X) != d {
			return nil, gp.ARD{}, 0, fmt.Errorf("model: hyper = fit: observation %d has %d coordinates, want %d", i, len(act.X), d)
		}
		xs[i] = act.X
	}
	xs, ys = FitSubset(xs, ys, FitMaxPoints)
	var v float64
	var mean float64
	for _, y := range ys {
		mean += y
	}
	mean /= float64(len(ys))
	for _, y := range ys {
		v += (y - mean) * (y - mean)
	}
	v /= float64(len(ys))
	if !(v > 0) {
		v = 1
	}
	lv := math.Log(v)
	lo, hi := make([]float64, d+2), make([]float64, d+2)
	lo[0], hi[0] = lv+math.Log(0.01), lv+math.Log(100)
	for i, s := range a.side {
		lo[1+i], hi[1+i] = math.Log(0.01*s), math.Log(100*s)
	}
	lo[d+1], hi[d+1] = lv+math.Log(1e-6), lv
	starts := gp.DefaultStarts(d, nil)
	for _, st := range starts {
		st[0] += lv
		st[d+1] += lv
		for i, s := range a.side {
			st[1+i] += math.Log(s)
		}
	}
	if theta != nil {
		// Warm start plus one of the fixed starts in turn: the cost of a
		// refit stays a few BFGS runs (the first fit tries them all). With
		// refit = deferred too: the warm start alone on at most 16(d+2)
		// points raised rpol-ucb's late suite regret and violation
		// (docs/defaults.md, "Generation 5").
		starts = [][]float64{theta, starts[fits%len(starts)]}
	}
	prior := func(theta, grad []float64) float64 {
		// FitPriors on σ²/v, ℓ_d/side_d and λ/v: a shift of θ by the log
		// of the unit, so the prior is free of the data's and the box's
		// units.
		pv, pn := FitPriorVariance, FitPriorNoise
		switch a.noisyPrior {
		case NoisyPriorOptuna:
			pv, pn = OptunaPriorVariance, OptunaPriorNoise
		case NoisyPriorBetween:
			pv, pn = OptunaPriorVariance, BetweenPriorNoise
		}
		lp, dv := pv.LogAt(theta[0] - lv)
		ln, dn := pn.LogAt(theta[d+1] - lv)
		lp += ln
		if grad != nil {
			grad[0] += dv
			grad[d+1] += dn
		}
		for i, s := range a.side {
			l, dl := FitPriorLengthscale.LogAt(theta[1+i] - math.Log(s))
			switch {
			case a.noisyPrior == NoisyPriorOptuna || a.noisyPrior == NoisyPriorBetween:
				l, dl = optunaLengthscalePrior(theta[1+i] - math.Log(s))
			case a.dimPrior:
				l, dl = dimLengthscalePrior(theta[1+i]-math.Log(s), d)
			}
			lp += l
			if grad != nil {
				grad[1+i] += dl
			}
		}
		return lp
	}
	if a.centredFit {
		// Fit to the values about their mean (v and the bounds above are
		// already about it): the lengthscales and λ then describe how g
		// varies, not how far it lies from the threshold.
		c := make([]float64, len(ys))
		for i, y := range ys {
			c[i] = y - mean
		}
		ys = c
	}
	th, _, err := gp.FitHyper(xs, ys, gp.FitOptions{Nu: FitNu, Lo: lo, Hi: hi, Starts: starts, GTol: 1e-5, FTol: 2.2e-9, Prior: prior})
	if err != nil {
		return nil, gp.ARD{}, 0, fmt.Errorf("model: hyper = fit: %w", err)
	}
	h := gp.HyperFromTheta(th)
	if a.centredFit {
		// The prior mean stays at the threshold, so the prior variance
		// must also cover the values' distance from it: σ²_c + m̄², the
		// values' second moment about the threshold when σ²_c is their
		// variance. th (the centred fit) stays the next fit's warm start.
		h.Variance += mean * mean
	}
	k, err := gp.NewARD(FitNu, h.Lengthscales, h.Variance)
	if err != nil {
		return nil, gp.ARD{}, 0, fmt.Errorf("model: hyper = fit: %w", err)
	}
	return th, k, h.NoiseVar, nil
}

// dimLengthscalePrior is the log density (and its derivative) at θ = ln ℓ
// of the LogNormal(√2 + ln(d)/2, √3) prior on ℓ in d dimensions, in θ
// (Hvarfner, Hellsten & Nardi 2024, §4): a normal density on θ.
func dimLengthscalePrior(theta float64, d int) (float64, float64) {
	mu, s2 := math.Sqrt2+0.5*math.Log(float64(d)), 3.0
	z := theta - mu
	return -z*z/(2*s2) - 0.5*math.Log(2*math.Pi*s2), -z / s2
}
