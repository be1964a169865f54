// Fitting the hyperparameters: bounded type-II ML or MAP (FitHyper, GammaPrior) from deterministic starts (DefaultStarts), by projected BFGS (maximise.BFGS).

package gp

import (
	"fmt"
	"math"
	"slices"

	"github.com/cbandit/cbandit/maximise"
)

// FitOptions configure FitHyper. Zero values take the defaults named.
type FitOptions struct {
	// Nu is the ARD kernel's smoothness: 0 (SE) or 2.5 (Matérn 5/2).
	Nu float64
	// Lo and Hi bound every entry of theta (default log 1e-5 and log 1e5,
	// scikit-learn's default hyperparameter bounds).
	Lo, Hi []float64
	// Starts are the starting points of the restarts (theta vectors; the
	// warm start first). FitHyper adds none of its own.
	Starts [][]float64
	// MaxIter bounds the BFGS iterations per start (default 200).
	MaxIter int
	// GTol and FTol stop a BFGS run when the largest free gradient entry is
	// below GTol or an accepted step gains at most FTol·max(1, |LML|)
	// (defaults 1e-7 and 1e-12, tighter than scipy's L-BFGS-B defaults
	// that scikit-learn uses: pgtol 1e-5, factr 1e7, i.e. ftol ≈ 2.2e-9).
	GTol, FTol float64
	// Prior, when set, adds a log prior over theta to the log marginal
	// likelihood (maximum a posteriori instead of type-II maximum
	// likelihood); it returns log p(theta) and adds its gradient to grad
	// when grad is not nil (GammaPrior).
	Prior func(theta, grad []float64) float64
}

// GammaPrior is a Gamma(shape, rate) prior on the value e^θ of one
// hyperparameter, as GPyTorch/BoTorch place their priors: log p = (shape −
// 1)·θ − rate·e^θ + const (no Jacobian: the density is of the value).
type GammaPrior struct{ Shape, Rate float64 }

// LogAt returns log p at θ (up to a constant) and its derivative in θ.
func (g GammaPrior) LogAt(theta float64) (float64, float64) {
	e := math.Exp(theta)
	return (g.Shape-1)*theta - g.Rate*e, (g.Shape - 1) - g.Rate*e
}

// FitHyper maximises LogMarginal over theta in the box [Lo, Hi] (type-II
// maximum likelihood, Rasmussen & Williams 2006, §5.4.1) from every start
// with a projected quasi-Newton method (BFGS on the free coordinates,
// Armijo backtracking, an active bound drops its coordinate from the
// inverse-Hessian approximation), and returns the best theta and its log
// marginal likelihood. Deterministic: the result depends only on the
// arguments. Starts at which K + λI is not positive definite are skipped;
// an error is returned when every start fails.
func FitHyper(xs [][]float64, ys []float64, o FitOptions) ([]float64, float64, error) {
	if len(xs) == 0 {
		return nil, 0, fmt.Errorf("gp: FitHyper: no observations")
	}
	p := len(xs[0]) + 2
	lo, hi := o.Lo, o.Hi
	if lo == nil {
		lo = constVec(p, math.Log(1e-5))
	}
	if hi == nil {
		hi = constVec(p, math.Log(1e5))
	}
	if len(lo) != p || len(hi) != p {
		return nil, 0, fmt.Errorf("gp: FitHyper: bounds have %d and %d entries, want %d", len(lo), len(hi), p)
	}
	if len(o.Starts) == 0 {
		return nil, 0, fmt.Errorf("gp: FitHyper: no starting point")
	}
	iters := o.MaxIter
	if iters <= 0 {
		iters = 200
	}
	tol := maximise.BFGSTol{Iters: iters, GTol: o.GTol, FTol: o.FTol}
	if tol.GTol <= 0 {
		tol.GTol = 1e-7
	}
	if tol.FTol <= 0 {
		tol.FTol = 1e-12
	}
	var (
		best    []float64
		bestVal = math.Inf(-1)
		lastErr error
	)
	for s, st := range o.Starts {
		if len(st) != p {
			return nil, 0, fmt.Errorf("gp: FitHyper: start %d has %d entries, want %d", s, len(st), p)
		}
		th, v, err := maximise.BFGS(objective(o.Nu, xs, ys, o.Prior), st, lo, hi, tol)
		if err != nil {
			lastErr = err
			continue
		}
		if v > bestVal {
			best, bestVal = th, v
		}
	}
	if best == nil {
		return nil, 0, fmt.Errorf("gp: FitHyper: every start failed: %w", lastErr)
	}
	return best, bestVal, nil
}

func constVec(n int, v float64) []float64 {
	x := make([]float64, n)
	for i := range x {
		x[i] = v
	}
	return x
}

// objective is the log marginal likelihood plus the log prior (when set).
// It keeps its last evaluation: the gradient at the point the line search
// has just accepted reuses that point's factor (the same numbers as a
// fresh evaluation, half the work of the accepted step).
func objective(nu float64, xs [][]float64, ys []float64, prior func(theta, grad []float64) float64) func(theta, grad []float64) (float64, error) {
	var last *lml
	return func(theta, grad []float64) (float64, error) {
		var err error
		if last == nil || !slices.Equal(last.theta, theta) {
			if last, err = newLML(nu, xs, ys, theta, last); err != nil {
				last = nil
				return 0, err
			}
		}
		v := last.val
		if grad != nil {
			if err := last.gradient(grad); err != nil {
				return 0, err
			}
		}
		if prior == nil {
			return v, nil
		}
		return v + prior(theta, grad), nil
	}
}

// DefaultStarts are the deterministic starts of FitHyper for d inputs
// scaled to unit side and standardised outputs: the warm start (when not
// nil) first, then (σ², ℓ, λ) ∈ {(1, 0.2, 0.01), (1, 1, 0.1), (1, 0.05,
// 1e-4), (0.3, 3, 0.5), (3, 0.5, 1e-3)} with equal lengthscales. Our
// choice: a spread over short and long lengthscales and low and high noise,
// in place of scikit-learn's random restarts (uniform in the log bounds).
func DefaultStarts(d int, warm []float64) [][]float64 {
	var out [][]float64
	if warm != nil {
		out = append(out, append([]float64(nil), warm...))
	}
	for _, s := range [][3]float64{{1, 0.2, 0.01}, {1, 1, 0.1}, {1, 0.05, 1e-4}, {0.3, 3, 0.5}, {3, 0.5, 1e-3}} {
		ls := constVec(d, s[1])
		out = append(out, Hyper{Lengthscales: ls, Variance: s[0], NoiseVar: s[2]}.Theta())
	}
	return out
}
