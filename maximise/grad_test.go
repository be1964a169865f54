package maximise

import (
	"errors"
	"math"
	"testing"
)

// quadScore is the batch score of −(x₀−c₀)² − 2(x₁−c₁)² with its gradient.
func quadScore(c0, c1 float64, calls *int) BatchScore {
	return func(xs [][]float64, val []float64, grad [][]float64) error {
		*calls++
		for j, x := range xs {
			val[j] = -(x[0]-c0)*(x[0]-c0) - 2*(x[1]-c1)*(x[1]-c1)
			if grad != nil {
				grad[j][0] = -2 * (x[0] - c0)
				grad[j][1] = -4 * (x[1] - c1)
			}
		}
		return nil
	}
}

func TestRefineGradQuadratic(t *testing.T) {
	lo, hi := []float64{0, 0}, []float64{6, 6}
	calls := 0
	// Many iterations converge to the interior maximiser.
	x, v, err := RefineGrad(quadScore(2.3, 4.1, &calls), lo, hi, [][]float64{{2, 4}}, GradOptions{Iters: 500, Trials: 20})
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(x[0]-2.3) > 1e-3 || math.Abs(x[1]-4.1) > 1e-3 || v < -1e-5 {
		t.Fatalf("x = %v, v = %v", x, v)
	}
	// The projected maximiser when the unconstrained one is outside.
	x, _, err = RefineGrad(quadScore(7, 3, &calls), lo, hi, [][]float64{{5.5, 3.2}}, GradOptions{Iters: 500, Trials: 20})
	if err != nil {
		t.Fatal(err)
	}
	if x[0] != 6 || math.Abs(x[1]-3) > 1e-3 {
		t.Fatalf("projected maximiser %v, want (6, 3)", x)
	}
	// Defaults: two batches (value+gradient, line search), an improvement
	// from a start one grid cell away, never worse than the best start.
	calls = 0
	starts := [][]float64{{2.1, 4.3}, {5, 5}}
	x, v, err = RefineGrad(quadScore(2.3, 4.1, &calls), lo, hi, starts, GradOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if calls != 2 {
		t.Fatalf("default refinement made %d batch calls, want 2", calls)
	}
	if v0 := -(0.2*0.2 + 2*0.2*0.2); !(v > v0) || x[0] < 0 || x[0] > 6 || x[1] < 0 || x[1] > 6 {
		t.Fatalf("x = %v, v = %v: no better than the start's %v", x, v, v0)
	}
	// At the maximiser the start is returned.
	x, v, _ = RefineGrad(quadScore(1, 1, &calls), lo, hi, [][]float64{{1, 1}}, GradOptions{})
	if v != 0 || x[0] != 1 || x[1] != 1 {
		t.Fatalf("start was optimal: got %v, %v", x, v)
	}
}

func TestRefineGradErrors(t *testing.T) {
	calls := 0
	for _, bad := range [][2][]float64{{{1}, {0}}, {{math.NaN()}, {1}}, {{0}, {math.Inf(1)}}, {{}, {}}} {
		if _, _, err := RefineGrad(quadScore(0, 0, &calls), bad[0], bad[1], [][]float64{{0}}, GradOptions{}); err == nil {
			t.Fatalf("box %v accepted", bad)
		}
	}
	lo, hi := []float64{0, 0}, []float64{1, 1}
	if _, _, err := RefineGrad(quadScore(0, 0, &calls), lo, hi, nil, GradOptions{}); err == nil {
		t.Fatal("no starts accepted")
	}
	if _, _, err := RefineGrad(quadScore(0, 0, &calls), lo, hi, [][]float64{{0.5}}, GradOptions{}); err == nil {
		t.Fatal("start of the wrong dimension accepted")
	}
	boom := errors.New("boom")
	fail := func([][]float64, []float64, [][]float64) error { return boom }
	if _, _, err := RefineGrad(fail, lo, hi, [][]float64{{0.5, 0.5}}, GradOptions{}); !errors.Is(err, boom) {
		t.Fatalf("score error not returned: %v", err)
	}
	nan := func(xs [][]float64, v []float64, g [][]float64) error {
		for j := range xs {
			v[j] = math.NaN()
		}
		return nil
	}
	if _, _, err := RefineGrad(nan, lo, hi, [][]float64{{0.5, 0.5}}, GradOptions{}); err == nil {
		t.Fatal("NaN score accepted")
	}
}
