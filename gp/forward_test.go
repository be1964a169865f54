package gp

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/floats"
)

// TestForwardRowByRow: forward gives L⁻¹b bit for bit as substitution one
// row at a time with floats.Dot, for every t across the four-row blocks'
// edges and for several right-hand sides at once. The entries span many
// magnitudes with both signs, so a sum taken in another order would differ
// in its last bits.
func TestForwardRowByRow(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	draw := func() float64 {
		return (rng.Float64() - 0.5) * math.Pow(10, 6*rng.Float64()-3)
	}
	for _, n := range []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 11, 12, 13, 17, 64, 199, 200, 203} {
		f := &factor{l: make([]float64, n*(n+1)/2)}
		for s := range n {
			r := f.row(s)
			for i := range r {
				r[i] = draw()
			}
			r[s] = 0.5 + rng.Float64() // the diagonal, positive
		}
		for _, nb := range []int{1, 3} {
			blk, want := make([][]float64, nb), make([][]float64, nb)
			for j := range blk {
				blk[j] = make([]float64, n)
				for i := range blk[j] {
					blk[j][i] = draw()
				}
				want[j] = append([]float64(nil), blk[j]...)
				for s := range n {
					r := f.row(s)
					want[j][s] = (want[j][s] - floats.Dot(r[:s], want[j][:s])) / r[s]
				}
			}
			f.forward(blk, n)
			for j := range blk {
				for i := range blk[j] {
					if math.Float64bits(blk[j][i]) != math.Float64bits(want[j][i]) {
						t.Fatalf("t = %d, %d right-hand sides: b[%d][%d] = %v, want %v (row by row)", n, nb, j, i, blk[j][i], want[j][i])
					}
				}
			}
		}
	}
}

// TestSolveRecycles: once the solve cache is full, a line search's trial
// (one fresh point) takes the allocation of an entry the cache dropped,
// and a point predicted again after its entry's allocation went to other
// points has its first moments to the bit.
func TestSolveRecycles(t *testing.T) {
	g, err := NewExact(ARD{Nu: 2.5, Lengthscales: []float64{0.3, 0.7, 1.2}, Variance: 1.3}, 1e-4)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(3, 4))
	point := func() []float64 { return []float64{rng.Float64(), rng.Float64(), rng.Float64()} }
	for range 40 {
		x := point()
		if err := g.Add(x, math.Sin(3*x[0])+x[1]*x[2]); err != nil {
			t.Fatal(err)
		}
	}
	mean, vr := make([]float64, 1), make([]float64, 1)
	predict := func(x []float64) (float64, float64) {
		if err := g.PredictBatch([][]float64{x}, mean, vr, nil, nil); err != nil {
			t.Fatal(err)
		}
		return mean[0], vr[0]
	}
	xs := make([][]float64, 3*solveCacheSize)
	ms, vs := make([]float64, len(xs)), make([]float64, len(xs))
	for i := range xs {
		xs[i] = point()
		ms[i], vs[i] = predict(xs[i])
	}
	for i, x := range xs { // each evicted since: solved again in recycled allocations
		if m, v := predict(x); math.Float64bits(m) != math.Float64bits(ms[i]) || math.Float64bits(v) != math.Float64bits(vs[i]) {
			t.Fatalf("point %d again: (%v, %v), first (%v, %v)", i, m, v, ms[i], vs[i])
		}
	}
	x := point()
	if n := testing.AllocsPerRun(20, func() { x[0] = rng.Float64(); predict(x) }); n > 1 {
		t.Errorf("a fresh point's solve allocates %v times, want at most 1 (its entry; the rest recycled)", n)
	}
}
