// Projected BFGS ascent in a box (BFGS), as used by gp.FitHyper.

package maximise

import (
	"math"
)

// BFGSTol stops BFGS: after Iters iterations, when the largest free
// gradient entry is below GTol, or when an accepted step gains at most
// FTol·max(1, |f|) (gp.FitOptions.MaxIter, GTol, FTol).
type BFGSTol struct {
	Iters      int
	GTol, FTol float64
	// Interp: the line search's first trial step is at most one unit of
	// the coordinates on the first iteration and after a restart, the
	// inverse Hessian is scaled before its first update, and a rejected
	// step shrinks by quadratic interpolation (to 0.1–0.5 of itself) and
	// stops below 1e-10 of a unit; false: full steps halved (gp.FitHyper).
	Interp bool
	// Below, when set, evaluates the line search's trials in place of obj
	// (no gradient): it may stop as soon as the value is known to lie
	// below floor, the value a trial needs to be accepted, and then
	// reports below (v is not used). Where it does not stop, v is obj's
	// value (not with Interp, whose shrinking reads the value).
	Below func(theta []float64, floor float64) (v float64, below bool, err error)
}

// BFGS is projected BFGS ascent of obj in the box [lo, hi] from start
// (clamped into it): obj returns the value at theta and, when grad is not
// nil, writes its gradient there; the line search backtracks from a full
// step (Armijo, at most 50 halvings; with Interp, at most 50 quadratic
// interpolations, Nocedal & Wright 2006 §3.5) and the inverse Hessian
// restarts from the identity when the direction is not an ascent. It returns the last
// accepted point and its value (gp.FitHyper: the log marginal likelihood,
// plus a log prior).
func BFGS(obj func(theta, grad []float64) (float64, error), start, lo, hi []float64, o BFGSTol) ([]float64, float64, error) {
	p := len(start)
	x := make([]float64, p)
	for i := range x {
		x[i] = math.Min(math.Max(start[i], lo[i]), hi[i])
	}
	g := make([]float64, p)
	f, err := obj(x, g)
	if err != nil {
		return nil, 0, err
	}
	H := identity(p)
	xn, gn, dir := make([]float64, p), make([]float64, p), make([]float64, p)
	free := func(i int, gi float64) bool { // a bound is active when the ascent direction leaves the box
		return !((x[i] <= lo[i] && gi < 0) || (x[i] >= hi[i] && gi > 0))
	}
	for it := 0; it < o.Iters; it++ {
		var gnorm float64
		for i := range dir {
			dir[i] = 0
			if !free(i, g[i]) {
				continue
			}
			gnorm = math.Max(gnorm, math.Abs(g[i]))
			for j := range dir {
				if free(j, g[j]) {
					dir[i] += H[i*p+j] * g[j]
				}
			}
		}
		if gnorm < o.GTol {
			break
		}
		var slope float64
		for i := range dir {
			slope += dir[i] * g[i]
		}
		fresh := it == 0
		if !(slope > 0) { // not an ascent direction: restart from the gradient
			H = identity(p)
			fresh = true
			for i := range dir {
				dir[i] = 0
				if free(i, g[i]) {
					dir[i] = g[i]
				}
			}
		}
		step, ok := 1.0, false
		var dmax float64
		for _, v := range dir {
			dmax = math.Max(dmax, math.Abs(v))
		}
		if o.Interp && fresh && dmax > 1 {
			step = 1 / dmax
		}
		var fn float64
		for ls := 0; ls < 50; ls++ {
			var ascent float64
			for i := range xn {
				xn[i] = math.Min(math.Max(x[i]+step*dir[i], lo[i]), hi[i])
				ascent += g[i] * (xn[i] - x[i])
			}
			if !(ascent >= 0) {
				// a step the projection turned downhill fails the test
				// whatever its value: not evaluated
				if !o.Interp {
					step /= 2
					continue
				}
				if step *= 0.1; step*dmax < 1e-10 {
					break
				}
				continue
			}
			var v float64
			var err error
			below := false
			if o.Below != nil && !o.Interp {
				v, below, err = o.Below(xn, f+1e-4*ascent)
			} else {
				v, err = obj(xn, nil)
			}
			if err == nil && !below && v >= f+1e-4*ascent && ascent >= 0 {
				fn, ok = v, true
				break
			}
			if !o.Interp {
				step /= 2
				continue
			}
			// the maximiser of the quadratic through f, its slope along
			// the step and v, kept within [0.1, 0.5] of the step
			shrink := 0.1
			if err == nil && ascent > 0 && v < f+ascent {
				shrink = math.Min(math.Max(ascent/(2*(f+ascent-v)), 0.1), 0.5)
			}
			if step *= shrink; step*dmax < 1e-10 {
				break
			}
		}
		if !ok {
			break
		}
		if _, err := obj(xn, gn); err != nil {
			break
		}
		// BFGS update of the inverse Hessian of −f: s = Δx, yv = −Δg.
		s, yv := make([]float64, p), make([]float64, p)
		var sy float64
		for i := range s {
			s[i] = xn[i] - x[i]
			yv[i] = g[i] - gn[i]
			sy += s[i] * yv[i]
		}
		df := fn - f
		copy(x, xn)
		copy(g, gn)
		f = fn
		if sy > 1e-12 {
			if o.Interp && fresh {
				// H₀ = (sᵀy/yᵀy)·I before the first update (Nocedal &
				// Wright 2006, eq. 6.20)
				var yy float64
				for i := range yv {
					yy += yv[i] * yv[i]
				}
				H = identity(p)
				for i := 0; i < p; i++ {
					H[i*p+i] = sy / yy
				}
			}
			Hy := make([]float64, p)
			var yHy float64
			for i := 0; i < p; i++ {
				for j := 0; j < p; j++ {
					Hy[i] += H[i*p+j] * yv[j]
				}
				yHy += yv[i] * Hy[i]
			}
			for i := 0; i < p; i++ {
				for j := 0; j < p; j++ {
					H[i*p+j] += (sy+yHy)*s[i]*s[j]/(sy*sy) - (Hy[i]*s[j]+s[i]*Hy[j])/sy
				}
			}
		}
		if df <= o.FTol*math.Max(1, math.Abs(f)) {
			break
		}
	}
	return x, f, nil
}

func identity(p int) []float64 {
	H := make([]float64, p*p)
	for i := 0; i < p; i++ {
		H[i*p+i] = 1
	}
	return H
}
