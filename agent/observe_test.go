package agent

import (
	"math"
	"slices"
	"testing"

	"github.com/cbandit/cbandit/bandit"
	"github.com/cbandit/cbandit/domain"
	"github.com/cbandit/cbandit/gp"
	"github.com/cbandit/cbandit/model"
)

// ObserveModels observes fitted models concurrently on the rounds they
// refresh together: the posteriors are bit for bit those of each model
// observed alone, the concurrent path is taken on exactly the doubling
// schedule's rounds (counts 1, 2, 4, …), and an error of one model is
// returned while the others still observe.
func TestObserveModelsTogether(t *testing.T) {
	box, _ := domain.NewBox([]float64{0, 0, 0}, []float64{1, 2, 1})
	k, _ := gp.NewSE(0.3, 1)
	cands := domain.Halton(128, 3)
	fresh := func(constraint bool) *model.Adaptive {
		a, err := model.NewAdaptive(box, k, 0.01, model.AdaptiveOptions{Standardise: true, Fit: true, Constraint: constraint, Candidates: cands})
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	f, g1, g2 := fresh(false), fresh(true), fresh(true)
	solo := []*model.Adaptive{fresh(false), fresh(true), fresh(true)}
	vals := func(x []float64) []float64 {
		return []float64{math.Sin(3*x[0]) + x[1], x[0] + x[2] - 0.8, x[1] - 1.2}
	}
	var together []int
	for i, x := range domain.Halton(40, 3) {
		if refreshTogether([]model.Model{f, g1, g2}) {
			together = append(together, i+1)
		}
		v := vals(x)
		acc := Accepted{Action: bandit.PointAction(x), Reward: v[0], HasReward: true, Costs: v[1:]}
		if err := ObserveModels(acc, f, []model.Model{g1, g2}); err != nil {
			t.Fatal(err)
		}
		for j, m := range solo {
			if err := m.Observe(bandit.PointAction(x), v[j]); err != nil {
				t.Fatal(err)
			}
		}
	}
	if want := []int{1, 2, 4, 8, 16, 32}; !slices.Equal(together, want) {
		t.Errorf("concurrent observations at counts %v, want %v", together, want)
	}
	for j, m := range []*model.Adaptive{f, g1, g2} {
		if !slices.Equal(m.Mean(), solo[j].Mean()) || !slices.Equal(m.Var(), solo[j].Var()) {
			t.Errorf("model %d: posterior differs from the model observed alone", j)
		}
	}
	// Counts 41–63 are rank-one updates; 64 refreshes all three together.
	// There a NaN cost fails g₁ alone: the error is returned, and f and g₂
	// (after it in model order) still observe.
	for i, x := range domain.Halton(64, 3)[40:] {
		v := vals(x)
		last := i == 23
		if last {
			if !refreshTogether([]model.Model{f, g1, g2}) {
				t.Fatal("count 64 is not observed together")
			}
			v[1] = math.NaN()
		}
		err := ObserveModels(Accepted{Action: bandit.PointAction(x), Reward: v[0], HasReward: true, Costs: v[1:]}, f, []model.Model{g1, g2})
		if (err != nil) != last {
			t.Fatalf("observation %d: error %v", 41+i, err)
		}
	}
	if f.Count() != 64 || g1.Count() != 63 || g2.Count() != 64 {
		t.Errorf("after g₁'s failed count 64: f, g₁, g₂ hold %d, %d, %d observations; want 64, 63, 64", f.Count(), g1.Count(), g2.Count())
	}
}
