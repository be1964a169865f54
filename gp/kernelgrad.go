package gp

import "math"

// GradKernel is a kernel with a closed-form gradient in its second
// argument. The batched posterior (Exact.PredictBatch) uses it for the
// gradients of the posterior mean and variance.
type GradKernel interface {
	Kernel
	// Grad writes ∂k(x, y)/∂y into dst (len(y) entries) and returns k(x, y).
	// It returns NaN (and leaves dst unspecified) if len(x) != len(y).
	Grad(x, y, dst []float64) float64
}

// Grad implements GradKernel: ∂k/∂y = k(x, y)·(x − y)/ℓ².
func (k SE) Grad(x, y, dst []float64) float64 {
	v := k.Eval(x, y)
	c := v / (k.Lengthscale * k.Lengthscale)
	for i := range dst {
		dst[i] = c * (x[i] - y[i])
	}
	return v
}

// Grad implements GradKernel, from the closed forms of Matern (with
// r = ‖x−y‖/ℓ, a = √(2ν)·r):
//
//	ν=1.5: ∂k/∂y = 3σ²/ℓ²·e^{−a}·(x−y)
//	ν=2.5: ∂k/∂y = 5σ²/(3ℓ²)·(1+a)·e^{−a}·(x−y)
//	ν=0.5: ∂k/∂y = σ²/ℓ·e^{−r}·(x−y)/‖x−y‖ (0 at x = y, where k is not
//	       differentiable: the one-sided derivatives are ±σ²/ℓ).
func (k Matern) Grad(x, y, dst []float64) float64 {
	v := k.Eval(x, y)
	if math.IsNaN(v) {
		return v
	}
	l2 := k.Lengthscale * k.Lengthscale
	d := math.Sqrt(sqDist(x, y))
	r := d / k.Lengthscale
	var c float64
	switch k.Nu {
	case 0.5:
		if d > 0 {
			c = k.Variance * math.Exp(-r) / (k.Lengthscale * d)
		}
	case 1.5:
		c = 3 * k.Variance / l2 * math.Exp(-math.Sqrt(3)*r)
	case 2.5:
		a := math.Sqrt(5) * r
		c = 5 * k.Variance / (3 * l2) * (1 + a) * math.Exp(-a)
	}
	for i := range dst {
		dst[i] = c * (x[i] - y[i])
	}
	return v
}

// Grad implements GradKernel: ∂k/∂y = Variance·x.
func (k Linear) Grad(x, y, dst []float64) float64 {
	v := k.Eval(x, y)
	for i := range dst {
		dst[i] = k.Variance * x[i]
	}
	return v
}
