package maximise

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestBFGSInterp: both line searches end at the maximum of a concave
// quadratic whose curvatures span 1 to 1e4, inside the box and, with its
// centre outside, on the bound; from a start whose gradient is in the
// thousands, the interpolating search's first trial lies within one unit
// of the start (the step 1/‖g‖∞ along g), halving's first trial on the box's
// faces (a full gradient step, projected).
func TestBFGSInterp(t *testing.T) {
	a := []float64{1, 100, 1e4}
	start := []float64{-0.9, 0.8, -0.7}
	for _, centre := range [][]float64{{0.3, -0.2, 0.05}, {0.3, -0.2, 3}} {
		want := []float64{0.3, -0.2, math.Min(centre[2], 1)}
		for _, interp := range []bool{false, true} {
			var trials [][]float64
			obj := func(x, g []float64) (float64, error) {
				if g == nil {
					trials = append(trials, append([]float64(nil), x...))
				}
				var f float64
				for i, v := range x {
					d := v - centre[i]
					f -= a[i] * d * d
					if g != nil {
						g[i] = -2 * a[i] * d
					}
				}
				return f, nil
			}
			lo, hi := []float64{-1, -1, -1}, []float64{1, 1, 1}
			x, _, err := BFGS(obj, start, lo, hi, BFGSTol{Iters: 100, GTol: 1e-9, FTol: 1e-15, Interp: interp})
			if err != nil {
				t.Fatal(err)
			}
			for i := range x {
				if math.Abs(x[i]-want[i]) > 1e-6 {
					t.Fatalf("centre %v interp %v: BFGS ends at %v, want %v", centre, interp, x, want)
				}
			}
			var far float64
			for i, v := range trials[0] {
				far = math.Max(far, math.Abs(v-start[i]))
			}
			if interp && far > 1+1e-12 {
				t.Errorf("centre %v: the interpolating search's first trial %v is %v from the start", centre, trials[0], far)
			}
			if !interp && math.Abs(math.Abs(trials[0][2])-1) > 0 {
				t.Errorf("centre %v: halving's first trial %v is not on a face", centre, trials[0])
			}
		}
	}
}

// BFGS does not evaluate a line-search trial whose projected step is
// downhill (gᵀΔx < 0 at the last accepted point), which the Armijo test
// rejects whatever its value: on 200 random concave quadratics in
// [−1, 1]³ whose maxima mostly lie outside the box (the projection then
// bends steps; before, 144 such trials were evaluated on them).
func TestBFGSSkipsDownhillTrials(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	const p = 3
	for trial := range 200 {
		A := make([]float64, p*p)
		for i := range A {
			A[i] = rng.NormFloat64()
		}
		c := make([]float64, p)
		for i := range c {
			c[i] = 3 * rng.NormFloat64()
		}
		var lastX, lastG []float64
		down := 0
		obj := func(x, g []float64) (float64, error) { // −‖A(x − c)‖²
			r := make([]float64, p)
			for i := range p {
				for j := range p {
					r[i] += A[i*p+j] * (x[j] - c[j])
				}
			}
			var f float64
			for _, v := range r {
				f -= v * v
			}
			if g != nil {
				for j := range p {
					g[j] = 0
					for i := range p {
						g[j] -= 2 * r[i] * A[i*p+j]
					}
				}
				lastX, lastG = slices.Clone(x), slices.Clone(g)
				return f, nil
			}
			var a float64
			for i := range x {
				a += lastG[i] * (x[i] - lastX[i])
			}
			if a < 0 {
				down++
			}
			return f, nil
		}
		start := []float64{rng.Float64()*2 - 1, rng.Float64()*2 - 1, rng.Float64()*2 - 1}
		if _, _, err := BFGS(obj, start, []float64{-1, -1, -1}, []float64{1, 1, 1}, BFGSTol{Iters: 30, GTol: 1e-8, FTol: 1e-12}); err != nil {
			t.Fatal(err)
		}
		if down > 0 {
			t.Errorf("problem %d: %d downhill trials evaluated", trial, down)
		}
	}
}
