package domain

import (
	"math"
	"math/rand/v2"
	"testing"
)

// The three scalings GridPoints and HaltonPoints replaced (the models'
// grid, the service's candidate sets, the agents' shifted initial design),
// kept here as references: the points must agree bit for bit.

func refModelGrid(lo, hi []float64, n int) [][]float64 {
	d := len(lo)
	total := 1
	for i := 0; i < d; i++ {
		total *= n
	}
	pts := make([][]float64, total)
	idx := make([]int, d)
	for k := range pts {
		x := make([]float64, d)
		for i := range x {
			x[i] = lo[i] + (hi[i]-lo[i])*float64(idx[i])/float64(n-1)
		}
		pts[k] = x
		for i := d - 1; i >= 0; i-- {
			idx[i]++
			if idx[i] < n {
				break
			}
			idx[i] = 0
		}
	}
	return pts
}

func refServiceGrid(lo, hi []float64, k int) [][]float64 {
	d := len(lo)
	axes := make([][]float64, d)
	for i := range axes {
		if hi[i] == lo[i] || k == 1 {
			axes[i] = []float64{lo[i] + (hi[i]-lo[i])/2}
			continue
		}
		for j := 0; j < k; j++ {
			axes[i] = append(axes[i], lo[i]+(hi[i]-lo[i])*float64(j)/float64(k-1))
		}
	}
	var pts [][]float64
	if d == 1 {
		for _, x := range axes[0] {
			pts = append(pts, []float64{x})
		}
		return pts
	}
	for _, x := range axes[0] {
		for _, y := range axes[1] {
			pts = append(pts, []float64{x, y})
		}
	}
	return pts
}

func refShiftedHalton(lo, hi []float64, n int, shift []float64) [][]float64 {
	pts := Halton(n, len(lo))
	for _, x := range pts {
		for i := range x {
			u := x[i] + shift[i]
			if u >= 1 {
				u--
			}
			x[i] = lo[i] + (hi[i]-lo[i])*u
		}
	}
	return pts
}

func samePoints(t *testing.T, what string, got, want [][]float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d points, want %d", what, len(got), len(want))
	}
	for k := range want {
		for i := range want[k] {
			if math.Float64bits(got[k][i]) != math.Float64bits(want[k][i]) {
				t.Fatalf("%s: point %d coordinate %d = %v, want %v", what, k, i, got[k][i], want[k][i])
			}
		}
	}
}

func TestGridAndHaltonPointsAsBefore(t *testing.T) {
	boxes := [][2][]float64{
		{{0}, {1}}, {{-3.7}, {12.1}}, {{0, -1}, {6, 1}}, {{0.1, 2}, {0.1, 7.3}},
		{{-5, 0, 1e-3}, {10, 15, 2e-3}}, {{0, 0, 0, 0, 0, 0}, {1, 1, 1, 1, 1, 1}},
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for _, b := range boxes {
		lo, hi := b[0], b[1]
		d := len(lo)
		for _, n := range []int{2, 3, 7, 32} {
			if math.Pow(float64(n), float64(d)) > 1e5 {
				continue
			}
			sides := make([]int, d)
			for i := range sides {
				sides[i] = n
			}
			samePoints(t, "model grid", GridPoints(lo, hi, sides), refModelGrid(lo, hi, n))
		}
		if d <= 2 {
			for _, k := range []int{1, 2, 5, 32} {
				sides := make([]int, d)
				for i := range sides {
					sides[i] = k
					if hi[i] == lo[i] {
						sides[i] = 1
					}
				}
				samePoints(t, "service grid", GridPoints(lo, hi, sides), refServiceGrid(lo, hi, k))
			}
		}
		shift := make([]float64, d)
		for i := range shift {
			shift[i] = rng.Float64()
		}
		samePoints(t, "shifted Halton", HaltonPoints(lo, hi, 300, shift), refShiftedHalton(lo, hi, 300, shift))
		samePoints(t, "Halton", HaltonPoints(lo, hi, 300, nil), refShiftedHalton(lo, hi, 300, make([]float64, d)))
	}
	samePoints(t, "Grid", Grid(-2, 5, 9), refModelGrid([]float64{-2}, []float64{5}, 9))
}
