// The ARD kernel: one lengthscale per input (SE or Matérn 5/2), its rows and columns, and its gradient in the log hyperparameters.

package gp

import (
	"fmt"
	"math"
	"strings"
)

// ARD is a stationary kernel with one lengthscale per input dimension
// (automatic relevance determination; Rasmussen & Williams 2006, §5.1,
// eq. 5.2): with r² = Σ_d (x_d − y_d)²/ℓ_d²,
//
//	Nu = 0 (squared exponential): k = Variance·exp(−r²/2)
//	Nu = 2.5 (Matérn 5/2):        k = Variance·(1 + √5 r + 5r²/3)·exp(−√5 r)
//
// It is the kernel whose hyperparameters FitHyper learns. A slice field
// makes it incomparable, so models built on it never share a factor.
type ARD struct {
	Nu           float64
	Lengthscales []float64
	Variance     float64
}

// NewARD checks and returns an ARD kernel (Nu 0 or 2.5, lengthscales and
// variance finite and > 0).
func NewARD(nu float64, lengthscales []float64, variance float64) (ARD, error) {
	if nu != 0 && nu != 2.5 {
		return ARD{}, fmt.Errorf("gp: ARD nu = %v: must be 0 (SE) or 2.5 (Matérn 5/2)", nu)
	}
	if len(lengthscales) == 0 {
		return ARD{}, fmt.Errorf("gp: ARD lengthscales: empty")
	}
	for i, l := range lengthscales {
		if err := checkPositive(fmt.Sprintf("lengthscale[%d]", i), l); err != nil {
			return ARD{}, err
		}
	}
	if err := checkPositive("variance", variance); err != nil {
		return ARD{}, err
	}
	return ARD{Nu: nu, Lengthscales: append([]float64(nil), lengthscales...), Variance: variance}, nil
}

func (k ARD) r2(x, y []float64) float64 {
	if len(x) != len(y) || len(x) != len(k.Lengthscales) {
		return math.NaN()
	}
	var s float64
	for i, l := range k.Lengthscales {
		d := (x[i] - y[i]) / l
		s += d * d
	}
	return s
}

// Eval implements Kernel (NaN on a dimension mismatch).
func (k ARD) Eval(x, y []float64) float64 { return k.at(k.r2(x, y)) }

// at is k at the scaled squared distance r2.
func (k ARD) at(r2 float64) float64 {
	if k.Nu == 0 {
		return k.Variance * math.Exp(-r2/2)
	}
	a := math.Sqrt(5 * r2)
	return k.Variance * (1 + a + a*a/3) * math.Exp(-a)
}

// evalRow writes k(p, xs[j]) into dst[j]. An ARD kernel is evaluated
// inline, in the arithmetic of Eval (which is symmetric in its arguments to
// the bit): through the interface a value cost 4× its arithmetic.
func evalRow(k Kernel, p []float64, xs [][]float64, dst []float64) {
	a, ok := k.(ARD)
	if !ok || len(p) != len(a.Lengthscales) {
		for j, x := range xs {
			dst[j] = k.Eval(p, x)
		}
		return
	}
	ls := a.Lengthscales
	for j, x := range xs {
		if len(x) != len(ls) {
			dst[j] = math.NaN()
			continue
		}
		var s float64
		for i, l := range ls {
			d := (p[i] - x[i]) / l
			s += d * d
		}
		dst[j] = a.at(s)
	}
}

// evalCol writes k(xs[j], p) into dst[j] (evalRow for ARD).
func evalCol(k Kernel, xs [][]float64, p []float64, dst []float64) {
	if _, ok := k.(ARD); ok {
		evalRow(k, p, xs, dst)
		return
	}
	for j, x := range xs {
		dst[j] = k.Eval(x, p)
	}
}

// evalColShape is evalCol for an ARD kernel that also writes into c[j]
// the factor of k(xs[j], p)'s gradient (shape's second value): the values
// are evalRow's to the bit (shape's first value is at's arithmetic), and a
// gradient at p then needs no exponential (solve's cached entries).
func evalColShape(a ARD, xs [][]float64, p []float64, dst, c []float64) {
	ls := a.Lengthscales
	for j, x := range xs {
		if len(x) != len(ls) {
			dst[j], c[j] = math.NaN(), math.NaN()
			continue
		}
		var s float64
		for i, l := range ls {
			d := (p[i] - x[i]) / l
			s += d * d
		}
		dst[j], c[j] = a.shape(s)
	}
}

// shape returns k/Variance and the factor c with ∂k/∂(ℓ_d⁻²(x_d−y_d)²)… in
// the form used by the gradients: ∂k/∂log ℓ_d = c·(x_d−y_d)²/ℓ_d² and
// ∂k/∂y_d = c·(x_d−y_d)/ℓ_d².
func (k ARD) shape(r2 float64) (v, c float64) {
	if k.Nu == 0 {
		v = k.Variance * math.Exp(-r2/2)
		return v, v
	}
	a := math.Sqrt(5 * r2)
	e := math.Exp(-a)
	return k.Variance * (1 + a + a*a/3) * e, k.Variance * 5.0 / 3 * (1 + a) * e
}

// Grad implements GradKernel: ∂k/∂y_d = c·(x_d − y_d)/ℓ_d² with c = k (SE)
// or 5σ²/3·(1+√5 r)e^{−√5 r} (Matérn 5/2).
func (k ARD) Grad(x, y, dst []float64) float64 {
	r2 := k.r2(x, y)
	if math.IsNaN(r2) {
		return r2
	}
	v, c := k.shape(r2)
	for i, l := range k.Lengthscales {
		dst[i] = c * (x[i] - y[i]) / (l * l)
	}
	return v
}

// String implements Kernel.
func (k ARD) String() string {
	ls := make([]string, len(k.Lengthscales))
	for i, l := range k.Lengthscales {
		ls[i] = ff(l)
	}
	name := "ARD-SE"
	if k.Nu == 2.5 {
		name = "ARD-Matern52"
	}
	return name + "(lengthscales=[" + strings.Join(ls, ",") + "], variance=" + ff(k.Variance) + ")"
}
