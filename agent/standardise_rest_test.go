package agent

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/cbandit/cbandit/bandit"
	"github.com/cbandit/cbandit/problem"
)

// unitsProblem is a problem with its metrics in other units: reward a·f + b,
// costs a·g (the threshold moving with the units, as gardner's scale and
// offset), constraint samples a·g_t(x), and the unit-carrying constants of
// its Info scaled with them. It lets the invariance test run the
// full-information problems, which have no units parameters.
type unitsProblem struct {
	problem.Problem
	a, b float64
}

func (p unitsProblem) Info() bandit.Info {
	in := p.Problem.Info()
	in.B = p.a*in.B + math.Abs(p.b)
	in.G, in.R, in.RG, in.Slater = p.a*in.G, p.a*in.R, p.a*in.RG, p.a*in.Slater
	in.NoiseVar *= p.a * p.a
	return in
}

func (p unitsProblem) Round(rng *rand.Rand, t int) *bandit.Round {
	r := p.Problem.Round(rng, t)
	if cs := r.ConstraintSample; cs != nil {
		r.ConstraintSample = func(x bandit.Action, dst []float64) {
			cs(x, dst)
			for j := range dst {
				dst[j] *= p.a
			}
		}
	}
	return r
}

func (p unitsProblem) Observe(rng *rand.Rand, r *bandit.Round, x bandit.Action, costs []float64) (float64, error) {
	y, err := p.Problem.Observe(rng, r, x, costs)
	for j := range costs {
		costs[j] *= p.a
	}
	return p.a*y + p.b, err
}

// runDelayed plays T rounds like runDecisions, with the rounds prepared by
// the problem (full-information samples) and, with delay, the feedback of
// round r revealed after (3r mod 5) further rounds (so some of it beyond a
// censoring window m = 3), all outstanding feedback at the end.
func runDelayed(t *testing.T, algo string, prob problem.Problem, ps bandit.Params, T int, delay bool) [][]float64 {
	t.Helper()
	a, err := New(algo, Config{Info: prob.Info(), Horizon: T, Seed: 3, Params: ps})
	if err != nil {
		t.Fatal(err)
	}
	type pending struct {
		at int
		fb bandit.Feedback
	}
	var queue []pending
	var xs [][]float64
	m := prob.Info().M
	for r := 1; r <= T; r++ {
		keep := queue[:0]
		for _, q := range queue {
			if q.at <= r {
				if err := a.Observe(q.fb); err != nil {
					t.Fatalf("%s round %d: %v", algo, r, err)
				}
			} else {
				keep = append(keep, q)
			}
		}
		queue = keep
		round := prob.Round(rand.New(rand.NewPCG(5, uint64(r))), r)
		d, err := a.Decide(round)
		if err != nil {
			t.Fatalf("%s round %d: %v", algo, r, err)
		}
		xs = append(xs, append([]float64(nil), d.Action.X...))
		costs := make([]float64, m)
		y, err := prob.Observe(rand.New(rand.NewPCG(11, uint64(r))), round, d.Action, costs)
		if err != nil {
			t.Fatal(err)
		}
		fb := bandit.Feedback{ID: d.ID, Reward: y, HasReward: true, Costs: costs}
		at := r + 1
		if delay {
			at += (3 * r) % 5
		}
		queue = append(queue, pending{at, fb})
	}
	return xs
}

// TestStandardiseInvarianceRest: the GP agents standardised
// after the first five (rpol-censored-ucb with delayed and censored
// feedback, scgp-ucb on full-information samples, igp-ucb, penalty-noisy,
// penalty-noiseless, admmbo) play the same points, to 1e-6 in every
// coordinate, in natural units and with their metrics ×1000 + 50; with
// standardise=off they do not (so the test can tell).
func TestStandardiseInvarianceRest(t *testing.T) {
	const T = 40
	gardner := func(ps bandit.Params) problem.Problem {
		p, err := problem.New("gardner", ps, 1)
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	full, err := problem.New("rkhs-synthetic-full", nil, 1)
	if err != nil {
		t.Fatal(err)
	}
	noiseless := bandit.Params{"noise_g": "0"}
	noiselessScaled := bandit.Params{"noise_g": "0", "scale": "1000", "offset": "50"}
	cases := []struct {
		algo         string
		base, scaled problem.Problem
		ps           bandit.Params
		delay        bool
	}{
		{"rpol-censored-ucb", gardner(nil), gardner(bandit.Params{"scale": "1000", "offset": "50"}), bandit.Params{"m": "3"}, true},
		{"scgp-ucb", full, unitsProblem{full, 1000, 50}, nil, false},
		{"igp-ucb", gardner(nil), gardner(bandit.Params{"scale": "1000", "offset": "50"}), nil, false},
		{"penalty-noisy", gardner(nil), gardner(bandit.Params{"scale": "1000", "offset": "50"}), bandit.Params{"S": "5"}, false},
		{"penalty-noisy", gardner(nil), gardner(bandit.Params{"scale": "1000", "offset": "50"}), bandit.Params{"S": "5", "history": "all"}, false},
		{"penalty-noiseless", gardner(noiseless), gardner(noiselessScaled), bandit.Params{"S": "5"}, false},
		{"admmbo", gardner(nil), gardner(bandit.Params{"scale": "1000", "offset": "50"}), bandit.Params{"budget-f1": "4", "budget-c1": "4", "budget": "3"}, false},
	}
	for _, c := range cases {
		on := bandit.Params{}
		for k, v := range c.ps {
			on[k] = v
		}
		xa := runDelayed(t, c.algo, c.base, on, T, c.delay)
		xb := runDelayed(t, c.algo, c.scaled, on, T, c.delay)
		var worst float64
		distinct := map[[2]float64]bool{}
		for r := range xa {
			for i := range xa[r] {
				worst = math.Max(worst, math.Abs(xa[r][i]-xb[r][i]))
			}
			if len(xa[r]) >= 2 {
				distinct[[2]float64{xa[r][0], xa[r][1]}] = true
			} else {
				distinct[[2]float64{xa[r][0]}] = true
			}
		}
		t.Logf("%s %v: largest coordinate difference over %d rounds %.3g (%d distinct points)", c.algo, c.ps, T, worst, len(distinct))
		if worst > 1e-6 {
			t.Errorf("%s %v: decisions differ by %.3g between the unit systems", c.algo, c.ps, worst)
		}
		if len(distinct) < 3 {
			t.Errorf("%s %v: only %d distinct points: the test would not see a difference", c.algo, c.ps, len(distinct))
		}
		off := bandit.Params{"standardise": "off"}
		for k, v := range c.ps {
			off[k] = v
		}
		xa = runDelayed(t, c.algo, c.base, off, T, c.delay)
		xb = runDelayed(t, c.algo, c.scaled, off, T, c.delay)
		worst = 0
		for r := range xa {
			for i := range xa[r] {
				worst = math.Max(worst, math.Abs(xa[r][i]-xb[r][i]))
			}
		}
		t.Logf("%s %v standardise=off: largest coordinate difference %.3g", c.algo, c.ps, worst)
		if worst <= 1e-6 {
			t.Errorf("%s %v standardise=off: decisions unchanged by the units; the test cannot tell", c.algo, c.ps)
		}
	}
}

// TestStandardiseInvarianceFiniteLong: on finite arms (no continuous
// refinement, whose Nelder–Mead steps can turn a rounding difference into a
// different point, see docs/defaults.md) rpol-censored-ucb, penalty-noisy
// and igp-ucb play exactly the same arms over 300 rounds of delayed
// feedback in natural units and ×1000 + 50 (rkhs-synthetic, through the
// unitsProblem wrapper).
func TestStandardiseInvarianceFiniteLong(t *testing.T) {
	base, err := problem.New("rkhs-synthetic", nil, 1)
	if err != nil {
		t.Fatal(err)
	}
	scaled := unitsProblem{base, 1000, 50}
	for _, algo := range []string{"rpol-censored-ucb", "penalty-noisy", "igp-ucb"} {
		xa := runDelayed(t, algo, base, nil, 300, true)
		xb := runDelayed(t, algo, scaled, nil, 300, true)
		n := 0
		for r := range xa {
			for i := range xa[r] {
				if xa[r][i] != xb[r][i] {
					n++
					break
				}
			}
		}
		if n > 0 {
			t.Errorf("%s: %d of 300 rounds play another arm in ×1000 + 50 units", algo, n)
		}
	}
}
