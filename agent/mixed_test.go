package agent

import (
	"math"
	"slices"
	"testing"

	"github.com/cbandit/cbandit/bandit"
	"github.com/cbandit/cbandit/domain"
	"github.com/cbandit/cbandit/maximise"
	"github.com/cbandit/cbandit/model"
)

// Two discrete changes from (2, 2) on two ints in 0..4 are the eight points
// at Hamming-and-step distance 2: each int ±2, and both ±1.
func TestTwoAway(t *testing.T) {
	b, err := domain.NewBox([]float64{0, 0}, []float64{1, 1})
	if err != nil {
		t.Fatal(err)
	}
	b.Vars = []domain.Var{{At: 0, Width: 1, Low: 0, High: 4, Step: 1}, {At: 1, Width: 1, Low: 0, High: 4, Step: 1}}
	if err := b.CheckVars(); err != nil {
		t.Fatal(err)
	}
	x := []float64{0.5, 0.5}
	got := twoAway(b, x, b.Neighbours(x))
	want := [][]float64{{0, 0.5}, {0.25, 0.25}, {0.25, 0.75}, {1, 0.5}, {0.75, 0.25}, {0.75, 0.75}, {0.5, 0}, {0.5, 1}}
	if len(got) != len(want) {
		t.Fatalf("%d points %v, want %d: %v", len(got), got, len(want), want)
	}
	for _, w := range want {
		if !slices.ContainsFunc(got, func(g []float64) bool { return slices.Equal(g, w) }) {
			t.Errorf("%v missing from %v", w, got)
		}
	}
}

// ridgeModel is a model whose posterior mean is h(x) = x₀ − 100·(x₁ − 0.1 −
// x₀/8)² with no variance: on a typed box with an int at x₀, each int value
// has its own best x₁, and a step of x₀ improves only near it.
type ridgeModel struct{}

func (ridgeModel) Len() int                             { return 0 }
func (ridgeModel) Action(int) bandit.Action             { return bandit.Action{} }
func (ridgeModel) Observe(bandit.Action, float64) error { return nil }
func (ridgeModel) Mean() []float64                      { return nil }
func (ridgeModel) Var() []float64                       { return nil }
func (ridgeModel) Cov([]float64)                        {}
func (ridgeModel) InfoGain() float64                    { return 0 }
func (ridgeModel) Count() int                           { return 0 }
func (ridgeModel) Reset()                               {}
func (ridgeModel) Gradients() bool                      { return true }
func (ridgeModel) Predict(x []float64) (float64, float64) {
	r := x[1] - 0.1 - x[0]/8
	return x[0] - 100*r*r, 0
}
func (m ridgeModel) PredictBatch(xs [][]float64, mean, variance []float64, dmean, dvar [][]float64) error {
	for k, x := range xs {
		mean[k], variance[k] = m.Predict(x)
		if dmean != nil {
			r := x[1] - 0.1 - x[0]/8
			dmean[k][0], dmean[k][1] = 1+25*r, -200*r
			dvar[k][0], dvar[k][1] = 0, 0
		}
	}
	return nil
}

// From (0, 0) on the ridge no step of the int improves (h = −1; at
// (0.25, 0) h = −1.47), and without a continuous step mixedSearch stays
// there; with wideSearch's BFGS polish where the steps stop, it climbs the
// int to its top and ends at the ridge, x₁ = 0.1 + 1/8.
func TestMixedSearchPolishUnlocks(t *testing.T) {
	b, err := domain.NewBox([]float64{0, 0}, []float64{1, 1})
	if err != nil {
		t.Fatal(err)
	}
	b.Vars = []domain.Var{{At: 0, Width: 1, Low: 0, High: 4, Step: 1}}
	if err := b.CheckVars(); err != nil {
		t.Fatal(err)
	}
	ms := []model.Model{ridgeModel{}}
	acq := func(mv []float64) float64 { return mv[0] }
	none := maximise.GradOptions{} // no gradient ascent: the polish alone moves x₁
	x, err := mixedSearch(b, []float64{0, 0}, ms, acq, none, nil, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(x, []float64{0, 0}) {
		t.Fatalf("without a polish: %v, want the start", x)
	}
	w := &wideSearch{Iters: 30}
	batch := batchScore([]model.BatchPredictor{ridgeModel{}}, func(_, mv []float64) float64 { return acq(mv) }, 2)
	val, grad := make([]float64, 1), [][]float64{make([]float64, 2)}
	polish := func(sub *domain.Box, x []float64) ([]float64, error) {
		return scaledBFGS(sub, x, ms[0], batch, val, grad, w.Iters)
	}
	if x, err = mixedSearch(b, []float64{0, 0}, ms, acq, none, nil, 1, polish); err != nil {
		t.Fatal(err)
	}
	if x[0] != 1 || math.Abs(x[1]-0.225) > 1e-6 {
		t.Fatalf("with the polish: %v, want [1 0.225]", x)
	}
}
