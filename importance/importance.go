// Package importance says which parameters of a study matter: a variance
// decomposition (functional ANOVA) of a Gaussian process's posterior mean
// fitted to the evaluated configurations.
//
// Method (Hutter, Hoos & Leyton-Brown 2014, ICML, "An efficient approach for
// assessing hyperparameter importance"; Sobol' 1993 first-order
// indices): fit an ARD Matérn-5/2 GP to the standardised objective at the
// configurations' unit-cube encoding (hyperparameters by MAP with the
// service's priors, package model; ARD: Neal 1996, Rasmussen & Williams
// 2006, §5.1), take its posterior mean m, and for each parameter i the
// variance V_i over x_i of its main effect E[m(x) | x_i] under the uniform
// distribution over the space. Hutter et al. decompose a random forest's
// prediction exactly over the trees' partitions (as Optuna's fANOVA
// importance does); here the expectation is a quasi-Monte Carlo average
// over a Halton sample of the other parameters, and x_i runs over a grid of
// 16 cell midpoints (a float or int) or over the choices (a categorical,
// one-hot). The importance of i is V_i / Σ_j V_j (summing to 1, Optuna's
// normalisation); its first-order share V_i / Var m is reported beside it,
// and their sum, the share of Var m the main effects explain (the rest is
// interactions).
//
// Deterministic: the fit (gp.FitHyper from fixed starts), the Halton
// sample and every sum run in a fixed order, so the same observations give
// the same numbers, bit for bit.
package importance

import (
	"errors"
	"fmt"
	"math"
	"sort"

	"github.com/cbandit/cbandit/domain"
	"github.com/cbandit/cbandit/gp"
	"github.com/cbandit/cbandit/model"
)

// Method names the computation in answers.
const Method = "fanova-gp"

// Sizes of the computation (our choice): the base sample of the other
// parameters, the grid of a continuous parameter, and the observations the
// posterior mean conditions on (an evenly strided subset beyond it; the
// fit itself sees at most model.FitMaxPoints of them).
const (
	Samples   = 256
	Grid      = 16
	MaxPoints = 256
)

// Param is one named parameter's place in the encoding: Coords
// consecutive coordinates of the unit cube, one for a float or int, one per
// choice for a categorical (OneHot).
type Param struct {
	Name   string
	Coords int
	OneHot bool
}

// Entry is one parameter's importance.
type Entry struct {
	Name string
	// Importance is V_i / Σ_j V_j: the parameters' importances sum to 1.
	Importance float64
	// FirstOrder is V_i / Var m, the share of the posterior mean's
	// variance that x_i alone explains.
	FirstOrder float64
}

// Result is the importance of every parameter, most important first
// (ties in the parameters' order).
type Result struct {
	Entries []Entry
	// Observations is the number of evaluated configurations used.
	Observations int
	// Explained is Σ_i FirstOrder_i (≤ 1 up to sampling error).
	Explained float64
	// Lengthscales are the fitted ARD lengthscales, one per coordinate of
	// the encoding (unit cube).
	Lengthscales []float64
}

// TooFewError is returned when there are fewer observations than a fit
// needs.
type TooFewError struct{ Have, Need int }

func (e *TooFewError) Error() string {
	return fmt.Sprintf("%d evaluated configurations with an objective value, at least %d needed (two per hyperparameter of the GP: model.FirstFit)", e.Have, e.Need)
}

// ErrFlat is returned when the objective, or the fitted posterior mean,
// does not vary: no parameter explains anything.
var ErrFlat = errors.New("the objective does not vary over the evaluated configurations: no parameter explains any of it")

// Need is the number of observations Compute needs for an encoding of dim
// coordinates: model.FirstFit(dim), as the learner's own first fit.
func Need(dim int) int { return model.FirstFit(dim) }

// Compute returns the importance of params (in encoding order, covering
// every coordinate of xs) from the objective values ys at the encoded
// configurations xs (each in [0, 1]^dim).
func Compute(xs [][]float64, ys []float64, params []Param) (Result, error) {
	dim := 0
	for i, p := range params {
		if p.Coords < 1 {
			return Result{}, fmt.Errorf("importance: params[%d] (%s): coords = %d, want ≥ 1", i, p.Name, p.Coords)
		}
		dim += p.Coords
	}
	if len(params) == 0 {
		return Result{}, fmt.Errorf("importance: no parameter")
	}
	if len(xs) != len(ys) {
		return Result{}, fmt.Errorf("importance: %d configurations and %d values", len(xs), len(ys))
	}
	for i, x := range xs {
		if len(x) != dim {
			return Result{}, fmt.Errorf("importance: configuration %d has %d coordinates, the parameters encode to %d", i, len(x), dim)
		}
	}
	if need := Need(dim); len(ys) < need {
		return Result{}, &TooFewError{Have: len(ys), Need: need}
	}
	xs, ys = model.FitSubset(xs, ys, MaxPoints)
	// Standardise (population variance, as model.Adaptive).
	var mean, v float64
	for _, y := range ys {
		mean += y
	}
	mean /= float64(len(ys))
	for _, y := range ys {
		v += (y - mean) * (y - mean)
	}
	v /= float64(len(ys))
	if !(v > 1e-24*math.Max(1, mean*mean)) {
		return Result{}, ErrFlat
	}
	sd := math.Sqrt(v)
	zs := make([]float64, len(ys))
	for i, y := range ys {
		zs[i] = (y - mean) / sd
	}
	h, err := fit(xs, zs, dim)
	if err != nil {
		return Result{}, err
	}
	alpha, err := solve(h, xs, zs)
	if err != nil {
		return Result{}, err
	}
	res := Result{Observations: len(ys), Lengthscales: h.Lengthscales}
	vs, total := decompose(h, xs, alpha, params)
	var sum float64
	for _, vi := range vs {
		sum += vi
	}
	if !(sum > 1e-12*total) || !(total > 1e-18) {
		return Result{}, ErrFlat
	}
	for i, p := range params {
		e := Entry{Name: p.Name, Importance: vs[i] / sum, FirstOrder: math.Min(1, vs[i]/total)}
		res.Explained += e.FirstOrder
		res.Entries = append(res.Entries, e)
	}
	sort.SliceStable(res.Entries, func(a, b int) bool { return res.Entries[a].Importance > res.Entries[b].Importance })
	return res, nil
}

// fit fits the ARD Matérn-5/2 hyperparameters to standardised values on the
// unit cube, as model.Adaptive's refit does with unit sides and unit data
// variance: MAP with model's Gamma priors, σ² ∈ [0.01, 100], ℓ_d ∈ [0.01,
// 100], λ ∈ [1e-6, 1], from gp.DefaultStarts.
func fit(xs [][]float64, zs []float64, dim int) (gp.Hyper, error) {
	fx, fz := model.FitSubset(xs, zs, model.FitMaxPoints)
	lo, hi := make([]float64, dim+2), make([]float64, dim+2)
	lo[0], hi[0] = math.Log(0.01), math.Log(100)
	for i := 1; i <= dim; i++ {
		lo[i], hi[i] = math.Log(0.01), math.Log(100)
	}
	lo[dim+1], hi[dim+1] = math.Log(1e-6), 0
	prior := func(theta, grad []float64) float64 {
		lp, dv := model.FitPriorVariance.LogAt(theta[0])
		ln, dn := model.FitPriorNoise.LogAt(theta[dim+1])
		lp += ln
		if grad != nil {
			grad[0] += dv
			grad[dim+1] += dn
		}
		for i := 1; i <= dim; i++ {
			l, dl := model.FitPriorLengthscale.LogAt(theta[i])
			lp += l
			if grad != nil {
				grad[i] += dl
			}
		}
		return lp
	}
	th, _, err := gp.FitHyper(fx, fz, gp.FitOptions{Nu: model.FitNu, Lo: lo, Hi: hi, Starts: gp.DefaultStarts(dim, nil),
		GTol: 1e-5, FTol: 2.2e-9, Prior: prior})
	if err != nil {
		return gp.Hyper{}, fmt.Errorf("importance: %w", err)
	}
	return gp.HyperFromTheta(th), nil
}

// matern52 is the Matérn-5/2 kernel of variance s2 at scaled squared
// distance r2 (Rasmussen & Williams 2006, eq. 4.17).
func matern52(s2, r2 float64) float64 {
	r := math.Sqrt(5 * r2)
	return s2 * (1 + r + r*r/3) * math.Exp(-r)
}

// solve returns α = (K + λI)⁻¹ z by a Cholesky factorisation.
func solve(h gp.Hyper, xs [][]float64, zs []float64) ([]float64, error) {
	n := len(xs)
	k, err := gp.NewARD(model.FitNu, h.Lengthscales, h.Variance)
	if err != nil {
		return nil, fmt.Errorf("importance: %w", err)
	}
	L := make([]float64, n*n)
	for i := range n {
		for j := 0; j <= i; j++ {
			L[i*n+j] = k.Eval(xs[i], xs[j])
		}
		L[i*n+i] += h.NoiseVar
	}
	for j := range n {
		s := L[j*n+j]
		for m := range j {
			s -= L[j*n+m] * L[j*n+m]
		}
		if !(s > 0) {
			return nil, fmt.Errorf("importance: K + λI is not positive definite at row %d (λ = %v)", j, h.NoiseVar)
		}
		d := math.Sqrt(s)
		L[j*n+j] = d
		for i := j + 1; i < n; i++ {
			t := L[i*n+j]
			for m := range j {
				t -= L[i*n+m] * L[j*n+m]
			}
			L[i*n+j] = t / d
		}
	}
	a := append([]float64(nil), zs...)
	for i := range n { // L u = z
		s := a[i]
		for m := range i {
			s -= L[i*n+m] * a[m]
		}
		a[i] = s / L[i*n+i]
	}
	for i := n - 1; i >= 0; i-- { // Lᵀ α = u
		s := a[i]
		for m := i + 1; m < n; m++ {
			s -= L[m*n+i] * a[m]
		}
		a[i] = s / L[i*n+i]
	}
	return a, nil
}

// levels lists the values of a parameter's coordinates that its main
// effect runs over: Grid cell midpoints of [0, 1], or each choice one-hot.
func levels(p Param) [][]float64 {
	if p.OneHot {
		out := make([][]float64, p.Coords)
		for c := range out {
			out[c] = make([]float64, p.Coords)
			out[c][c] = 1
		}
		return out
	}
	out := make([][]float64, Grid)
	for g := range out {
		out[g] = []float64{(float64(g) + 0.5) / Grid}
	}
	return out
}

// decompose returns each parameter's main-effect variance V_i and the
// variance of the posterior mean, both under the uniform distribution over
// the parameters' levels, estimated on the Halton base sample.
func decompose(h gp.Hyper, xs [][]float64, alpha []float64, params []Param) ([]float64, float64) {
	n := len(xs)
	inv := make([]float64, len(h.Lengthscales))
	for d, l := range h.Lengthscales {
		inv[d] = 1 / (l * l)
	}
	off := make([]int, len(params)+1)
	lv := make([][][]float64, len(params))
	for i, p := range params {
		off[i+1] = off[i] + p.Coords
		lv[i] = levels(p)
	}
	// The base sample: one Halton coordinate per parameter mapped to one of
	// its levels.
	base := domain.Halton(Samples, len(params))
	bx := make([][]float64, Samples)
	for b, u := range base {
		x := make([]float64, off[len(params)])
		for i := range params {
			k := min(int(u[i]*float64(len(lv[i]))), len(lv[i])-1)
			copy(x[off[i]:off[i+1]], lv[i][k])
		}
		bx[b] = x
	}
	// r2[b][j]: scaled squared distance of base point b to observation j;
	// part(i, x, j): the share of parameter i's coordinates in it.
	part := func(i int, x []float64, j int) float64 {
		var s float64
		for d := off[i]; d < off[i+1]; d++ {
			t := x[d-off[i]] - xs[j][d]
			s += t * t * inv[d]
		}
		return s
	}
	r2 := make([][]float64, Samples)
	var mm, m2 float64
	for b, x := range bx {
		r2[b] = make([]float64, n)
		var m float64
		for j := range n {
			var s float64
			for i := range params {
				s += part(i, x[off[i]:off[i+1]], j)
			}
			r2[b][j] = s
			m += matern52(h.Variance, s) * alpha[j]
		}
		mm += m
		m2 += m * m
	}
	mm /= Samples
	total := math.Max(0, m2/Samples-mm*mm)
	vs := make([]float64, len(params))
	for i := range params {
		// rest[b][j]: r2 without parameter i's share, to which each
		// level's share is added.
		rest := make([][]float64, Samples)
		for b, x := range bx {
			rest[b] = make([]float64, n)
			for j := range n {
				rest[b][j] = math.Max(0, r2[b][j]-part(i, x[off[i]:off[i+1]], j))
			}
		}
		effects := make([]float64, len(lv[i]))
		at := make([]float64, n)
		for k, l := range lv[i] {
			for j := range n {
				at[j] = part(i, l, j)
			}
			var s float64
			for b := range bx {
				var m float64
				for j, r := range rest[b] {
					m += matern52(h.Variance, r+at[j]) * alpha[j]
				}
				s += m
			}
			effects[k] = s / Samples
		}
		var e, e2 float64
		for _, f := range effects {
			e += f
			e2 += f * f
		}
		e /= float64(len(effects))
		vs[i] = math.Max(0, e2/float64(len(effects))-e*e)
	}
	return vs, total
}
