package model

import (
	"math"
	"testing"

	"github.com/cbandit/cbandit/bandit"
	"github.com/cbandit/cbandit/domain"
	"github.com/cbandit/cbandit/gp"
)

// TestSpaceFilling: the Halton points by hand (bases 2, 3, 5 from index 1),
// the grid in 2-D, and ForAllOpts gives a 3-D box 1024 Halton candidates
// with SpaceFilling and the 11³ grid without.
func TestSpaceFilling(t *testing.T) {
	box3, _ := domain.NewBox([]float64{0, 0, 0}, []float64{1, 2, 1})
	pts := SpaceFilling(box3)
	want := [][]float64{{0.5, 2.0 / 3, 0.2}, {0.25, 4.0 / 3, 0.4}, {0.75, 2.0 / 9, 0.6}}
	for i, w := range want {
		for j := range w {
			if math.Abs(pts[i][j]-w[j]) > 1e-15 {
				t.Fatalf("point %d = %v, want %v", i, pts[i], w)
			}
		}
	}
	if len(pts) != DefaultCandidates {
		t.Fatalf("%d points", len(pts))
	}
	box2, _ := domain.NewBox([]float64{0, 0}, []float64{1, 1})
	if len(SpaceFilling(box2)) != len(DefaultGrid(box2)) {
		t.Fatal("2-D: not the grid")
	}
	fk, _ := gp.NewSE(0.3, 1)
	in := bandit.Info{Domain: box3, M: 1, Kernel: fk, NoiseVar: 0.01}
	f, _, err := ForAllOpts(in, 0.01, Options{SpaceFilling: true})
	if err != nil || f.Len() != DefaultCandidates {
		t.Fatalf("space-filling: %d candidates, %v", f.Len(), err)
	}
	f, _, err = ForAllOpts(in, 0.01, Options{})
	if err != nil || f.Len() != 11*11*11 {
		t.Fatalf("grid: %d candidates, %v", f.Len(), err)
	}
}

// TestFitSubset: up to FitMaxPoints the fit sees every observation; beyond,
// the evenly strided subset in order, the first observation included.
func TestFitSubset(t *testing.T) {
	for _, n := range []int{5, FitMaxPoints, 300} {
		xs, ys := make([][]float64, n), make([]float64, n)
		for i := range ys {
			xs[i], ys[i] = []float64{float64(i)}, float64(i)
		}
		sx, sy := FitSubset(xs, ys, FitMaxPoints)
		if want := min(n, FitMaxPoints); len(sx) != want || len(sy) != want {
			t.Fatalf("n = %d: %d points, want %d", n, len(sy), want)
		}
		for j := range sy {
			if i := j * n / len(sy); sy[j] != float64(i) || sx[j][0] != float64(i) {
				t.Fatalf("n = %d: entry %d is observation %v, want %d", n, j, sy[j], i)
			}
		}
	}
}
