package agent

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/cbandit/cbandit/bandit"
	"github.com/cbandit/cbandit/domain"
	"github.com/cbandit/cbandit/gp"
)

// TestLogAugmentClosedForm: augmented EI's factor 1 − τ/√(s² + τ²) at a
// configuration measured n times, s² = τ²/n, is 1 − √(n/(n + 1)) (about
// 1/(2n)); 1 without a noise; near 1 where s ≫ τ.
func TestLogAugmentClosedForm(t *testing.T) {
	for _, n := range []float64{1, 4, 50} {
		tau2 := 0.09
		want := 1 - math.Sqrt(n/(n+1))
		if got := math.Exp(logAugment(tau2/n, tau2)); math.Abs(got-want) > 1e-12 {
			t.Errorf("n = %v: factor %v, want %v", n, got, want)
		}
	}
	if got := logAugment(0.3, 0); got != 0 {
		t.Errorf("no noise: %v, want 0", got)
	}
	if got := math.Exp(logAugment(1e4, 1e-4)); math.Abs(got-(1-1e-2/math.Sqrt(1e4+1e-4))) > 1e-12 {
		t.Errorf("s ≫ τ: factor %v", got)
	}
}

// TestRepeatValue: lognei on a typed space of two ints in 0..10 (121
// configurations) maximising −((x − 9)² + (y − 9)²)/100 under
// (x + y − 10)/10 ≤ 0, each observed with noise of std 0.3, horizon 40 (the
// confirmation from round 37): with repeat-value=none no search decision
// repeats an evaluated configuration, while the default (ei) repeats some;
// augmented decides otherwise than ei (on this seed it repeats no fewer:
// 17 against 13), and noise-free too (the first fits are not exact). On two ints in 0..1 (4 configurations) none still decides
// every round once all are evaluated (it repeats then).
func TestRepeatValue(t *testing.T) {
	repeats := func(rv string, noise float64) (int, []string) {
		return typedPath(t, bandit.Params{"repeat-value": rv}, noise)
	}
	ei, eiPath := repeats("ei", 0.3)
	aug, augPath := repeats("augmented", 0.3)
	none, _ := repeats("none", 0.3)
	t.Logf("repeats before the confirmation: ei %d, augmented %d, none %d", ei, aug, none)
	if none != 0 {
		t.Errorf("repeat-value=none: %d repeats while searching", none)
	}
	if ei == 0 {
		t.Error("repeat-value=ei: no repeat on this seed; the test no longer tells none from ei")
	}
	if slices.Equal(augPath, eiPath) {
		t.Error("augmented decides as ei on every round")
	}
	_, eiFree := repeats("ei", 0)
	_, augFree := repeats("augmented", 0)
	if slices.Equal(augFree, eiFree) {
		t.Errorf("noise-free: augmented decides as ei (its first fits are not exact, so it should act):\n%v", eiFree)
	}
	k, err := gp.NewSE(0.2, 1)
	if err != nil {
		t.Fatal(err)
	}
	tiny, err := domain.NewBox([]float64{0, 0}, []float64{1, 1})
	if err != nil {
		t.Fatal(err)
	}
	tiny.Vars = []domain.Var{{At: 0, Width: 1, Low: 0, High: 1, Step: 1}, {At: 1, Width: 1, Low: 0, High: 1, Step: 1}}
	ag, err := New("lognei", Config{Info: bandit.Info{Domain: tiny, M: 1, Kernel: k, NoiseVar: 0.01, B: 1, G: 1, R: 0.1, RG: 0.1, Horizon: 30},
		Horizon: 30, Seed: 1, Params: bandit.Params{"repeat-value": "none"}})
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(7, 8))
	for r := 1; r <= 30; r++ {
		d, err := ag.Decide(&bandit.Round{T: r})
		if err != nil {
			t.Fatalf("4 configurations, none: round %d: %v", r, err)
		}
		x, y := d.Action.X[0], d.Action.X[1]
		if err := ag.Observe(bandit.Feedback{ID: d.ID, Reward: -(x-1)*(x-1) - y*y + 0.3*rng.NormFloat64(), HasReward: true, Costs: []float64{x + y - 1.5 + 0.3*rng.NormFloat64()}}); err != nil {
			t.Fatal(err)
		}
	}
}

// typedPath runs lognei with params for 36 rounds of TestRepeatValue's
// problem (two ints in 0..10, horizon 40, noise std noise on f and g) and
// returns how many decisions repeated an evaluated configuration and the
// configurations played.
func typedPath(t *testing.T, params bandit.Params, noise float64) (int, []string) {
	t.Helper()
	box, err := domain.NewBox([]float64{0, 0}, []float64{1, 1})
	if err != nil {
		t.Fatal(err)
	}
	box.Vars = []domain.Var{{At: 0, Width: 1, Low: 0, High: 10, Step: 1}, {At: 1, Width: 1, Low: 0, High: 10, Step: 1}}
	k, err := gp.NewSE(0.2, 1)
	if err != nil {
		t.Fatal(err)
	}
	ag, err := New("lognei", Config{Info: bandit.Info{Domain: box, M: 1, Kernel: k, NoiseVar: 0.01, B: 1, G: 1, R: 0.1, RG: 0.1, Horizon: 40},
		Horizon: 40, Seed: 1, Params: params})
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(5, 6))
	seen := map[string]bool{}
	n, path := 0, []string(nil)
	for r := 1; r <= 36; r++ {
		d, err := ag.Decide(&bandit.Round{T: r})
		if err != nil {
			t.Fatal(err)
		}
		x, y := math.Round(10*d.Action.X[0]), math.Round(10*d.Action.X[1])
		f, g := -((x-9)*(x-9)+(y-9)*(y-9))/100, (x+y-10)/10
		if err := ag.Observe(bandit.Feedback{ID: d.ID, Reward: f + noise*rng.NormFloat64(), HasReward: true, Costs: []float64{g + noise*rng.NormFloat64()}}); err != nil {
			t.Fatal(err)
		}
		key := fmt.Sprint(x, y)
		path = append(path, key)
		if seen[key] {
			n++
		}
		seen[key] = true
	}
	return n, path
}
