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
