package agent

import (
	"errors"
	"fmt"
	"math"

	"github.com/cbandit/cbandit/bandit"
	"github.com/cbandit/cbandit/domain"
	"github.com/cbandit/cbandit/linear"
)

// OPNLB is Pacchiano et al. Alg. 4 (Optimistic–Pessimistic Nonlinear Bandit) for finite
// function classes G_r, G_c over a finite set of K arms (Info.Stage.RewardClass
// and CostClass; one constraint).
//
// Least squares over the class (Pacchiano et al. App. G.1): θ̂_t = argmin_{θ∈G_r} Σ_s (θ(X_s) − R_s)²,
// computed from the per-arm counts n_a and sums as Σ_a n_a θ(a)² − 2θ(a)ΣR; the
// same for μ̂_t over G_c. The confidence sets of Pacchiano et al. §5.3 are
//
//	C^r_t = {θ ∈ G_r : ‖θ − θ̂_t‖_{D_t} ≤ γ_r(t, δ/2)},
//	C^c_t = {μ ∈ G_c : ‖μ − μ̂_t‖_{D_t} ≤ γ_c(t, δ/2), μ(x₀) = c₀},
//
// with ‖f‖²_{D_t} = Σ_a n_a f(a)² and γ(t, δ) = 512 log(24|G| log(2t)/δ),
// multiplied by gamma-scale (1 = the paper's constant, which is worst-case
// and keeps the sets wide for a long time).
//
// Line 5 is solved exactly: Π̃^f_t = {π : E_π μ ≤ τ ∀μ ∈ C^c_t} is a polytope
// and Ṽ^r_t(π) = max_{θ, μ′, μ″} E_π[θ + α_r(μ′ − μ″)] is convex (a maximum of
// linear functions), so its maximum over the polytope is attained at a vertex.
// For small K the vertices are enumerated (C(K + |C^c_t|, K − 1) K×K systems);
// otherwise the largest of |C^r_t|·|C^c_t|² LPs over the polytope is taken
// ([linear.SolveLP]). Either way the cost grows fast with K and the class
// sizes: OPNLB is for small finite classes (Pacchiano et al. §5.3 notes Step 5 is
// intractable in general).
type OPNLB struct {
	*stageCommon
	k, safe    int
	gr, gc     [][]float64
	gammaScale float64
	nR, nC     []int
	sR, sC     []float64
	inR, inC   []int // members of the confidence sets
	w, pi, bst []float64
	cons       [][]float64
	taus       []float64
}

// The settings of OPNLB (Pacchiano et al. §5.3).
var (
	opnlbAlphaR = bandit.FloatParam{Name: "alpha-r", Computed: "(1 − r₀)/(τ − c₀)", Range: bandit.AtLeast(0),
		Doc: "weight α_r of the inflated cost width in Ṽ^r", Source: "Pacchiano et al. Lemma 37"}
	opnlbGamma  = multiplierDoc("gamma-scale", "multiplier on the radii γ_r, γ_c = 512 log(24|G| log(2t)/δ)", "1: Pacchiano et al. §5.3")
	opnlbParams = []bandit.Param{
		failureDoc("delta", "failure probability δ of the confidence sets", "Pacchiano et al. §5.3, Cor. 54 leave δ open: our choice"),
		opnlbAlphaR, opnlbGamma,
	}
)

func newOPNLB(cfg Config) (bandit.Agent, error) {
	const name = "opnlb"
	st := cfg.Info.Stage
	if st != nil && (st.RewardClass == nil || st.CostClass == nil) {
		return nil, fmt.Errorf("%s: the problem gives no finite function classes (Info.Stage.RewardClass and CostClass, Pacchiano et al. §5.3)", name)
	}
	c, err := newStageCommon(name, cfg, stageOpts{freeAlpha: true})
	if err != nil {
		return nil, err
	}
	if c.m != 1 {
		return nil, fmt.Errorf("%s: the problem has M = %d constraints; OPNLB (Pacchiano et al. §5.3) handles one", name, c.m)
	}
	fin, ok := cfg.Info.Domain.(*domain.Finite)
	if !ok {
		return nil, fmt.Errorf("%s: OPNLB needs a finite set of arms, the domain is %v", name, cfg.Info.Domain)
	}
	k := fin.N
	if k < 2 {
		return nil, fmt.Errorf("%s: K = %d arms: need at least 2", name, k)
	}
	if st.SafeArm < 0 || st.SafeArm >= k {
		return nil, fmt.Errorf("%s: safe arm %d is outside the %d arms", name, st.SafeArm, k)
	}
	check := func(field string, cl [][]float64) error {
		if len(cl) == 0 {
			return fmt.Errorf("%s: Info.Stage.%s is empty", name, field)
		}
		for i, f := range cl {
			if len(f) != k {
				return fmt.Errorf("%s: Info.Stage.%s[%d] has %d values for %d arms", name, field, i, len(f), k)
			}
			for a, v := range f {
				if math.IsNaN(v) || math.IsInf(v, 0) {
					return fmt.Errorf("%s: Info.Stage.%s[%d][%d] = %v: must be finite", name, field, i, a, v)
				}
			}
		}
		return nil
	}
	if err := check("RewardClass", st.RewardClass); err != nil {
		return nil, err
	}
	if err := check("CostClass", st.CostClass); err != nil {
		return nil, err
	}
	a := &OPNLB{stageCommon: c, k: k, safe: st.SafeArm, gr: st.RewardClass, gc: st.CostClass,
		nR: make([]int, k), nC: make([]int, k), sR: make([]float64, k), sC: make([]float64, k),
		w: make([]float64, k), pi: make([]float64, k), bst: make([]float64, k)}
	def := math.Max(0, 1-st.R0) / (c.tau[0] - st.C0[0])
	if a.alphaR, err = opnlbAlphaR.ReadOr(name, cfg.Params, def); err != nil {
		return nil, err
	}
	if !(a.alphaR >= 0) || math.IsInf(a.alphaR, 0) { // the computed default, with a vanishing margin
		return nil, bandit.ParamErrorf(name, "alpha-r", "= %v: must be a finite number ≥ 0", a.alphaR)
	}
	if a.gammaScale, err = opnlbGamma.Read(name, cfg.Params); err != nil {
		return nil, err
	}
	return a, nil
}

// confSet returns the members of {f ∈ G : ‖f − f̂‖_{D_t} ≤ γ} with f̂ the least
// squares fit (filter: extra membership condition, nil for none).
func confSet(cl [][]float64, n []int, s []float64, gamma float64, filter func([]float64) bool, dst []int) []int {
	best, bestLoss := -1, math.Inf(1)
	for i, f := range cl {
		var loss float64
		for a, v := range f {
			loss += float64(n[a])*v*v - 2*v*s[a]
		}
		if loss < bestLoss {
			best, bestLoss = i, loss
		}
	}
	dst = dst[:0]
	fh := cl[best]
	for i, f := range cl {
		var d2 float64
		for a, v := range f {
			e := v - fh[a]
			d2 += float64(n[a]) * e * e
		}
		if math.Sqrt(d2) <= gamma && (filter == nil || filter(f)) {
			dst = append(dst, i)
		}
	}
	return dst
}

// radius is γ(t, δ/2) = 512 log(24|G| log(2t)/(δ/2)) of Pacchiano et al. §5.3.
func (a *OPNLB) radius(size int) float64 {
	t := math.Max(float64(a.t), 1)
	return a.gammaScale * 512 * math.Log(24*float64(size)*math.Log(2*t)/(a.delta/2))
}

// Decide implements bandit.Agent: lines 3–6 of Pacchiano et al. Alg. 4.
func (a *OPNLB) Decide(r *bandit.Round) (bandit.Decision, error) {
	a.t++
	if r.Arms != nil && len(r.Arms) != a.k {
		return bandit.Decision{}, fmt.Errorf("%s: round %d has %d arms, the problem has %d", a.name, r.T, len(r.Arms), a.k)
	}
	c0, tau := a.st.C0[0], a.tau[0]
	a.inR = confSet(a.gr, a.nR, a.sR, a.radius(len(a.gr)), nil, a.inR)
	a.inC = confSet(a.gc, a.nC, a.sC, a.radius(len(a.gc)), func(f []float64) bool {
		return math.Abs(f[a.safe]-c0) <= 1e-9*(1+math.Abs(c0))
	}, a.inC)
	for i := range a.bst {
		a.bst[i] = 0
	}
	if len(a.inR) == 0 || len(a.inC) == 0 {
		a.bst[a.safe] = 1
		return a.decision(r, a.safe), nil
	}
	bestVal := math.Inf(-1)
	if nv := binom(a.k+len(a.inC), a.k-1); nv <= maxVertexSets {
		// Ṽ^r_t is convex in π, so its maximum over the polytope Π̃^f_t is at a vertex.
		a.vertices(tau, func(pi []float64) {
			if v := a.optimistic(pi); v > bestVal+1e-12 {
				bestVal = v
				copy(a.bst, pi)
			}
		})
	} else if err := a.byLPs(tau, &bestVal); err != nil {
		return bandit.Decision{}, fmt.Errorf("%s: round %d: %w", a.name, r.T, err)
	}
	if math.IsInf(bestVal, -1) {
		for i := range a.bst {
			a.bst[i] = 0
		}
		a.bst[a.safe] = 1
	}
	return a.decision(r, a.sample(a.bst)), nil
}

// maxVertexSets bounds the vertex enumeration (C(K+|C^c|, K−1) linear
// systems); larger instances solve one LP per (θ, μ′, μ″) instead.
const maxVertexSets = 20000

func binom(n, k int) int {
	if k < 0 || k > n {
		return 0
	}
	r := 1
	for i := 1; i <= k; i++ {
		r = r * (n - k + i) / i
		if r > 1<<40 {
			return r
		}
	}
	return r
}

// optimistic is Ṽ^r_t(π) = max_θ E_π θ + α_r (max_μ E_π μ − min_μ E_π μ) over
// the confidence sets (Pacchiano et al. §5.3).
func (a *OPNLB) optimistic(pi []float64) float64 {
	ev := func(f []float64) float64 {
		var s float64
		for i, p := range pi {
			s += p * f[i]
		}
		return s
	}
	th := math.Inf(-1)
	for _, i := range a.inR {
		th = math.Max(th, ev(a.gr[i]))
	}
	hi, lo := math.Inf(-1), math.Inf(1)
	for _, j := range a.inC {
		v := ev(a.gc[j])
		hi, lo = math.Max(hi, v), math.Min(lo, v)
	}
	return th + a.alphaR*(hi-lo)
}

// vertices calls fn with every vertex of {π ∈ Δ_K : E_π μ ≤ τ ∀μ ∈ C^c_t}:
// the feasible solutions of Σπ = 1 with K−1 of the inequalities π_a ≥ 0,
// E_π μ ≤ τ tight.
func (a *OPNLB) vertices(tau float64, fn func(pi []float64)) {
	k, nc := a.k, len(a.inC)
	rows := k + nc
	mat := make([]float64, k*(k+1))
	pi := make([]float64, k)
	idx := make([]int, k-1)
	var rec func(pos, start int)
	rec = func(pos, start int) {
		if pos == k-1 {
			// rows: Σπ = 1, then the chosen tight constraints.
			for j := 0; j < k; j++ {
				mat[j] = 1
			}
			mat[k] = 1
			for r, id := range idx {
				row := mat[(r+1)*(k+1) : (r+2)*(k+1)]
				for j := range row {
					row[j] = 0
				}
				if id < k {
					row[id] = 1 // π_id = 0
				} else {
					copy(row[:k], a.gc[a.inC[id-k]])
					row[k] = tau
				}
			}
			if !solve(mat, k, pi) {
				return
			}
			for _, v := range pi {
				if v < -1e-9 {
					return
				}
			}
			for _, j := range a.inC {
				var e float64
				for i, p := range pi {
					e += p * a.gc[j][i]
				}
				if e > tau+1e-9 {
					return
				}
			}
			for i := range pi {
				pi[i] = math.Max(pi[i], 0)
			}
			fn(pi)
			return
		}
		for j := start; j < rows; j++ {
			idx[pos] = j
			rec(pos+1, j+1)
		}
	}
	rec(0, 0)
}

// solve solves the k×k system in m (row-major with the right-hand side as
// column k) by Gaussian elimination with partial pivoting; false if singular.
func solve(m []float64, k int, x []float64) bool {
	w := k + 1
	for c := 0; c < k; c++ {
		p := c
		for r := c + 1; r < k; r++ {
			if math.Abs(m[r*w+c]) > math.Abs(m[p*w+c]) {
				p = r
			}
		}
		if math.Abs(m[p*w+c]) < 1e-12 {
			return false
		}
		if p != c {
			for j := 0; j < w; j++ {
				m[p*w+j], m[c*w+j] = m[c*w+j], m[p*w+j]
			}
		}
		for r := c + 1; r < k; r++ {
			f := m[r*w+c] / m[c*w+c]
			for j := c; j < w; j++ {
				m[r*w+j] -= f * m[c*w+j]
			}
		}
	}
	for r := k - 1; r >= 0; r-- {
		s := m[r*w+k]
		for j := r + 1; j < k; j++ {
			s -= m[r*w+j] * x[j]
		}
		x[r] = s / m[r*w+r]
	}
	return true
}

// byLPs maximises Ṽ^r_t by one LP per (θ, μ′, μ″) (Ṽ^r_t is the maximum of
// these linear objectives), for instances too large for vertex enumeration.
func (a *OPNLB) byLPs(tau float64, bestVal *float64) error {
	a.cons = a.cons[:0]
	a.taus = a.taus[:0]
	for _, j := range a.inC {
		a.cons = append(a.cons, a.gc[j])
		a.taus = append(a.taus, tau)
	}
	for _, i := range a.inR {
		for _, j1 := range a.inC {
			for _, j2 := range a.inC {
				th, m1, m2 := a.gr[i], a.gc[j1], a.gc[j2]
				for arm := range a.w {
					a.w[arm] = th[arm] + a.alphaR*(m1[arm]-m2[arm])
				}
				v, err := linear.SolveLP(a.w, a.cons, a.taus, a.safe, a.pi)
				if err != nil {
					if errors.Is(err, linear.ErrInfeasible) {
						continue
					}
					return err
				}
				if v > *bestVal {
					*bestVal = v
					copy(a.bst, a.pi)
				}
			}
		}
	}
	return nil
}

func (a *OPNLB) decision(r *bandit.Round, arm int) bandit.Decision {
	act := bandit.ArmAction(arm)
	if r.Arms != nil {
		act.X = r.Arms[arm]
	}
	d := a.ledger.Record(r.T, act, 0)
	d.Policy = append([]float64(nil), a.bst...)
	return d
}

// Observe implements bandit.Agent.
func (a *OPNLB) Observe(fb bandit.Feedback) error {
	acc, costs, err := a.accept(fb)
	if err != nil {
		return err
	}
	arm := acc.Action.Arm
	if acc.HasReward {
		a.nR[arm]++
		a.sR[arm] += acc.Reward
	}
	if costs != nil {
		a.nC[arm]++
		a.sC[arm] += costs[0]
	}
	return nil
}

// SetSizes returns |C^r_t| and |C^c_t| of the last decision (for tests).
func (a *OPNLB) SetSizes() (int, int) { return len(a.inR), len(a.inC) }

func init() {
	Register(Spec{
		Name:    "opnlb",
		Can:     Caps{Domains: []string{DomainFinite}, Kinds: []bandit.ConstraintKind{KindPerRound}, NeedsConstraints: true, NeedsStage: true, NeedsClass: true, Randomised: true, Pending: PendingDraw},
		Summary: "OPNLB: optimistic–pessimistic policies, finite nonlinear function classes",
		Source:  "Pacchiano et al. Alg. 4, §5.3, Lemma 37, Thm. 38",
		Params:  opnlbParams,
		New:     newOPNLB,
	})
}
