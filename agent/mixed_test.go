package agent

import (
	"slices"
	"testing"

	"github.com/cbandit/cbandit/domain"
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
