package agent

import (
	"math"
	"slices"
	"testing"

	"github.com/cbandit/cbandit/bandit"
	"github.com/cbandit/cbandit/problem"
)

// SCBO on a 3-D constrained box: the same seed gives the same decisions;
// its last 20 points, drawn in the trust region, are better on average than
// its first 10 (uniform in the box), and the best feasible point improves
// on those; a finite domain is refused.
func TestSCBO(t *testing.T) {
	p, err := problem.New("suite-ackley3", nil, 1)
	if err != nil {
		t.Fatal(err)
	}
	a := runDecisions(t, "scbo", p, nil, 60)
	b := runDecisions(t, "scbo", p, nil, 60)
	for i := range a {
		if !slices.Equal(a[i], b[i]) {
			t.Fatalf("decision %d: %v, then %v", i+1, a[i], b[i])
		}
	}
	costs := make([]float64, p.Info().M)
	best := func(xs [][]float64) float64 {
		v := math.Inf(-1)
		for _, x := range xs {
			f, err := p.Truth(&bandit.Round{T: 1}, bandit.PointAction(x), costs)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.ContainsFunc(costs, func(c float64) bool { return c > 0 }) {
				v = math.Max(v, f)
			}
		}
		return v
	}
	mean := func(xs [][]float64) float64 {
		v := 0.0
		for _, x := range xs {
			f, err := p.Truth(&bandit.Round{T: 1}, bandit.PointAction(x), costs)
			if err != nil {
				t.Fatal(err)
			}
			v += f / float64(len(xs))
		}
		return v
	}
	if early, late := mean(a[:10]), mean(a[40:]); !(late > early) {
		t.Errorf("mean value %v over the last 20 rounds, %v over the first 10", late, early)
	}
	if early, late := best(a[:10]), best(a); !(late > early) {
		t.Errorf("best feasible value %v after 60 rounds, %v after the first 10", late, early)
	}
	fin, err := problem.New("bernoulli-4arm", nil, 1)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := New("scbo", Config{Info: fin.Info(), Horizon: 10, Seed: 1}); err == nil {
		t.Error("scbo built on a finite domain")
	}
}
