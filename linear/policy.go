package linear

import (
	"container/heap"
	"errors"
	"fmt"
	"math"
)

// PolicyProblem is problem (34) of Pacchiano et al. §5.1.1 written over the policy simplex
// Δ_K of a finite action set {x_1..x_K}. With x_π = Σ_a π_a x_a the closed
// forms (31) and (32) of Pacchiano et al. Prop. 25 are
//
//	f(π)   = ⟨R, π⟩ + A √(πᵀGπ),        R_a = ⟨x_a, θ̂_t⟩, G_ab = x_aᵀΣ_t⁻¹x_b, A = α_r β_t(δ, d),
//	g_j(π) = ⟨C_j, π⟩ + B_j √(πᵀH_jπ),  C_ja = ⟨x_a^o, e₀⟩c₀/‖x₀‖ + ⟨x_a^{o,⊥}, μ̂^{o,⊥}_t⟩,
//	                                    H_j,ab = (x_a^{o,⊥})ᵀ(Σ^{o,⊥}_t)⁻¹x_b^{o,⊥}, B_j = α_c β_t(δ, d−1),
//
// and (34) is max f(π) over {π ∈ Δ_K : g_j(π) ≤ τ_j for every j}. Both f and
// the g_j are convex and positively homogeneous of degree one.
type PolicyProblem struct {
	K int
	R []float64
	A float64
	G []float64 // K×K row-major
	C [][]float64
	B []float64
	H [][]float64 // each K×K row-major
}

// Reward is f(π) of the type's documentation (Pacchiano et al. eq. (31)).
func (p *PolicyProblem) Reward(pi []float64) float64 {
	return dot(p.R, pi) + p.A*math.Sqrt(policyQuad(p.G, pi, p.K))
}

// Cost is g_j(π) (Pacchiano et al. eq. (32)).
func (p *PolicyProblem) Cost(j int, pi []float64) float64 {
	return dot(p.C[j], pi) + p.B[j]*math.Sqrt(policyQuad(p.H[j], pi, p.K))
}

// Feasible reports whether g_j(π) ≤ τ_j for every j.
func (p *PolicyProblem) Feasible(pi, tau []float64) bool {
	for j := range p.C {
		if p.Cost(j, pi) > tau[j] {
			return false
		}
	}
	return true
}

func policyQuad(m, x []float64, k int) float64 {
	var s float64
	for i := 0; i < k; i++ {
		if x[i] == 0 {
			continue
		}
		s += x[i] * dot(m[i*k:i*k+k], x)
	}
	if s < 0 {
		return 0
	}
	return s
}

// PolicyProblem fills dst with problem (34) over the actions pts at the
// current estimates (the closed forms of Pacchiano et al. Prop. 25; dst's slices are
// reused). Cost O(K d² + K² d) per model.
func (s *Safe) PolicyProblem(pts [][]float64, dst *PolicyProblem) error {
	k := len(pts)
	d := s.cfg.D
	for i, x := range pts {
		if len(x) != d {
			return fmt.Errorf("linear: action %d has %d coordinates, want d = %d", i, len(x), d)
		}
	}
	m := s.cfg.M
	dst.K = k
	dst.R = resize(dst.R, k)
	dst.G = resize(dst.G, k*k)
	if len(dst.C) != m {
		dst.C = make([][]float64, m)
		dst.H = make([][]float64, m)
		dst.B = make([]float64, m)
	}
	w := make([][]float64, k)
	for a := range w {
		w[a] = make([]float64, d)
	}
	th := s.reward.Theta()
	for a, x := range pts {
		dst.R[a] = dot(x, th)
		s.reward.InvMul(x, w[a])
	}
	gram(dst.G, pts, w)
	dst.A = s.cfg.AlphaR * s.BetaR()
	perp := s.cfg.C0 != nil && !s.proj.Zero()
	px := pts
	if perp {
		px = make([][]float64, k)
		for a, x := range pts {
			px[a] = s.proj.Perp(x, make([]float64, d))
		}
	}
	for j := 0; j < m; j++ {
		mdl := s.cost[j]
		dst.C[j] = resize(dst.C[j], k)
		dst.H[j] = resize(dst.H[j], k*k)
		thc := mdl.Theta()
		for a, x := range pts {
			v := dot(px[a], thc)
			if perp {
				v += s.proj.Along(x) * s.cfg.C0[j] / s.proj.NormX0()
			}
			dst.C[j][a] = v
			mdl.InvMul(px[a], w[a])
		}
		gram(dst.H[j], px, w)
		dst.B[j] = s.cfg.AlphaC * s.BetaC(j)
	}
	return nil
}

func resize(x []float64, n int) []float64 {
	if cap(x) < n {
		return make([]float64, n)
	}
	return x[:n]
}

// gram writes M_ab = (⟨x_a, w_b⟩ + ⟨x_b, w_a⟩)/2 (w_b = Σ⁻¹x_b; symmetrised
// against rounding).
func gram(dst []float64, x, w [][]float64) {
	k := len(x)
	for a := 0; a < k; a++ {
		for b := a; b < k; b++ {
			v := 0.5 * (dot(x[a], w[b]) + dot(x[b], w[a]))
			dst[a*k+b], dst[b*k+a] = v, v
		}
	}
}

// ErrNotCertified is returned with the best policy found when the node
// budget of [PolicySolver] ran out before the gap closed.
var ErrNotCertified = errors.New("linear: policy search stopped at its node budget before certifying optimality")

// PolicySolver solves problem (34) of Pacchiano et al. globally: max f(π) subject to
// g_j(π) ≤ τ_j over π ∈ Δ_K, with f and g_j as in [PolicyProblem].
//
// # Method
//
// The objective is convex, so (34) maximises a convex function over a convex
// set: a non-convex program (Pacchiano et al. §5.1.1) whose optimum lies at an extreme
// point of the feasible set, possibly inside a face of Δ_K where the curved
// constraint g = τ is active (mixing several actions shrinks the width of
// (32), so the optimum can use more than m + 1 actions, unlike the LP (37)).
// The solver is a branch-and-bound over simplices, the standard method of
// concave minimisation (Horst and Tuy, Global Optimization, Ch. 7; here for
// the convex maximisation (34)). On a simplex S with vertices v_1..v_K:
//
//   - upper bound: f(Σλ_i v_i) ≤ Σ λ_i f(v_i) (convexity), and
//     g_j(π) ≥ ⟨∇g_j(c), π⟩ for the centroid c (convexity plus homogeneity:
//     g_j(c) = ⟨∇g_j(c), c⟩), so max f over S ∩ feasible is at most the LP
//     max Σλ_i f(v_i) s.t. Σλ_i⟨∇g_j(c), v_i⟩ ≤ τ_j, λ ∈ Δ_K, solved by
//     [SolveLP]; an infeasible LP prunes S;
//   - lower bound: every feasible vertex, and the LP's point pulled back
//     towards the safe action along the segment (the largest feasible scale
//     is [Seg.MaxScale], Pacchiano et al. Lemma 14);
//   - budget bound, when G and H_j are diagonal (one-hot features, where
//     G_aa = H_aa off the safe action): the constraint caps the width,
//     B_j‖π‖_H ≤ τ_j − ⟨C_j, π⟩, so f is at most a convex function of π
//     whose maximum over S is at O(K²) points (see budgetMax); the node's
//     bound is the smaller of the two. On one-hot bandits it cuts K = 5 to
//     a few to a few hundred simplices per round and closes most of the gap at K = 10 and 20 (after
//     2·10⁵ simplices the LP bound alone leaves gaps of the order of the
//     value there), but many rounds at those sizes still need 10⁴ to more
//     than 10⁶ simplices (experiments/stagewise/oplb-exact.yaml; the
//     reproduction runs them under a node budget, oplb-budget.yaml);
//   - branching: the longest edge is bisected.
//
// Both bounds are exact to second order in the simplex's diameter (envelope
// of a smooth convex function, linearisation of a smooth convex constraint),
// so the search closes the gap quickly around a non-degenerate optimum. It
// stops when no open simplex can beat the incumbent by more than
// Tol·max(1, |value|): the returned policy is then optimal for (34) up to
// that tolerance (a certificate, not a heuristic). MaxNodes bounds the work;
// when it is reached the best feasible policy is returned with
// [ErrNotCertified].
type PolicySolver struct {
	// Tol is the relative optimality gap at which the search stops (default 1e-9).
	Tol float64
	// MaxNodes bounds the simplices examined per solve (default 200 000).
	MaxNodes int
	// Nodes is the number of simplices examined by the last call.
	Nodes int
	// Gap is the certified bound on the last call's suboptimality.
	Gap float64

	noBudget bool // tests: the LP bound alone (the solver before the budget bound)
	k        int
	open     nodeHeap
	pool     [][]float64
	fv       []float64
	lam      []float64
	grad     [][]float64
	lcut     [][]float64
	pt       []float64
	u        []float64
	hu       []float64
	cent     []float64
	lpBuf    []float64
	env      []budgetBound
	vr       []float64
	vc       []float64
	vd       []float64
}

// budgetBound is the data of the budget bound of [PolicySolver] for one
// constraint j: the actions Z with H_j,aa = 0 (their G_aa in gz) and
// ρ = max over a ∉ Z of G_aa/H_j,aa.
type budgetBound struct {
	j   int
	zs  []int
	gz  []float64
	rho float64
}

type bbNode struct {
	v  []float64 // K vertices × K coordinates
	fv []float64 // f at the vertices
	ub float64
}

type nodeHeap []*bbNode

func (h nodeHeap) Len() int           { return len(h) }
func (h nodeHeap) Less(i, j int) bool { return h[i].ub > h[j].ub }
func (h nodeHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *nodeHeap) Push(x any)        { *h = append(*h, x.(*bbNode)) }
func (h *nodeHeap) Pop() any {
	old := *h
	n := old[len(old)-1]
	old[len(old)-1] = nil
	*h = old[:len(old)-1]
	return n
}

func (s *PolicySolver) init(k, m int) {
	if s.k != k || len(s.grad) != m {
		s.k = k
		s.fv = make([]float64, k)
		s.lam = make([]float64, k)
		s.pt = make([]float64, k)
		s.u = make([]float64, k)
		s.hu = make([]float64, k)
		s.cent = make([]float64, k)
		s.lpBuf = make([]float64, k)
		s.grad = make([][]float64, m)
		s.lcut = make([][]float64, m)
		for j := range s.grad {
			s.grad[j] = make([]float64, k)
			s.lcut[j] = make([]float64, k)
		}
		s.pool = nil
	}
}

// Solve writes an optimal policy of p into pi (len K) and returns its value
// f(π). safe names an action with g_j(e_safe) ≤ τ_j (the safe action x₀ of
// Pacchiano et al. Ass. 5: π₀ is always feasible, §5.1.1); start, when not nil, is a
// feasible policy to start from (e.g. the LP (37)'s solution). The returned
// policy is always feasible; the error is [ErrNotCertified] when the node
// budget ran out (pi then holds the best policy found).
func (s *PolicySolver) Solve(p *PolicyProblem, tau []float64, safe int, start, pi []float64) (float64, error) {
	k, m := p.K, len(p.C)
	if len(pi) != k || len(tau) != m || len(p.R) != k || len(p.G) != k*k || len(p.B) != m || len(p.H) != m {
		return 0, fmt.Errorf("linear: policy problem with K = %d, %d thresholds for %d constraints, policy of length %d", k, len(tau), m, len(pi))
	}
	if safe < 0 || safe >= k {
		return 0, fmt.Errorf("linear: safe action %d is outside the %d actions", safe, k)
	}
	for _, v := range append(append([]float64{p.A}, p.R...), p.B...) {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return 0, fmt.Errorf("linear: policy problem has a non-finite coefficient %v", v)
		}
	}
	s.init(k, m)
	tol := s.Tol
	if !(tol > 0) {
		tol = 1e-9
	}
	maxNodes := s.MaxNodes
	if maxNodes <= 0 {
		maxNodes = 200000
	}
	// Incumbent: the safe policy, and start when feasible.
	for i := range pi {
		pi[i] = 0
	}
	pi[safe] = 1
	if !p.Feasible(pi, tau) {
		return 0, fmt.Errorf("linear: safe action %d violates a constraint (g = %v): %w", safe, p.Cost(0, pi), ErrInfeasible)
	}
	best := p.Reward(pi)
	if start != nil && len(start) == k && p.Feasible(start, tau) {
		if v := p.Reward(start); v > best {
			best = v
			copy(pi, start)
		}
	}
	consider := func(x []float64) {
		if v := p.Reward(x); v > best && p.Feasible(x, tau) {
			best = v
			copy(pi, x)
		}
	}
	s.open = s.open[:0]
	root := s.newNode()
	for i := 0; i < k; i++ {
		for j := 0; j < k; j++ {
			root.v[i*k+j] = 0
		}
		root.v[i*k+i] = 1
	}
	for i := 0; i < k; i++ {
		root.fv[i] = p.Reward(root.v[i*k : i*k+k])
		consider(root.v[i*k : i*k+k])
	}
	s.Nodes = 0
	s.setupBudget(p)
	if s.bound(p, tau, safe, root, consider) {
		heap.Push(&s.open, root)
	} else {
		s.free(root)
	}
	gap := func() float64 { return tol * math.Max(1, math.Abs(best)) }
	for s.open.Len() > 0 {
		n := heap.Pop(&s.open).(*bbNode)
		if n.ub <= best+gap() {
			s.free(n)
			break
		}
		if s.Nodes >= maxNodes {
			s.Gap = n.ub - best
			heap.Push(&s.open, n)
			s.drain()
			return best, ErrNotCertified
		}
		// Bisect the longest edge.
		ei, ej, el := 0, 1, -1.0
		for i := 0; i < k; i++ {
			vi := n.v[i*k : i*k+k]
			for j := i + 1; j < k; j++ {
				vj := n.v[j*k : j*k+k]
				var d2 float64
				for c := 0; c < k; c++ {
					e := vi[c] - vj[c]
					d2 += e * e
				}
				if d2 > el {
					ei, ej, el = i, j, d2
				}
			}
		}
		mid := s.lpBuf
		for c := 0; c < k; c++ {
			mid[c] = 0.5 * (n.v[ei*k+c] + n.v[ej*k+c])
		}
		fm := p.Reward(mid)
		consider(mid)
		for _, rep := range [2]int{ei, ej} {
			ch := s.newNode()
			copy(ch.v, n.v)
			copy(ch.fv, n.fv)
			copy(ch.v[rep*k:rep*k+k], mid)
			ch.fv[rep] = fm
			if s.bound(p, tau, safe, ch, consider) && ch.ub > best+gap() {
				heap.Push(&s.open, ch)
			} else {
				s.free(ch)
			}
		}
		s.free(n)
	}
	s.Gap = 0
	if s.open.Len() > 0 {
		s.Gap = math.Max(0, s.open[0].ub-best)
	}
	s.drain()
	return best, nil
}

func (s *PolicySolver) drain() {
	for _, n := range s.open {
		s.free(n)
	}
	s.open = s.open[:0]
}

func (s *PolicySolver) newNode() *bbNode {
	k := s.k
	if l := len(s.pool); l > 0 {
		buf := s.pool[l-1]
		s.pool = s.pool[:l-1]
		return &bbNode{v: buf[:k*k], fv: buf[k*k : k*k+k]}
	}
	buf := make([]float64, k*k+k)
	return &bbNode{v: buf[:k*k], fv: buf[k*k : k*k+k]}
}

func (s *PolicySolver) free(n *bbNode) {
	s.pool = append(s.pool, n.v[:cap(n.v)][:s.k*s.k+s.k])
}

// bound sets n.ub (the LP bound of the type's documentation), offers the
// node's candidate points to consider, and reports whether n can hold a
// feasible point.
func (s *PolicySolver) bound(p *PolicyProblem, tau []float64, safe int, n *bbNode, consider func([]float64)) bool {
	s.Nodes++
	k := s.k
	c := s.cent
	for j := range c {
		c[j] = 0
	}
	for i := 0; i < k; i++ {
		for j := 0; j < k; j++ {
			c[j] += n.v[i*k+j] / float64(k)
		}
	}
	for j := range p.C {
		gj := s.grad[j]
		h := p.H[j]
		q := policyQuad(h, c, k)
		copy(gj, p.C[j])
		if q > 1e-300 {
			sq := math.Sqrt(q)
			for a := 0; a < k; a++ {
				gj[a] += p.B[j] * dot(h[a*k:a*k+k], c) / sq
			}
		}
		for i := 0; i < k; i++ {
			s.lcut[j][i] = dot(gj, n.v[i*k:i*k+k])
		}
	}
	ub, err := SolveLP(n.fv, s.lcut, tau, -1, s.lam)
	if err != nil {
		return false
	}
	n.ub = ub
	for _, e := range s.env {
		v, ok := s.budgetMax(p, tau, e, n)
		if !ok {
			return false
		}
		n.ub = math.Min(n.ub, v)
	}
	// Candidate: the LP's point, pulled towards the safe action until feasible.
	x := s.pt
	for j := range x {
		x[j] = 0
	}
	for i := 0; i < k; i++ {
		if s.lam[i] == 0 {
			continue
		}
		for j := 0; j < k; j++ {
			x[j] += s.lam[i] * n.v[i*k+j]
		}
	}
	u := s.u
	for j := range u {
		u[j] = x[j]
	}
	u[safe] -= 1
	t := 1.0
	for j := range p.C {
		h := p.H[j]
		for a := 0; a < k; a++ {
			s.hu[a] = dot(h[a*k:a*k+k], u)
		}
		g := Seg{A: p.C[j][safe], B: dot(p.C[j], u), K: p.B[j], P0: h[safe*k+safe], P1: s.hu[safe], P2: dot(u, s.hu)}
		if v, ok := g.MaxScale(tau[j]); ok {
			t = math.Min(t, v)
		} else {
			t = 0
		}
	}
	for j := range x {
		x[j] = t * u[j]
	}
	x[safe] += 1
	consider(x)
	return true
}

// setupBudget prepares the budget bound (see [PolicySolver]) for every
// constraint j where it applies: G and H_j diagonal and B_j > 0.
func (s *PolicySolver) setupBudget(p *PolicyProblem) {
	s.env = s.env[:0]
	k := p.K
	if s.noBudget || p.A < 0 || !diagonal(p.G, k) {
		return
	}
	for j := range p.C {
		if !(p.B[j] > 0) || !diagonal(p.H[j], k) {
			continue
		}
		e := budgetBound{j: j}
		for a := 0; a < k; a++ {
			g, h := p.G[a*k+a], p.H[j][a*k+a]
			if h <= 0 {
				e.zs = append(e.zs, a)
				e.gz = append(e.gz, math.Max(g, 0))
			} else {
				e.rho = math.Max(e.rho, g/h)
			}
		}
		s.env = append(s.env, e)
	}
	if cap(s.vr) < k {
		s.vr = make([]float64, k)
		s.vc = make([]float64, k)
		s.vd = make([]float64, k)
	}
	s.vr, s.vc, s.vd = s.vr[:k], s.vc[:k], s.vd[:k]
}

func diagonal(m []float64, k int) bool {
	for a := 0; a < k; a++ {
		for b := 0; b < k; b++ {
			if a != b && m[a*k+b] != 0 {
				return false
			}
		}
	}
	return true
}

// budgetMax returns an upper bound on f over the feasible policies of the
// node's simplex S, from the budget inequality of constraint j, and false
// when S holds no policy with ⟨C_j, π⟩ ≤ τ_j (then none is feasible).
//
// With G and H_j diagonal, Z the actions with H_j,aa = 0 and ρ = max over
// a ∉ Z of G_aa/H_j,aa, every π has ‖π‖²_G ≤ Q(π) + ρ‖π‖²_H, Q(π) =
// Σ_{a∈Z} G_aa π_a², and a feasible π has ‖π‖_H ≤ c(π) = (τ_j −
// ⟨C_j, π⟩)/B_j (the constraint itself). On S write π = Σλ_i v_i and let
// b(λ) = Σλ_i ‖v_i‖_H ≥ ‖π‖_H (convexity). S splits into the polytopes
// S₁ = {b ≤ c} and S₂ = {b ≥ c}; on the feasible part of each
//
//	S₁: f(π) ≤ V₁(π) = ⟨R, π⟩ + A √(Q(π) + ρ‖π‖²_H),
//	S₂: f(π) ≤ V₂(π) = ⟨R, π⟩ + A √(Q(π) + ρ [c(π)]₊²),
//
// both convex in π, so their maxima over S₁ and S₂ are at the polytopes'
// vertices: the vertices of S on the right side of b = c and the points
// where an edge of S crosses it, O(K²) points of O(K) each.
func (s *PolicySolver) budgetMax(p *PolicyProblem, tau []float64, e budgetBound, n *bbNode) (float64, bool) {
	k := s.k
	j := e.j
	h := p.H[j]
	tj, bj := tau[j], p.B[j]
	feasible := false
	for i := 0; i < k; i++ {
		v := n.v[i*k : i*k+k]
		s.vr[i] = dot(p.R, v)
		c := (tj - dot(p.C[j], v)) / bj
		if c >= 0 {
			feasible = true
		}
		var q float64
		for a, x := range v {
			q += h[a*k+a] * x * x
		}
		s.vc[i] = c
		s.vd[i] = math.Sqrt(q) - c // b − c at vertex i
	}
	if !feasible {
		return 0, false
	}
	dlt := s.vd
	best := math.Inf(-1)
	u := func(l float64, a, b int, region1 bool) float64 {
		r := l*s.vr[a] + (1-l)*s.vr[b]
		var q float64
		for zi, z := range e.zs {
			y := l*n.v[a*k+z] + (1-l)*n.v[b*k+z]
			q += e.gz[zi] * y * y
		}
		if region1 {
			var nh float64
			va, vb := n.v[a*k:a*k+k], n.v[b*k:b*k+k]
			for c := 0; c < k; c++ {
				y := l*va[c] + (1-l)*vb[c]
				nh += h[c*k+c] * y * y
			}
			q += e.rho * nh
		} else if c := l*s.vc[a] + (1-l)*s.vc[b]; c > 0 {
			q += e.rho * c * c
		}
		return r + p.A*math.Sqrt(q)
	}
	for a := 0; a < k; a++ {
		da := dlt[a]
		if da <= 0 {
			best = math.Max(best, u(1, a, a, true))
		}
		if da >= 0 {
			best = math.Max(best, u(1, a, a, false))
		}
		if da >= 0 {
			continue
		}
		for b := 0; b < k; b++ {
			if db := dlt[b]; db > 0 {
				l := db / (db - da)
				best = math.Max(best, math.Max(u(l, a, b, true), u(l, a, b, false)))
			}
		}
	}
	return best, true
}
