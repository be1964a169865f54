package linear

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/optimize/convex/lp"
)

// ErrInfeasible is returned when no policy satisfies the constraints.
var ErrInfeasible = errors.New("linear: no policy satisfies the constraints")

// SolveLP1 solves the linear program of Pacchiano et al. eq. (37),
//
//	max_{π ∈ Δ_K} Σ_a π_a r_a  s.t.  Σ_a π_a c_a ≤ τ,
//
// writing an optimal π supported on at most two arms into pi (len K) and
// returning its value (Pacchiano et al. Lemma 30; App. D.1, Lemma 40 and (44)).
//
// Method: if the best arm among {a : c_a ≤ τ} has the largest reward
// overall, the optimum is a point mass on it. Otherwise the optimum lies on the
// upper hull of the points (c_a, r_a) above c = τ, on a segment between an
// arm a₁ with c ≤ τ and an arm a₂ with c > τ, mixed as in Pacchiano et al. eq. (44). Starting
// from the best feasible arm and the best arm, each pivot replaces the
// endpoint on the same side of τ as the point furthest above the line through
// (c_{a₁}, r_{a₁}) and (c_{a₂}, r_{a₂}); the value at τ strictly increases, and
// when no point lies above the line its slope λ is an optimal dual variable of
// Pacchiano et al. (D) (complementary slackness), so the pair is optimal. A pivot costs
// O(K); a handful of pivots suffice in practice.
//
// Entries of r and c must be finite. The tie-break is deterministic (lower
// cost, then lower index).
func SolveLP1(r, c []float64, tau float64, pi []float64) (float64, error) {
	return SolveLP1Hint(r, c, tau, pi, nil)
}

// SolveLP1Hint is [SolveLP1] started from the pair hint[0] (cost ≤ τ),
// hint[1] (cost > τ) when that pair is valid, typically the previous round's
// solution; the pivots then usually stop after one verification pass. hint
// (len 2, or nil) is updated to the pair of the solution, or −1s for a point
// mass. Any valid start gives the same optimal value.
func SolveLP1Hint(r, c []float64, tau float64, pi []float64, hint []int) (float64, error) {
	k := len(r)
	if len(c) != k || len(pi) != k {
		return 0, fmt.Errorf("linear: LP with %d rewards, %d costs, %d policy entries", k, len(c), len(pi))
	}
	for i := range pi {
		pi[i] = 0
	}
	best := -1 // best feasible arm
	top := -1  // best arm overall among infeasible ones
	for a := 0; a < k; a++ {
		if c[a] <= tau {
			if best < 0 || r[a] > r[best] || (r[a] == r[best] && c[a] < c[best]) {
				best = a
			}
		} else if top < 0 || r[a] > r[top] || (r[a] == r[top] && c[a] < c[top]) {
			top = a
		}
	}
	if best < 0 {
		return 0, ErrInfeasible
	}
	if top < 0 || r[top] <= r[best] {
		pi[best] = 1
		if hint != nil {
			hint[0], hint[1] = -1, -1
		}
		return r[best], nil
	}
	a1, a2 := best, top
	if len(hint) == 2 && hint[0] >= 0 && hint[0] < k && hint[1] >= 0 && hint[1] < k &&
		c[hint[0]] <= tau && c[hint[1]] > tau {
		a1, a2 = hint[0], hint[1]
	}
	scale := 1.0
	for a := 0; a < k; a++ {
		if v := math.Abs(r[a]); v > scale {
			scale = v
		}
		if v := math.Abs(c[a]); v > scale {
			scale = v
		}
	}
	tol := 1e-12 * scale
	for it := 0; it <= k*k+2; it++ {
		s := (r[a2] - r[a1]) / (c[a2] - c[a1])
		arg, ex := -1, tol
		for a := 0; a < k; a++ {
			e := r[a] - r[a1] - s*(c[a]-c[a1])
			if e > ex {
				arg, ex = a, e
			}
		}
		if arg < 0 {
			w2 := (tau - c[a1]) / (c[a2] - c[a1])
			w1 := 1 - w2
			pi[a1] += w1
			pi[a2] += w2
			if hint != nil {
				hint[0], hint[1] = a1, a2
			}
			return w1*r[a1] + w2*r[a2], nil
		}
		if c[arg] <= tau {
			a1 = arg
		} else {
			a2 = arg
		}
	}
	return 0, errors.New("linear: LP pivoting did not terminate")
}

// SolveLP solves the m-constraint linear program of Pacchiano et al. App. D.4,
//
//	max_{π ∈ Δ_K} Σ_a π_a r_a  s.t.  Σ_a π_a c_i[a] ≤ τ_i,  i = 1..m,
//
// with gonum's simplex method (slack variables turn the inequalities into
// equalities; a basic optimal solution has at most m + 1 non-zero entries, the
// support bound of App. D.4). safe ≥ 0 names an arm known to satisfy every
// constraint, used as the starting basis; −1 starts from phase one. For m = 1
// it calls [SolveLP1].
func SolveLP(r []float64, c [][]float64, tau []float64, safe int, pi []float64) (float64, error) {
	m := len(c)
	k := len(r)
	if len(tau) != m {
		return 0, fmt.Errorf("linear: LP with %d cost rows and %d thresholds", m, len(tau))
	}
	if len(pi) != k {
		return 0, fmt.Errorf("linear: LP with %d rewards and %d policy entries", k, len(pi))
	}
	if m == 0 {
		return SolveLP1(r, make([]float64, k), 0, pi)
	}
	if m == 1 {
		return SolveLP1(r, c[0], tau[0], pi)
	}
	return solveSimplex(r, c, tau, safe, pi)
}

// solveSimplex is the gonum path of SolveLP for any m ≥ 1.
func solveSimplex(r []float64, c [][]float64, tau []float64, safe int, pi []float64) (float64, error) {
	m, k := len(c), len(r)
	for i := range c {
		if len(c[i]) != k {
			return 0, fmt.Errorf("linear: cost row %d has %d entries, want %d", i, len(c[i]), k)
		}
	}
	n := k + m
	A := mat.NewDense(m+1, n, nil)
	b := make([]float64, m+1)
	obj := make([]float64, n)
	for a := 0; a < k; a++ {
		A.Set(0, a, 1)
		obj[a] = -r[a]
		for i := 0; i < m; i++ {
			A.Set(i+1, a, c[i][a])
		}
	}
	b[0] = 1
	for i := 0; i < m; i++ {
		A.Set(i+1, k+i, 1)
		b[i+1] = tau[i]
	}
	var basic []int
	if safe >= 0 && safe < k {
		ok := true
		for i := 0; i < m; i++ {
			if c[i][safe] > tau[i] {
				ok = false
			}
		}
		if ok {
			basic = append(basic, safe)
			for i := 0; i < m; i++ {
				basic = append(basic, k+i)
			}
		}
	}
	_, x, err := lp.Simplex(obj, A, b, 1e-10, basic)
	if err != nil {
		if errors.Is(err, lp.ErrInfeasible) {
			return 0, ErrInfeasible
		}
		return 0, fmt.Errorf("linear: simplex: %w", err)
	}
	var sum float64
	for a := 0; a < k; a++ {
		v := x[a]
		if v < 1e-13 {
			v = 0
		}
		pi[a] = v
		sum += v
	}
	if !(sum > 0) {
		return 0, errors.New("linear: simplex returned an empty policy")
	}
	var val float64
	for a := 0; a < k; a++ {
		pi[a] /= sum
		val += pi[a] * r[a]
	}
	return val, nil
}
