package linear

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"
)

// policyInstance is a one-constraint model with data: K actions in R^d (the
// first is the safe action x₀ with known cost c₀), n noisy observations at
// random actions.
func policyInstance(t *testing.T, rng *rand.Rand, k, d, n int, tau float64) (*Safe, [][]float64, *PolicyProblem) {
	t.Helper()
	pts := make([][]float64, k)
	for a := range pts {
		pts[a] = make([]float64, d)
		for i := range pts[a] {
			pts[a][i] = rng.Float64()
		}
	}
	theta := make([]float64, d)
	mu := make([]float64, d)
	for i := range theta {
		theta[i] = rng.Float64() / math.Sqrt(float64(d))
		mu[i] = rng.Float64() / math.Sqrt(float64(d))
	}
	c0 := dot(pts[0], mu)
	s, err := NewSafe(SafeConfig{D: d, Lambda: 1, Delta: 0.05, R: 0.1, RC: 0.1, S: 1, L: math.Sqrt(float64(d)),
		X0: pts[0], M: 1, C0: []float64{c0}, AlphaR: 3, AlphaC: 1})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < n; i++ {
		x := pts[rng.IntN(k)]
		if err := s.ObserveReward(x, dot(x, theta)+0.1*rng.NormFloat64()); err != nil {
			t.Fatal(err)
		}
		if err := s.ObserveCost(0, x, dot(x, mu)+0.1*rng.NormFloat64()); err != nil {
			t.Fatal(err)
		}
	}
	var p PolicyProblem
	if err := s.PolicyProblem(pts, &p); err != nil {
		t.Fatal(err)
	}
	return s, pts, &p
}

// bruteSimplex is the best feasible value on the grid {π : π_a ∈ {0, 1/h, …, 1}}.
func bruteSimplex(p *PolicyProblem, tau []float64, h int) float64 {
	best := math.Inf(-1)
	pi := make([]float64, p.K)
	var rec func(a, left int)
	rec = func(a, left int) {
		if a == p.K-1 {
			pi[a] = float64(left) / float64(h)
			if p.Feasible(pi, tau) {
				best = math.Max(best, p.Reward(pi))
			}
			return
		}
		for i := 0; i <= left; i++ {
			pi[a] = float64(i) / float64(h)
			rec(a+1, left-i)
		}
	}
	rec(0, h)
	return best
}

// The closed forms agree with (9), (10) at the vertices and with (31), (32)
// at a mixture (x_π evaluated directly).
func TestPolicyProblemMatchesClosedForms(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	s, pts, p := policyInstance(t, rng, 5, 3, 40, 0.5)
	pi := []float64{0.1, 0.2, 0.3, 0.15, 0.25}
	xpi := make([]float64, 3)
	for a, x := range pts {
		for i := range xpi {
			xpi[i] += pi[a] * x[i]
		}
		e := make([]float64, 5)
		e[a] = 1
		if got, want := p.Reward(e), s.OptimisticReward(x); math.Abs(got-want) > 1e-12 {
			t.Fatalf("f(e_%d) = %v, (9) gives %v", a, got, want)
		}
		if got, want := p.Cost(0, e), s.PessimisticCost(0, x); math.Abs(got-want) > 1e-12 {
			t.Fatalf("g(e_%d) = %v, (10) gives %v", a, got, want)
		}
	}
	if got, want := p.Reward(pi), s.OptimisticReward(xpi); math.Abs(got-want) > 1e-12 {
		t.Fatalf("f(π) = %v, (31) at x_π gives %v", got, want)
	}
	if got, want := p.Cost(0, pi), s.PessimisticCost(0, xpi); math.Abs(got-want) > 1e-12 {
		t.Fatalf("g(π) = %v, (32) at x_π gives %v", got, want)
	}
}

// The solver's value is feasible, at least the brute-force grid maximum, and
// no more than the grid's resolution above it; it never falls below the LP
// relaxation (37) (whose solution is feasible for (34), 004 §5.1.1).
func TestPolicySolverMatchesBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	var sol PolicySolver
	checked := 0
	defer func() {
		if checked < 8 {
			t.Fatalf("only %d of 12 instances had a safe x₀", checked)
		}
	}()
	for it := 0; it < 12; it++ {
		k, h := 3, 400
		if it%2 == 1 {
			k, h = 4, 90
		}
		_, _, p := policyInstance(t, rng, k, 3, 5+rng.IntN(60), 0)
		tau := []float64{p.Cost(0, unit(k, 0)) + 0.05 + 0.4*rng.Float64()}
		if p.Cost(0, unit(k, 0)) > tau[0] {
			continue
		}
		checked++
		pi := make([]float64, k)
		v, err := sol.Solve(p, tau, 0, nil, pi)
		if err != nil {
			t.Fatalf("instance %d: %v", it, err)
		}
		if !p.Feasible(pi, tau) || math.Abs(p.Reward(pi)-v) > 1e-12 {
			t.Fatalf("instance %d: returned π = %v infeasible or value %v ≠ f(π) = %v", it, pi, v, p.Reward(pi))
		}
		b := bruteSimplex(p, tau, h)
		// f is Lipschitz on Δ_K with constant ≤ max|R| + A‖G‖^{1/2}·√K; the grid
		// point nearest the optimum is within √2/h of it, and feasibility moves
		// it by the same order: 3× that bound is generous yet far below the
		// differences a wrong answer makes.
		lip := 0.0
		for _, r := range p.R {
			lip = math.Max(lip, math.Abs(r))
		}
		slack := 3 * (lip + p.A*math.Sqrt(float64(k)*maxAbs(p.G))) * math.Sqrt2 / float64(h)
		if v < b-1e-12 || v > b+slack {
			t.Fatalf("instance %d (K = %d): solver %v, brute force %v (slack %v)", it, k, v, b, slack)
		}
		lpPi := make([]float64, k)
		u := make([]float64, k)
		for a := range u {
			u[a] = p.Cost(0, unit(k, a))
		}
		r := make([]float64, k)
		for a := range r {
			r[a] = p.Reward(unit(k, a))
		}
		if _, err := SolveLP1(r, u, tau[0], lpPi); err == nil && p.Reward(lpPi) > v+1e-12 {
			t.Fatalf("instance %d: LP policy has f = %v above the solver's %v", it, p.Reward(lpPi), v)
		}
	}
}

func maxAbs(x []float64) float64 {
	m := 0.0
	for _, v := range x {
		m = math.Max(m, math.Abs(v))
	}
	return m
}

func unit(k, a int) []float64 {
	e := make([]float64, k)
	e[a] = 1
	return e
}

// Two identical risky arms beside a safe one: mixing them halves the squared
// width of (32), so (34)'s optimum uses all three arms, which the LP (37)
// (at most m + 1 = 2 arms) cannot. Reward 10 and cost 0.5 per risky arm, A = 3,
// B = 1, unit weights, τ = 0.5 (the example in agent/oplb.go): the exact
// value is max over the risky mass p and the split, ≈ 6.11 for the even split.
func TestPolicySolverUsesMoreThanTwoArms(t *testing.T) {
	p := &PolicyProblem{K: 3, R: []float64{0, 10, 10}, A: 3,
		G: []float64{1, 0, 0, 0, 1, 0, 0, 0, 1},
		C: [][]float64{{0, 0.5, 0.5}}, B: []float64{1},
		H: [][]float64{{0, 0, 0, 0, 1, 0, 0, 0, 1}}}
	tau := []float64{0.5}
	var sol PolicySolver
	pi := make([]float64, 3)
	v, err := sol.Solve(p, tau, 0, nil, pi)
	if err != nil {
		t.Fatal(err)
	}
	if pi[1] < 0.1 || pi[2] < 0.1 {
		t.Fatalf("π = %v: want both risky arms mixed", pi)
	}
	// Even split with risky mass q: g = 0.5q + q/√2 = τ.
	q := 0.5 / (0.5 + 1/math.Sqrt2)
	even := []float64{1 - q, q / 2, q / 2}
	if v < p.Reward(even)-1e-9*math.Max(1, math.Abs(v)) {
		t.Fatalf("value %v below the even split's %v", v, p.Reward(even))
	}
	if b := bruteSimplex(p, tau, 600); v < b-1e-12 || v > b+0.1 {
		t.Fatalf("value %v, brute force %v", v, b)
	}
	// The LP relaxation with the per-arm widths: best two-arm policy.
	r := []float64{p.Reward(unit(3, 0)), p.Reward(unit(3, 1)), p.Reward(unit(3, 2))}
	c := []float64{p.Cost(0, unit(3, 0)), p.Cost(0, unit(3, 1)), p.Cost(0, unit(3, 2))}
	lp := make([]float64, 3)
	if _, err := SolveLP1(r, c, tau[0], lp); err != nil {
		t.Fatal(err)
	}
	if p.Reward(lp) > v-0.5 {
		t.Fatalf("LP policy %v has f = %v, want well below the exact %v", lp, p.Reward(lp), v)
	}
}

func TestPolicySolverErrors(t *testing.T) {
	p := &PolicyProblem{K: 2, R: []float64{0, 1}, A: 1, G: []float64{1, 0, 0, 1},
		C: [][]float64{{0.9, 0.1}}, B: []float64{0}, H: [][]float64{{0, 0, 0, 0}}}
	var sol PolicySolver
	if _, err := sol.Solve(p, []float64{0.5}, 0, nil, make([]float64, 2)); !errors.Is(err, ErrInfeasible) {
		t.Fatalf("unsafe safe action: err = %v", err)
	}
	if _, err := sol.Solve(p, []float64{0.5}, 2, nil, make([]float64, 2)); err == nil {
		t.Fatal("safe index 2 of 2 accepted")
	}
	if _, err := sol.Solve(p, []float64{0.5}, 1, nil, make([]float64, 3)); err == nil {
		t.Fatal("policy of the wrong length accepted")
	}
	p.R[1] = math.NaN()
	if _, err := sol.Solve(p, []float64{0.5}, 1, nil, make([]float64, 2)); err == nil {
		t.Fatal("NaN coefficient accepted")
	}
}

// oneHotInstance is problem (34) of a K-armed bandit with one-hot features
// (x₀ = e₀, known c₀ = 0): G and H diagonal, the case of the budget bound.
func oneHotInstance(t testing.TB, rng *rand.Rand, k, n int) *PolicyProblem {
	t.Helper()
	pts := make([][]float64, k)
	for a := range pts {
		pts[a] = make([]float64, k)
		pts[a][a] = 1
	}
	s, err := NewSafe(SafeConfig{D: k, Lambda: 1, Delta: 0.05, R: 0.5, RC: 0.5, S: 1, L: 1,
		X0: pts[0], M: 1, C0: []float64{0}, AlphaR: 1 + 2*rng.Float64()*4, AlphaC: 1})
	if err != nil {
		t.Fatal(err)
	}
	r, c := make([]float64, k), make([]float64, k)
	for a := 1; a < k; a++ {
		r[a], c[a] = rng.Float64(), rng.Float64()
	}
	for i := 0; i < n; i++ {
		a := rng.IntN(k)
		if rng.IntN(2) == 0 {
			a = 0
		}
		bern := func(p float64) float64 {
			if rng.Float64() < p {
				return 1
			}
			return 0
		}
		if err := s.ObserveReward(pts[a], bern(r[a])); err != nil {
			t.Fatal(err)
		}
		if err := s.ObserveCost(0, pts[a], bern(c[a])); err != nil {
			t.Fatal(err)
		}
	}
	var p PolicyProblem
	if err := s.PolicyProblem(pts, &p); err != nil {
		t.Fatal(err)
	}
	if !diagonal(p.G, k) || !diagonal(p.H[0], k) {
		t.Fatal("one-hot instance with non-diagonal matrices")
	}
	return &p
}

// With diagonal matrices the budget bound prunes; the certified value must
// equal the LP-bound-only search's (the solver before the budget bound) to
// 1e-9 and sit within the grid resolution of brute force.
func TestPolicySolverBudgetBoundMatches(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	var fast, slow PolicySolver
	slow.noBudget = true
	pruned := 0
	for it := 0; it < 40; it++ {
		k := 4 + it%2
		p := oneHotInstance(t, rng, k, 10+rng.IntN(400))
		tau := []float64{0.15 + 0.7*rng.Float64()}
		pf, ps := make([]float64, k), make([]float64, k)
		vf, err := fast.Solve(p, tau, 0, nil, pf)
		if err != nil {
			t.Fatalf("instance %d: %v", it, err)
		}
		vs, err := slow.Solve(p, tau, 0, nil, ps)
		if err != nil {
			t.Fatalf("instance %d (no budget bound): %v", it, err)
		}
		if !p.Feasible(pf, tau) || math.Abs(p.Reward(pf)-vf) > 1e-12 {
			t.Fatalf("instance %d: π = %v infeasible or value %v ≠ f(π)", it, pf, vf)
		}
		if math.Abs(vf-vs) > 1e-9*math.Max(1, math.Abs(vs)) {
			t.Fatalf("instance %d (K = %d): budget bound gives %.12g, LP bound alone %.12g", it, k, vf, vs)
		}
		if fast.Nodes < slow.Nodes {
			pruned++
		}
		if it < 10 {
			h := 60
			if k == 4 {
				h = 120
			}
			b := bruteSimplex(p, tau, h)
			lip := 0.0
			for _, r := range p.R {
				lip = math.Max(lip, math.Abs(r))
			}
			slack := 3 * (lip + p.A*math.Sqrt(float64(k)*maxAbs(p.G))) * math.Sqrt2 / float64(h)
			if vf < b-1e-12 || vf > b+slack {
				t.Fatalf("instance %d (K = %d): solver %v, brute force %v (slack %v)", it, k, vf, b, slack)
			}
		}
	}
	if pruned < 20 {
		t.Fatalf("budget bound saved nodes on only %d of 40 instances", pruned)
	}
}

// The budget bound is valid: on random sub-simplices it is at least f at
// every feasible sampled point.
func TestBudgetBoundIsUpperBound(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	tested := 0
	defer func() {
		if tested < 5000 {
			t.Fatalf("only %d feasible points tested", tested)
		}
	}()
	for it := 0; it < 200; it++ {
		k := 3 + it%6
		p := oneHotInstance(t, rng, k, rng.IntN(300))
		tau := []float64{0.1 + 0.8*rng.Float64()}
		var s PolicySolver
		s.init(k, 1)
		s.setupBudget(p)
		if len(s.env) != 1 {
			t.Fatal("budget bound not set up for a one-hot instance")
		}
		n := s.newNode()
		for i := 0; i < k; i++ { // random vertices in Δ_K
			v := n.v[i*k : i*k+k]
			var sum float64
			for a := range v {
				v[a] = math.Pow(rng.Float64(), 4)
				sum += v[a]
			}
			for a := range v {
				v[a] /= sum
			}
		}
		ub, ok := s.budgetMax(p, tau, s.env[0], n)
		x := make([]float64, k)
		for trial := 0; trial < 300; trial++ {
			var sum float64
			l := make([]float64, k)
			for i := range l {
				l[i] = math.Pow(rng.Float64(), 3)
				sum += l[i]
			}
			for a := range x {
				x[a] = 0
				for i := range l {
					x[a] += l[i] / sum * n.v[i*k+a]
				}
			}
			if !p.Feasible(x, tau) {
				continue
			}
			if !ok {
				t.Fatalf("instance %d: bound says no feasible point, but %v is feasible", it, x)
			}
			tested++
			if f := p.Reward(x); f > ub+1e-12 {
				t.Fatalf("instance %d: f(%v) = %v above the budget bound %v", it, x, f, ub)
			}
		}
	}
}
