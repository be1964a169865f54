package problem

import (
	"math"
	"testing"

	"github.com/cbandit/cbandit/bandit"
	"github.com/cbandit/cbandit/internal/seed"
)

func TestDataRateShapesAndOptimum(t *testing.T) {
	for i := 0; i < 4; i++ {
		if u := DataRateU(i, 0); math.Abs(u) > 1e-12 {
			t.Errorf("U_%d(0) = %v, want 0", i+1, u)
		}
		prev := DataRateU(i, 0)
		for x := 0.05; x <= 2; x += 0.05 {
			if u := DataRateU(i, x); !(u > prev) {
				t.Errorf("U_%d not increasing at %v", i+1, x)
			}
			prev = DataRateU(i, x)
		}
	}
	// Sigmoids are convex before their inflection b and concave after.
	for _, i := range []int{0, 2} {
		b := DataRateConst[i][1]
		second := func(x float64) float64 { return DataRateU(i, x+0.01) - 2*DataRateU(i, x) + DataRateU(i, x-0.01) }
		if !(second(b-0.5) > 0 && second(b+0.5) < 0) {
			t.Errorf("U_%d is not sigmoidal around b = %v", i+1, b)
		}
	}
	opt, x := DataRateOpt()
	g := []float64{0}
	DataRateG(x, g)
	if g[0] > 1e-9 || math.Abs(DataRateF(x)-opt) > 1e-12 {
		t.Fatalf("optimum %v at %v: g = %v", opt, x, g[0])
	}
	// No feasible random point beats it.
	rng := seed.Rand(3)
	for k := 0; k < 200000; k++ {
		y := []float64{2 * rng.Float64(), 2 * rng.Float64(), 2 * rng.Float64(), 2 * rng.Float64()}
		DataRateG(y, g)
		if g[0] <= 0 && DataRateF(y) > opt+1e-9 {
			t.Fatalf("f(%v) = %v > optimum %v", y, DataRateF(y), opt)
		}
	}
	t.Logf("data-rate optimum f* = %.5f at %.4f", opt, x)
}

func TestDataRateNoise(t *testing.T) {
	p, err := New("data-rate", bandit.Params{"noise_g": "0.2"}, 1)
	if err != nil {
		t.Fatal(err)
	}
	if p.Info().RG != 0.2 || math.Abs(p.Info().R-0.2) > 1e-15 {
		t.Fatalf("R = %v, RG = %v", p.Info().R, p.Info().RG)
	}
	rng := seed.Rand(1)
	r := &bandit.Round{T: 1}
	a := bandit.PointAction([]float64{1, 1, 1, 1})
	c, tc := []float64{0}, []float64{0}
	f, _ := p.Truth(r, a, tc)
	for k := 0; k < 1000; k++ {
		if _, err := p.Observe(rng, r, a, c); err != nil {
			t.Fatal(err)
		}
		if math.Abs(c[0]-tc[0]) > 0.2 {
			t.Fatalf("cost noise %v outside U[−0.2, 0.2]", c[0]-tc[0])
		}
	}
	_ = f
	if _, err := New("data-rate", bandit.Params{"noise_g": "-1"}, 1); err == nil {
		t.Fatal("negative noise accepted")
	}
	q, _ := New("data-rate", nil, 1)
	if q.Info().RG != 0 {
		t.Fatal("default data-rate must be noiseless in g (002 App. E.2.1)")
	}
}

// The sensitivity variants keep the stated shapes (U_i(0) = 0, increasing)
// and move the optimum; bad values name the parameter.
func TestDataRateSurrogateVariants(t *testing.T) {
	base, _ := DataRateOptFor(1, 0)
	for _, v := range [][2]float64{{0.5, 0}, {2, 0}, {1, -0.3}, {1, 0.3}} {
		k := DataRateConstFor(v[0], v[1])
		for i := 0; i < 4; i++ {
			if u := dataRateU(&k, i, 0); math.Abs(u) > 1e-12 {
				t.Errorf("slope %v shift %v: U_%d(0) = %v", v[0], v[1], i+1, u)
			}
			if !(dataRateU(&k, i, 2) > dataRateU(&k, i, 1)) {
				t.Errorf("slope %v shift %v: U_%d not increasing", v[0], v[1], i+1)
			}
		}
		opt, x := DataRateOptFor(v[0], v[1])
		g := []float64{0}
		DataRateG(x, g)
		if g[0] > 1e-9 || math.Abs(dataRateF(&k, x)-opt) > 1e-12 || opt == base {
			t.Errorf("slope %v shift %v: optimum %v at %v (g = %v, default %v)", v[0], v[1], opt, x, g[0], base)
		}
	}
	for _, p := range []bandit.Params{{"slope": "0"}, {"slope": "-1"}, {"shift": "0.8"}, {"shift": "-1"}} {
		if _, err := New("data-rate", p, 1); err == nil {
			t.Errorf("%v accepted", p)
		}
	}
}
