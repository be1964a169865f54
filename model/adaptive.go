package model

import (
	"fmt"
	"math"
	"slices"

	"github.com/cbandit/cbandit/bandit"
	"github.com/cbandit/cbandit/domain"
	"github.com/cbandit/cbandit/gp"
)

// Standardised units (the practical defaults). With Options.Standardise a model sees its
// observations centred and scaled by running estimates, so every constant an
// agent combines with the posterior must be in those units too: StandardInfo
// replaces the problem's unit-carrying constants by these values (our
// choices, documented in docs/defaults.md with the evidence).
const (
	// StdBound is B and G in standardised units: the functions are taken to
	// stay within 3 sample standard deviations (an objective's values are
	// centred; a constraint's are only scaled, so it lies within 3 of them
	// around its threshold in the common case).
	StdBound = 3
	// StdNoiseVar is λ (Info.NoiseVar) in standardised units: a noise
	// standard deviation of 0.1 sample standard deviations. With hyper=fit
	// it is only the starting value; the fit replaces it.
	StdNoiseVar = 0.01
	// StdSlater is Slater's δ in standardised units: 1, the largest value
	// Zhou & Ji (CBO) Ass. 1 allows (δ ≤ 1 w.l.o.g.), so CKB's dual bound
	// ρ = 4B/δ = 12 and step V = G√T/ρ; δ = 0.1 gave ckb-ucb a high late
	// regret on the suite's gramacy (docs/defaults.md, "Evidence").
	StdSlater = 1.0
)

// StandardInfo returns in with every constant that carries the units of a
// metric replaced by its standardised value: B = G = StdBound, R = RG =
// √StdNoiseVar, NoiseVar = StdNoiseVar, Slater = StdSlater; LipG and
// SafeCosts (in the constraint's units) are dropped. Domain, kernels, M and
// the rest are kept. The result does not depend on the units of the
// problem's metrics, which is what makes an agent on standardised models
// invariant to them.
func StandardInfo(in bandit.Info) bandit.Info {
	out := in
	out.B, out.G = StdBound, StdBound
	out.R, out.RG = math.Sqrt(StdNoiseVar), math.Sqrt(StdNoiseVar)
	out.NoiseVar = StdNoiseVar
	out.Slater = StdSlater
	out.LipG, out.SafeCosts = 0, nil
	return out
}

// Adaptive is a GP model whose observations are standardised and whose
// hyperparameters are learned from the data, each optional (the practical
// defaults; docs/defaults.md).
//
// Standardisation: the inner GP (zero prior mean) sees ỹ = (y − m)/s, with
// m the mean and s the standard deviation (population, as scikit-learn's
// normalize_y) of the raw observations; s falls back to |m| when the
// values do not spread (s ≤ 1e-12·|m|, e.g. one observation) and to 1 when
// they are all 0, so s always moves with the metric's units. An objective
// is reported as (f − m)/s; a constraint is only scaled: the inner GP sees
// g/s, so its prior mean 0 is the threshold (an unexplored point is as
// likely feasible as not, and a constraint's optimistic widths make it a
// candidate: docs/defaults.md measures the alternative, prior mean at the
// observed mean m/s, which stops exploring when most observations are
// infeasible), and its 0 level (g ≤ 0 feasible) is mapped with the units. An
// affine change y → a·y + b (a > 0) of an objective's units, or y → a·y of
// a constraint's (the service subtracts the threshold, which moves with the
// units), leaves the reported posterior unchanged up to rounding.
//
// Hyperparameters: with Fit, an ARD Matérn-5/2 kernel's variance and
// lengthscales and the noise variance λ maximise the log marginal
// likelihood of the (standardised) data (gp.FitHyper, bounded type-II ML:
// Rasmussen & Williams 2006, §5.4.1): the first fit from every start of
// gp.DefaultStarts (scaled to the box and the data's variance), later fits
// warm started at the previous optimum plus one of those starts in turn;
// each run stops at the L-BFGS-B tolerances scikit-learn uses (scipy's
// defaults: projected gradient 1e-5, relative gain 2.2e-9).
// With CentredFit a constraint's hyperparameters are fitted to its values
// about their mean instead (as an objective's), and its kernel's variance
// is the fitted one plus the squared mean, so the prior at the threshold
// still covers how far the values lie from it (opt-in constraint-fit =
// centred; docs/defaults.md measures both).
//
// Schedule: m, s and the hyperparameters are refreshed when the number of
// observations reaches 1, 2, 4, 8, … (a fit needs at least 2(d+2)); at a
// refresh the inner GP is rebuilt and all observations replayed (O(n³)),
// between refreshes an observation is a rank-one update with the current
// m, s. The doubling schedule bounds the amortised cost per round by a
// constant times the cost of an update (the total replay work up to n is
// at most twice that of the last replay), and keeps the posterior — and so
// the decisions — from being recomputed every round. Deterministic: the
// state is a function of the observations in order.
//
// An Adaptive model owns its factorisation (it shares none with other
// models, since its kernel may differ from theirs after a fit).
type Adaptive struct {
	dom        domain.Domain
	inducing   int
	cands      [][]float64
	inner      Model
	k0         gp.Kernel
	lam0       float64
	k          gp.Kernel
	lam        float64
	std, fit   bool
	constraint bool
	centredFit bool // AdaptiveOptions.CentredFit
	// warp > 0 (a constraint, Warp): the inner GP sees bilog(y/knee)/s,
	// knee = warp times the raw values' spread at the last refresh.
	warp, knee float64
	// meanPrior (a constraint, SetMeanPrior): the inner GP sees its values
	// less their mean off, added back to every predicted mean.
	meanPrior bool
	off       float64
	dimPrior  bool // AdaptiveOptions.DimPrior
	// Noisy (SetNoisy): the fit's priors (NoisyPriorOptuna: GPSampler's)
	// and the refits every `every` observations below DeferFrom (at every
	// count with everyAfter, SetRefitEvery).
	noisyPrior int
	every      int
	everyAfter bool
	side       []float64 // box sides (lengthscale starts and bounds); nil on arms without a box
	acts       []bandit.Action
	ys         []float64
	m, s       float64
	next       int
	theta      []float64 // last fit (nil before the first)
	fits       int       // number of fits so far
	// Deferred refits (AdaptiveOptions.Defer): the refit started at count
	// from is swapped in at count due (0: none pending).
	deferFit  bool
	from, due int
	// job is the refit started at from, running off the caller's path.
	// Not part of the state (transient to the snapshot codec,
	// service/snap): without it, join recomputes the same refit.
	job *fitJob `snap:"-"`
}

// SnapshotTypes declares to the service's snapshot codec (service/snap)
// the kernel a fit puts in place of the prior one: gp.ARD.
func (*Adaptive) SnapshotTypes() []any { return []any{gp.ARD{}} }

// AdaptiveOptions configure NewAdaptive.
type AdaptiveOptions struct {
	// Standardise and Fit switch the two blocks on (see Adaptive).
	Standardise, Fit bool
	// Constraint marks a constraint function (its 0 level is kept).
	Constraint bool
	// Defer (with Fit): a refit due at count n is computed off the
	// caller's path and swapped in at count n + RefitLag(n) (see
	// Adaptive); without it, in the Observe that reaches n.
	Defer bool
	// CentredFit (constraints, with Fit): fit the hyperparameters to the
	// values centred at their mean, as for an objective, and give the
	// kernel the signal variance σ²_c + m̄² (m̄ the mean of the values the
	// inner GP sees, i.e. their mean distance from the threshold), keeping
	// the prior mean at the threshold. Without it the fit sees the values
	// about the threshold, and a kernel that must also carry their offset
	// from it (see Adaptive).
	CentredFit bool
	// Inducing > 0 makes the inner GP a SparseBox with that many inducing
	// points (box domains).
	Inducing int
	// Candidates are the inner GP's candidate points on a box (nil:
	// DefaultGrid).
	Candidates [][]float64
	// DimPrior (with Fit) replaces the lengthscale prior Gamma(3, 6) by the
	// dimension-scaled LogNormal(√2 + ln(d)/2, √3) of Hvarfner, Hellsten &
	// Nardi 2024 (ICML, "Vanilla Bayesian optimization performs great in
	// high dimensions"; BoTorch's default since 0.12), on ℓ_d/side_d.
	DimPrior bool
}

// NewAdaptive returns the model of a function on dom with prior kernel k and
// noise variance λ: an exact GP (Arms or Box, as For; a SparseBox with
// o.Inducing) wrapped with standardisation and hyperparameter fitting as o
// says. Fitting needs coordinates (a box, or arms with points). The model
// holds data only (no closures) besides its running refit, so the
// service's snapshot codec can save and restore it.
func NewAdaptive(dom domain.Domain, k gp.Kernel, lam float64, o AdaptiveOptions) (*Adaptive, error) {
	a := &Adaptive{dom: dom, inducing: o.Inducing, cands: o.Candidates, k0: k, lam0: lam, k: k, lam: lam,
		std: o.Standardise, fit: o.Fit, deferFit: o.Defer, dimPrior: o.DimPrior, constraint: o.Constraint, centredFit: o.CentredFit && o.Constraint, s: 1, next: 1}
	inner, err := a.newInner(k, lam)
	if err != nil {
		return nil, err
	}
	a.inner = inner
	if a.fit {
		switch d := dom.(type) {
		case *domain.Box:
			for i := range d.Lo {
				a.side = append(a.side, d.Hi[i]-d.Lo[i])
			}
		case *domain.Finite:
			if d.Points == nil {
				return nil, fmt.Errorf("model: hyper = fit needs arm coordinates, the domain has none")
			}
			a.side = pointSpread(d.Points)
		default:
			return nil, fmt.Errorf("model: hyper = fit: domain %s is not supported", dom)
		}
	}
	return a, nil
}

// newInner builds an empty inner GP with kernel k and noise variance λ.
func (a *Adaptive) newInner(k gp.Kernel, lam float64) (Model, error) {
	if b, ok := a.inner.(*Box); ok { // the same box and candidates
		return b.renew(k, lam)
	}
	if a.inducing == 0 {
		if box, ok := a.dom.(*domain.Box); ok && a.cands != nil {
			return NewBox(box, k, lam, a.cands)
		}
		m, err := For(bandit.Info{Domain: a.dom}, k, lam)
		if err == nil {
			sharePrior(a.inner, m)
		}
		return m, err
	}
	box, ok := a.dom.(*domain.Box)
	if !ok {
		return nil, fmt.Errorf("model: inducing = %d: the sparse GP applies to box domains, not %s", a.inducing, a.dom)
	}
	return NewSparseBox(box, k, lam, a.cands, a.inducing, nil)
}

// pointSpread is the range of the points in each coordinate (1 where 0).
func pointSpread(pts [][]float64) []float64 {
	d := len(pts[0])
	s := make([]float64, d)
	for i := 0; i < d; i++ {
		lo, hi := math.Inf(1), math.Inf(-1)
		for _, x := range pts {
			lo, hi = math.Min(lo, x[i]), math.Max(hi, x[i])
		}
		s[i] = hi - lo
		if !(s[i] > 0) {
			s[i] = 1
		}
	}
	return s
}

// Len implements Model.
func (a *Adaptive) Len() int { return a.inner.Len() }

// Action implements Model.
func (a *Adaptive) Action(i int) bandit.Action { return a.inner.Action(i) }

// Observe implements Model. y must be finite.
func (a *Adaptive) Observe(act bandit.Action, y float64) error {
	if math.IsNaN(y) || math.IsInf(y, 0) {
		return fmt.Errorf("model: observation y = %v: must be finite", y)
	}
	saved := *a
	act.X = append([]float64(nil), act.X...) // replayed later: keep a copy
	a.acts = append(a.acts, act)
	a.ys = append(a.ys, y)
	n := len(a.ys)
	var err error
	switch {
	case a.due > 0 && n == a.due:
		err = a.join()
	case n >= a.next || a.early(n):
		doubling := n >= a.next
		for a.next <= n {
			a.next *= 2
		}
		if !doubling {
			a.job, a.from, a.due = nil, 0, 0 // a deferred refit under way: this one is newer
		}
		if a.fit && a.deferred(n) && doubling {
			a.start()
			err = a.inner.Observe(act, a.tr(y))
		} else {
			err = a.refresh()
		}
	default:
		err = a.inner.Observe(act, a.tr(y))
	}
	if err != nil {
		*a = saved // a refresh built a new inner GP: the old one is intact
	}
	return err
}

// Refreshes reports whether the next observation refreshes the model (the
// doubling schedule's rebuild, with Fit a refit, or a deferred refit's
// swap): the observations that cost more than a rank-one update.
func (a *Adaptive) Refreshes() bool {
	n := len(a.ys) + 1
	return n >= a.next || (a.due > 0 && n == a.due) || a.early(n)
}

// tr is y in the inner GP's units.
func (a *Adaptive) tr(y float64) float64 { return unit(y, a.m, a.s, a.knee, a.constraint) - a.off }

// SetMeanPrior puts a constraint's prior mean at its observed mean (on) or
// at the threshold (off, NewAdaptive's), and refreshes the model.
func (a *Adaptive) SetMeanPrior(on bool) error {
	if !a.constraint || a.meanPrior == on {
		return nil
	}
	saved := *a
	a.meanPrior, a.job, a.from, a.due = on, nil, 0, 0
	if !on {
		a.off = 0
	}
	if err := a.refresh(); err != nil {
		*a = saved
		return err
	}
	return nil
}

// MeanPrior reports whether the prior mean is the observed mean
// (SetMeanPrior).
func (a *Adaptive) MeanPrior() bool { return a.meanPrior }

// shift adds the mean prior's offset to means.
func (a *Adaptive) shift(mean []float64) {
	if a.off != 0 && mean != nil {
		for i := range mean {
			mean[i] += a.off
		}
	}
}

// unit is y in the units of standardisation m, s (a constraint is only
// scaled, after bilog(y/knee) when knee > 0).
func unit(y, m, s, knee float64, constraint bool) float64 {
	if constraint {
		if knee > 0 {
			y = Bilog(y / knee)
		}
		return y / s
	}
	return (y - m) / s
}

// Bilog is sign(y)·log(1 + |y|): the identity near 0, logarithmic far
// from it, 0 kept at 0 (SCBO's transform of the constraints, Eriksson &
// Poloczek 2021, §3).
func Bilog(y float64) float64 {
	return math.Copysign(math.Log1p(math.Abs(y)), y)
}

// Warp turns on (share > 0) the bilog transform of a constraint's
// observations: from now on the inner GP sees bilog(y/knee)/s, with knee =
// share times the raw values' standard deviation (so the transform is
// unit-free) and s the transformed values' scale, both refreshed with m and
// s; the model is rebuilt and refitted at once. The posterior is then on
// the transformed scale, whose 0 is the threshold: a decision that compares
// μ ± βσ with 0 reads it as before. A deferred refit under way is dropped
// (the rebuild replaces it). A no-op on an objective or when already on.
func (a *Adaptive) Warp(share float64) error {
	if !a.constraint || a.warp == share || share <= 0 {
		return nil
	}
	saved := *a
	a.warp, a.job, a.from, a.due = share, nil, 0, 0
	if err := a.refresh(); err != nil {
		*a = saved
		return err
	}
	return nil
}

// Warped reports whether the inner GP sees the constraint's values through
// bilog (Warp): its posterior is then not in the metric's units.
func (a *Adaptive) Warped() bool { return a.warp > 0 }

// Unwarp maps a warped constraint's posterior mean and standard deviation
// (the inner GP's units) to the metric's: the mean through the inverse
// transform (the posterior's median maps to the median), the standard
// deviation by the delta method, knee·s·e^{|s·mean|}·sd.
func (a *Adaptive) Unwarp(mean, sd float64) (float64, float64) {
	z := a.s * mean
	return a.knee * math.Copysign(math.Expm1(math.Abs(z)), z), a.knee * a.s * math.Exp(math.Abs(z)) * sd
}

// Units is a value of the metric in the units of the posterior (Predict's):
// standardised, and for a warped constraint through bilog.
func (a *Adaptive) Units(y float64) float64 { return unit(y, a.m, a.s, a.knee, a.constraint) }

// Standardisation returns the current m and s (0 and 1 without
// standardisation).
func (a *Adaptive) Standardisation() (m, s float64) { return a.m, a.s }

// Kernel returns the current kernel and noise variance (the fitted ones
// after a fit).
func (a *Adaptive) Kernel() (gp.Kernel, float64) { return a.k, a.lam }

// Fitted reports whether the hyperparameters have been fitted to the data
// (before the first fit the kernel and noise variance are the prior's).
func (a *Adaptive) Fitted() bool { return a.theta != nil }

// refreshed is what a refresh computes from the first n observations: m,
// s, the hyperparameters (fitted or not) and a new inner GP holding those n
// observations.
type refreshed struct {
	m, s  float64
	off   float64   // meanPrior's shift
	knee  float64   // Warp's knee (0: no transform)
	theta []float64 // nil: not fitted
	k     gp.Kernel
	lam   float64
	inner Model
}

// refresh recomputes m, s and (with fit) the hyperparameters, then builds a
// new inner GP and replays every observation into it (the old one is left
// as it was, so a failure can be undone by the caller).
func (a *Adaptive) refresh() error {
	fit := a.fit && len(a.ys) >= FirstFit(len(a.side))
	r, err := a.compute(a.acts, a.ys, a.k, a.lam, a.theta, a.fits, fit)
	if err != nil {
		return err
	}
	if fit {
		a.fits++
	}
	a.apply(r)
	return nil
}

// apply makes r the current state.
func (a *Adaptive) apply(r *refreshed) {
	a.m, a.s, a.knee, a.k, a.lam, a.inner, a.off = r.m, r.s, r.knee, r.k, r.lam, r.inner, r.off
	if r.theta != nil {
		a.theta = r.theta
	}
}

// compute is the refresh at the observations acts, raw with kernel k and
// noise variance lam, or with fit the hyperparameters fitted from the
// previous fit theta after fits fits. It reads nothing else of a that
// changes after NewAdaptive, so a deferred refit runs it off the ask's
// path.
func (a *Adaptive) compute(acts []bandit.Action, raw []float64, k gp.Kernel, lam float64, theta []float64, fits int, fit bool) (*refreshed, error) {
	r := &refreshed{s: 1, k: k, lam: lam}
	if a.std {
		r.m, r.s = Standardisation(raw)
	}
	ys := make([]float64, len(raw))
	if a.warp > 0 && a.constraint {
		_, sd := Standardisation(raw)
		r.knee = a.warp * sd
		for i, y := range raw {
			ys[i] = Bilog(y / r.knee)
		}
		r.s = 1
		if a.std {
			_, r.s = Standardisation(ys)
		}
		for i := range ys {
			ys[i] /= r.s
		}
	} else {
		for i, y := range raw {
			ys[i] = unit(y, r.m, r.s, 0, a.constraint)
		}
	}
	if a.meanPrior && a.constraint && len(ys) > 0 {
		for _, y := range ys {
			r.off += y
		}
		r.off /= float64(len(ys))
		for i := range ys {
			ys[i] -= r.off
		}
	}
	if fit {
		var err error
		var ard gp.ARD
		if r.theta, ard, r.lam, err = a.refit(acts, ys, theta, fits); err != nil {
			return nil, err
		}
		r.k = ard
	}
	inner, err := a.newInner(r.k, r.lam)
	if err != nil {
		return nil, err
	}
	if b, ok := inner.(*Box); ok {
		b.c.Reserve(2 * len(acts)) // the rows until the next refresh (doubling schedule)
	}
	if b, ok := inner.(*Box); ok && a.deferFit {
		err = b.observeAll(acts, ys) // refit=deferred's rebuild
	} else {
		for i, act := range acts {
			if err = inner.Observe(act, ys[i]); err != nil {
				break
			}
		}
	}
	if err != nil {
		return nil, err
	}
	r.inner = inner
	return r, nil
}

// DeferFrom is the count from which refit = deferred defers a refit in d
// dimensions: 8(d+2), the third fit of the doubling schedule (32 in 2-D).
// The fits before it see at most 8(d+2) points and cost little; made in
// the ask, they set the early exploration, which a lag there changed
// enough to send a gardner trial to the far feasible disk for good
// (docs/defaults.md, "No stuck runs").
func DeferFrom(d int) int { return 4 * FirstFit(d) }

// deferred reports whether the refit at count n is deferred.
func (a *Adaptive) deferred(n int) bool { return a.deferFit && n >= DeferFrom(len(a.side)) }

// RefitLag is how many observations after a deferred refit's count n it
// is swapped in: n/4 (at least 1). Fixed by n, so the decisions are the
// same whether the fit finished early or late (or was recomputed after a
// restore from a snapshot); long enough for a fit to finish off the path
// in a service (docs/defaults.md, "Cost"), short against the n/2 more observations the
// fit serves before the next one.
func RefitLag(n int) int { return max(1, n/4) }

// Standardisation returns the mean m and the scale s of ys that standardise
// them: s is their population standard deviation, |m| when they do not
// spread (s ≤ 10⁻¹² |m|), 1 when they are all 0 (or there are none), so s
// moves with the metric's units (×a gives ×|a| up to rounding). Every
// standardised agent uses this rule.
func Standardisation(ys []float64) (m, s float64) {
	n := len(ys)
	if n == 0 {
		return 0, 1
	}
	for _, y := range ys {
		m += y
	}
	m /= float64(n)
	var ss float64
	for _, y := range ys {
		ss += (y - m) * (y - m)
	}
	return m, ScaleOf(m, math.Sqrt(ss/float64(n)))
}

// ScaleOf is the rule of Standardisation for values of mean m and
// population standard deviation sd.
func ScaleOf(m, sd float64) float64 {
	switch {
	case sd > 1e-12*math.Abs(m):
		return sd
	case m != 0:
		return math.Abs(m)
	}
	return 1
}

// Mean implements Model.
func (a *Adaptive) Mean() []float64 {
	if a.off == 0 {
		return a.inner.Mean()
	}
	m := slices.Clone(a.inner.Mean())
	a.shift(m)
	return m
}

// Var implements Model (variances in standardised units).
func (a *Adaptive) Var() []float64 { return a.inner.Var() }

// Cov implements Model.
func (a *Adaptive) Cov(dst []float64) { a.inner.Cov(dst) }

// InfoGain implements Model (of the inner GP, with the current λ).
func (a *Adaptive) InfoGain() float64 { return a.inner.InfoGain() }

// Count implements Model.
func (a *Adaptive) Count() int { return len(a.ys) }

// Reset implements Model: forgets the observations, the estimates and the
// fitted hyperparameters.
func (a *Adaptive) Reset() {
	a.acts, a.ys = a.acts[:0], a.ys[:0]
	if a.theta != nil { // fitted: back to the prior kernel and λ
		if inner, err := a.newInner(a.k0, a.lam0); err == nil { // built once in NewAdaptive: cannot fail
			a.inner = inner
		}
		a.k, a.lam = a.k0, a.lam0
	}
	a.off = 0
	a.m, a.s, a.knee, a.next, a.theta, a.fits, a.from, a.due, a.job = 0, 1, 0, 1, nil, 0, 0, 0, nil
	a.noisyPrior, a.every, a.everyAfter = NoisyPriorKept, 0, false
	a.inner.Reset()
}

// Predict implements Predictor when the inner model does (NaN otherwise;
// check with AsPredictor).
func (a *Adaptive) Predict(x []float64) (float64, float64) {
	p, ok := a.inner.(Predictor)
	if !ok {
		return math.NaN(), math.NaN()
	}
	mu, v := p.Predict(x)
	return mu + a.off, v
}

// PredictBatch implements BatchPredictor when the inner model does (check
// with AsBatchPredictor).
func (a *Adaptive) PredictBatch(xs [][]float64, mean, variance []float64, dmean, dvar [][]float64) error {
	p, ok := a.inner.(BatchPredictor)
	if !ok {
		return fmt.Errorf("model: %T cannot predict off its candidates", a.inner)
	}
	if err := p.PredictBatch(xs, mean, variance, dmean, dvar); err != nil {
		return err
	}
	a.shift(mean[:min(len(mean), len(xs))])

	return nil
}

// PredictBatchAdjoint implements AdjointPredictor when the inner model
// does (check with AsAdjointPredictor).
func (a *Adaptive) PredictBatchAdjoint(xs [][]float64, mean, variance []float64, dmean, dvar [][]float64) error {
	p, ok := a.inner.(AdjointPredictor)
	if !ok {
		return fmt.Errorf("model: %T has no adjoint gradients", a.inner)
	}
	if err := p.PredictBatchAdjoint(xs, mean, variance, dmean, dvar); err != nil {
		return err
	}
	a.shift(mean[:min(len(mean), len(xs))])
	return nil
}

// Gradients implements BatchPredictor.
func (a *Adaptive) Gradients() bool {
	p, ok := a.inner.(BatchPredictor)
	return ok && p.Gradients()
}

// Scale is the standardisation scale s of a model's metric: the s of an
// Adaptive model (1 without standardisation), looking through a sliding
// window; 1 for every other model. Agents divide raw observations they use
// outside the models (e.g. RPOL's penalty, Guo et al. eq. 12) by it, so that those
// too are in standardised units.
func Scale(m Model) float64 {
	if w, ok := m.(*Window); ok {
		m = w.Model
	}
	if a, ok := m.(*Adaptive); ok {
		return a.s
	}
	return 1
}
