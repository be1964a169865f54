package agent

import (
	"math"
	"strings"
	"testing"

	"github.com/cbandit/cbandit/bandit"
	"github.com/cbandit/cbandit/problem"
)

func TestADMMBOBadInput(t *testing.T) {
	in := gardnerInfoPen(t, "0")
	for _, c := range []struct {
		ps   bandit.Params
		want string
	}{
		{bandit.Params{"rho": "0"}, "rho = 0"},
		{bandit.Params{"M": "-1"}, "M = -1"},
		{bandit.Params{"tau": "0.5"}, "tau = 0.5"},
		{bandit.Params{"mu": "NaN"}, "mu = NaN"},
		{bandit.Params{"abstol": "0"}, "abstol = 0"},
		{bandit.Params{"reltol": "-0.1"}, "reltol = -0.1"},
		{bandit.Params{"budget": "0"}, "budget = 0"},
		{bandit.Params{"budget-c1": "0"}, "budget-c1 = 0"},
		{bandit.Params{"init": "0"}, "init = 0"},
		{bandit.Params{"iters": "-1"}, "iters = -1"},
		{bandit.Params{"eps": "0.1"}, `unknown parameter "eps"`},
	} {
		_, err := New("admmbo", Config{Info: in, Horizon: 50, Params: c.ps, Seed: 1})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: error %v, want one containing %q", c.ps, err, c.want)
		}
	}
}

// The iteration cap of the public code's toy1 script: 15 on gardner (N = 1).
func TestADMMBOIters(t *testing.T) {
	if got := ADMMBOIters(1, 10, 50, 5); got != 15 {
		t.Fatalf("ADMMBOIters(1, 10, 50, 5) = %d, want 15", got)
	}
	if got := ADMMBOIters(2, 10, 50, 5); got != 1+int(math.Round(190.0/15)) {
		t.Fatalf("ADMMBOIters(2, 10, 50, 5) = %d", got)
	}
}

func newADMMBOTest(t *testing.T, ps bandit.Params) (*ADMMBO, problem.Problem) {
	t.Helper()
	p, err := problem.New("gardner", bandit.Params{"noise_f": "0.1", "noise_g": "0"}, 1)
	if err != nil {
		t.Fatal(err)
	}
	a, err := New("admmbo", Config{Info: p.Info(), Horizon: 200, Seed: 2, Params: ps})
	if err != nil {
		t.Fatal(err)
	}
	return a.(*ADMMBO), p
}

// The ρ adaptation and the residual test of ADMMBO.m, worked by hand
// (d = 2, one constraint, μ = 10, τ = 2, abstol = reltol = 0.05, relax = 1.5).
func TestADMMBORhoSchedule(t *testing.T) {
	a, _ := newADMMBOTest(t, nil)
	a.iter = 1
	set := func(x, z, zold, y []float64, rho float64) {
		a.x, a.z[0], a.zold, a.y[0], a.rho = x, z, [][]float64{zold}, y, rho
	}
	// r = ‖x − z‖ = √2, s = ρ‖z − zold‖ = 0: r > μs, so ρ doubles; r > ε_pri =
	// √2·0.05 + 0.075·√2 ≈ 0.177: not converged.
	set([]float64{1, 1}, []float64{0, 0}, []float64{0, 0}, []float64{0, 0}, 0.1)
	a.endIteration()
	if a.stopped || a.conv[0] || math.Abs(a.rho-0.2) > 1e-15 {
		t.Fatalf("r ≫ s: stopped %v, conv %v, ρ = %v; want running, ρ = 0.2", a.stopped, a.conv[0], a.rho)
	}
	// r = 0, s = 0.1·√2 ≈ 0.141 > ε_dual = √2·0.05 ≈ 0.071 (y = 0): μr < s, ρ halves.
	set([]float64{1, 1}, []float64{1, 1}, []float64{0, 0}, []float64{0, 0}, 0.1)
	a.endIteration()
	if a.stopped || a.conv[0] || math.Abs(a.rho-0.05) > 1e-15 {
		t.Fatalf("s ≫ r: stopped %v, conv %v, ρ = %v; want running, ρ = 0.05", a.stopped, a.conv[0], a.rho)
	}
	// r = 0.2, s = 0.1: neither rule fires, ρ stays; r > ε_pri ≈ 0.0707 +
	// 0.075·‖(1, 1.2)‖ ≈ 0.188: not converged.
	set([]float64{1, 1}, []float64{1, 1.2}, []float64{0, 1.2}, []float64{0, 0}, 0.1)
	a.endIteration()
	if a.stopped || a.conv[0] || math.Abs(a.rho-0.1) > 1e-15 {
		t.Fatalf("balanced: stopped %v, conv %v, ρ = %v; want running, ρ = 0.1", a.stopped, a.conv[0], a.rho)
	}
	// r = 0.01, s = 0.01 (both below ε): converged, stops with the round count.
	set([]float64{1, 1}, []float64{1, 1.01}, []float64{1, 1.11}, []float64{0, 0}, 0.1)
	a.endIteration()
	if !a.stopped || !a.conv[0] || a.rho != 0.1 {
		t.Fatalf("converged: stopped %v, conv %v, ρ = %v", a.stopped, a.conv[0], a.rho)
	}
}

// Once met, a constraint's convergence sticks (ADMMBO.m never resets con(j)),
// and the iteration cap stops the run.
func TestADMMBOIterationCap(t *testing.T) {
	a, _ := newADMMBOTest(t, bandit.Params{"iters": "2"})
	a.iter = 2
	a.x, a.z[0], a.zold = []float64{1, 1}, []float64{0, 0}, [][]float64{{0, 0}}
	a.endIteration()
	if !a.stopped {
		t.Fatal("iteration 2 of iters = 2: not stopped")
	}
}

// ADMMBO on gardner with tiny budgets: with a loose tolerance it converges
// after the first ADMM iteration, i.e. after exactly init + budget-f1 +
// budget-c1 queries; with a tight one it runs to the iteration cap,
// init + f1 + c1 + (iters − 1)·2·budget queries. After the stop it replays
// one answer.
func TestADMMBOStops(t *testing.T) {
	for _, c := range []struct {
		name string
		ps   bandit.Params
		want int
	}{
		{"converged", bandit.Params{"init": "2", "budget-f1": "3", "budget-c1": "4", "budget": "1", "abstol": "100"}, 2 + 3 + 4},
		{"cap", bandit.Params{"init": "2", "budget-f1": "3", "budget-c1": "4", "budget": "1", "abstol": "1e-9", "reltol": "0", "iters": "4"}, 2 + 3 + 4 + 3*2},
	} {
		a, p := newADMMBOTest(t, c.ps)
		playPen(t, p, a, 40)
		if !a.stopped || a.StopRound() != c.want {
			t.Fatalf("%s: stopped = %v at round %d, want round %d", c.name, a.stopped, a.StopRound(), c.want)
		}
		d1, _ := a.Decide(&bandit.Round{T: 41})
		d2, _ := a.Decide(&bandit.Round{T: 42})
		for i := range d1.Action.X {
			if d1.Action.X[i] != d2.Action.X[i] {
				t.Fatalf("%s: after the stop: %v then %v", c.name, d1.Action.X, d2.Action.X)
			}
		}
	}
}

// Same seed, same stop round and ρ.
func TestADMMBODeterministic(t *testing.T) {
	var rounds []int
	var rhos []float64
	for k := 0; k < 2; k++ {
		a, p := newADMMBOTest(t, bandit.Params{"budget-c1": "10"})
		playPen(t, p, a, 150)
		rounds, rhos = append(rounds, a.StopRound()), append(rhos, a.Rho())
	}
	if rounds[0] != rounds[1] || rhos[0] != rhos[1] {
		t.Fatalf("two runs: stop rounds %v, ρ %v", rounds, rhos)
	}
}
