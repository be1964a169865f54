package problem

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"sync"

	"github.com/cbandit/cbandit/bandit"
	"github.com/cbandit/cbandit/domain"
	"github.com/cbandit/cbandit/gp"
	"github.com/cbandit/cbandit/internal/seed"
)

// The practical-defaults suite (docs/suite.md): constrained test problems
// of the Bayesian-optimisation literature, each stated as a user would state
// it to the service — a box, an objective metric in its own units with its
// goal, and constraint metrics with thresholds (metric ≤ threshold) — plus
// the facts the scorer needs: the constrained optimum and the range of every
// metric over the box. Package suite runs them through the HTTP service
// with defaults only; each is also registered as the problem
// "suite-<name>" for `cbandit run`. docs/suite_reference.py defines the
// same problems again, independently, and problem/testdata/suite_values.json
// (its output) checks these definitions.

// Suite goals (the service's api.Maximize and api.Minimize).
const (
	SuiteMaximize = "maximize"
	SuiteMinimize = "minimize"
)

// SuiteHaltonN is the size of the Halton sample over which a suite
// problem's metric ranges are taken (and its optimum search starts).
const SuiteHaltonN = 20000

// SuiteMetric is a measured quantity of a suite problem, in natural units.
type SuiteMetric struct {
	Name string
	Unit string
	F    func(x []float64) float64
}

// SuiteConstraint is metric ≤ Threshold (natural units).
type SuiteConstraint struct {
	SuiteMetric
	Threshold float64
}

// SuiteProblem is the raw definition of one suite problem.
type SuiteProblem struct {
	// Name is the short name; the registered problem is "suite-"+Name.
	Name    string
	Summary string
	// Source cites the paper, section and equation of the definition.
	Source string
	// Units says where the units come from (natural units of the problem, or
	// a stated affine unit scale for a dimensionless toy problem).
	Units       string
	Lo, Hi      []float64
	Objective   SuiteMetric
	Goal        string // SuiteMinimize or SuiteMaximize
	Constraints []SuiteConstraint
	// LitOpt is the optimal objective value published for the problem (natural
	// units; NaN when none is published), LitSource where.
	LitOpt    float64
	LitSource string
	// Hidden, when set, is where evaluations crash (systems suite).
	Hidden *SuiteHidden
	// Params, when set, type the coordinates of x (systems suite).
	Params []SuiteParam
	// Exact, when set, returns the optimum and a point attaining it, known
	// in closed form or by enumeration; Facts then searches no optimum.
	Exact func() (x []float64, f float64)
	// LimitScales, when set, is for each constraint the size at the optimum
	// of the quantity its limit bounds, where the threshold is 0 (a margin
	// or a normalised ratio): the base of a noise relative to the limits
	// (NoiseScales); nil: each |threshold|.
	LimitScales []float64
}

// NoiseScales are the bases of a noise std given as a share of each
// metric: the objective's |f*| and each constraint's LimitScales[j], or
// |threshold_j| — a noise relative to the limits, as a measurement error
// is relative to what it measures (suite noise-scale=limit). An error
// names a metric whose base is 0 (the problem has no such scale).
func (p *SuiteProblem) NoiseScales(fa SuiteFacts) (obj float64, cons []float64, err error) {
	if obj = math.Abs(fa.Opt); obj == 0 {
		return 0, nil, fmt.Errorf("problem: suite-%s: objective %s: f* = 0 gives no scale for a noise relative to it", p.Name, p.Objective.Name)
	}
	if p.LimitScales != nil && len(p.LimitScales) != len(p.Constraints) {
		return 0, nil, fmt.Errorf("problem: suite-%s: %d limit scales for %d constraints", p.Name, len(p.LimitScales), len(p.Constraints))
	}
	cons = make([]float64, len(p.Constraints))
	for j, c := range p.Constraints {
		cons[j] = math.Abs(c.Threshold)
		if p.LimitScales != nil {
			cons[j] = p.LimitScales[j]
		}
		if !(cons[j] > 0) {
			return 0, nil, fmt.Errorf("problem: suite-%s: constraint %s: limit %g gives no scale for a noise relative to it", p.Name, c.Name, c.Threshold)
		}
	}
	return obj, cons, nil
}

// SuiteFacts are the numbers the scorer needs, in natural units.
type SuiteFacts struct {
	// Opt is the best feasible objective value (in the goal's sense: the
	// smallest for a minimised objective), XOpt a point attaining it.
	Opt  float64
	XOpt []float64
	// ObjRange and ConRanges are [min, max] of the objective and of each
	// constraint metric over a Halton sample of SuiteHaltonN points of the box.
	ObjRange  [2]float64
	ConRanges [][2]float64
	// Slater is −min_x max_j (metric_j − threshold_j) over the sample (> 0:
	// some point satisfies every constraint with that margin).
	Slater float64
}

// Sign is +1 for a maximised objective and −1 for a minimised one: the
// reward (maximised) is Sign·objective.
func (p *SuiteProblem) Sign() float64 {
	if p.Goal == SuiteMinimize {
		return -1
	}
	return 1
}

// Eval writes the constraint metrics at x into cons (len = number of
// constraints) and returns the objective metric, all in natural units.
func (p *SuiteProblem) Eval(x, cons []float64) float64 {
	for j := range p.Constraints {
		cons[j] = p.Constraints[j].F(x)
	}
	return p.Objective.F(x)
}

// Feasible reports whether every constraint metric at x is within its
// threshold.
func (p *SuiteProblem) Feasible(x []float64) bool {
	for _, c := range p.Constraints {
		if !(c.F(x) <= c.Threshold) {
			return false
		}
	}
	return true
}

func gardner1Objective(x []float64) float64 {
	return 100*(math.Cos(2*x[0])*math.Cos(x[1])+math.Sin(x[0])) + 300
}

func gardner1Power(x []float64) float64 {
	return 400*(math.Cos(x[0])*math.Cos(x[1])-math.Sin(x[0])*math.Sin(x[1])) + 1500
}

func branin(x []float64) float64 {
	const a, r, s = 1.0, 6.0, 10.0
	b := 5.1 / (4 * math.Pi * math.Pi)
	c := 5 / math.Pi
	t := 1 / (8 * math.Pi)
	u := x[1] - b*x[0]*x[0] + c*x[0] - r
	return a*u*u + s*(1-t)*math.Cos(x[0]) + s
}

func ackley(x []float64) float64 {
	var s2, sc float64
	for _, v := range x {
		s2 += v * v
		sc += math.Cos(2 * math.Pi * v)
	}
	d := float64(len(x))
	return -20*math.Exp(-0.2*math.Sqrt(s2/d)) - math.Exp(sc/d) + 20 + math.E
}

func norm2(x []float64) float64 {
	var s float64
	for _, v := range x {
		s += v * v
	}
	return math.Sqrt(s)
}

// hartmann6 constants: Dixon & Szegő (1978), as tabulated by Surjanovic &
// Bingham's Virtual Library of Simulation Experiments (hart6).
var (
	h6Alpha = [4]float64{1.0, 1.2, 3.0, 3.2}
	h6A     = [4][6]float64{{10, 3, 17, 3.5, 1.7, 8}, {0.05, 10, 17, 0.1, 8, 14}, {3, 3.5, 1.7, 10, 17, 8}, {17, 8, 0.05, 10, 0.1, 14}}
	h6P     = [4][6]float64{{1312, 1696, 5569, 124, 8283, 5886}, {2329, 4135, 8307, 3736, 1004, 9991}, {2348, 1451, 3522, 2883, 3047, 6650}, {4047, 8828, 8732, 5743, 1091, 381}}
)

func hartmann6(x []float64) float64 {
	var tot float64
	for i := range 4 {
		var e float64
		for j := range 6 {
			d := x[j] - h6P[i][j]*1e-4
			e += h6A[i][j] * d * d
		}
		tot += h6Alpha[i] * math.Exp(-e)
	}
	return -tot
}

// Suite returns the suite problems, smallest dimension first.
func Suite() []SuiteProblem {
	return []SuiteProblem{
		{
			Name:    "gardner",
			Summary: "minimise cos 2x₁ cos x₂ + sin x₁ s.t. cos x₁ cos x₂ − sin x₁ sin x₂ ≤ 0.5 on [0,6]² (stated units: latency ms, power W)",
			Source:  "Gardner, Kusner, Xu, Weinberger & Cunningham 2014 (ICML), §5 simulation 1",
			Units:   "stated: latency = 100·f + 300 ms, power = 400·c + 1500 W (threshold 400·0.5 + 1500 = 1700 W); the paper's functions are dimensionless",
			Lo:      []float64{0, 0}, Hi: []float64{6, 6},
			Objective: SuiteMetric{Name: "latency", Unit: "ms", F: gardner1Objective},
			Goal:      SuiteMinimize,
			Constraints: []SuiteConstraint{
				{SuiteMetric{Name: "power", Unit: "W", F: gardner1Power}, 1700},
			},
			// f ≥ −2 everywhere and f(3π/2, 0) = −2 with cos(3π/2) = 0 ≤ 0.5.
			LitOpt: 100, LitSource: "closed form: min f = −2 at (3π/2, 0), feasible (the paper gives no value)",
		},
		{
			Name:    "gramacy",
			Summary: "minimise x₁ + x₂ on [0,1]² s.t. a sinusoidal and a disc constraint (stated units: dollars, kPa, °C)",
			Source:  "Gramacy et al. 2016 (Technometrics 58(1)), §4.1",
			Units:   "stated: cost = 1000·(x₁+x₂) + 200 $, stress = 100·c₁ + 500 kPa (≤ 500), temperature = 10·c₂ + 60 °C (≤ 60)",
			Lo:      []float64{0, 0}, Hi: []float64{1, 1},
			Objective: SuiteMetric{Name: "cost", Unit: "$", F: func(x []float64) float64 { return 1000*(x[0]+x[1]) + 200 }},
			Goal:      SuiteMinimize,
			Constraints: []SuiteConstraint{
				{SuiteMetric{Name: "stress", Unit: "kPa", F: func(x []float64) float64 {
					var d [2]float64
					GramacyG(x, d[:])
					return 100*d[0] + 500
				}}, 500},
				{SuiteMetric{Name: "temperature", Unit: "°C", F: func(x []float64) float64 {
					var d [2]float64
					GramacyG(x, d[:])
					return 10*d[1] + 60
				}}, 60},
			},
			LitOpt: 1000*0.5998 + 200, LitSource: "Gramacy et al. 2016 §4.1: x₁ + x₂ ≈ 0.5998 at (0.1954, 0.4044)",
		},
		{
			Name:    "branin",
			Summary: "minimise Branin–Hoo on [−5,10]×[0,15] s.t. (x₁−2.5)² + (x₂−7.5)² ≤ 50",
			Source:  "Gelbart, Snoek & Adams 2014 (UAI), §5.1 (Branin–Hoo with a disc constraint)",
			Units:   "natural (Branin values 0.398 … 308; squared distance 0 … 112.5)",
			Lo:      []float64{-5, 0}, Hi: []float64{10, 15},
			Objective: SuiteMetric{Name: "branin", F: branin},
			Goal:      SuiteMinimize,
			Constraints: []SuiteConstraint{
				{SuiteMetric{Name: "disc", F: func(x []float64) float64 {
					a, b := x[0]-2.5, x[1]-7.5
					return a*a + b*b
				}}, 50},
			},
			LitOpt: 0.397887, LitSource: "Branin's global minimum 0.397887 at (π, 2.275), inside the disc (Dixon & Szegő 1978)",
		},
		{
			Name:    "ackley3",
			Summary: "minimise Ackley on [−5,10]³ s.t. Σxᵢ ≤ 0 and ‖x‖₂ ≤ 5",
			Source:  "Eriksson & Poloczek 2021 (AISTATS, SCBO), §5: Ackley with c₁ = Σxᵢ ≤ 0, c₂ = ‖x‖₂ − 5 ≤ 0 on [−5,10]^d; the paper uses d = 10, the suite d = 3",
			Units:   "natural (Ackley 0 … ≈ 20; Σx −15 … 30; ‖x‖ 0 … 17.3)",
			Lo:      []float64{-5, -5, -5}, Hi: []float64{10, 10, 10},
			Objective: SuiteMetric{Name: "ackley", F: ackley},
			Goal:      SuiteMinimize,
			Constraints: []SuiteConstraint{
				{SuiteMetric{Name: "sum", F: func(x []float64) float64 { return x[0] + x[1] + x[2] }}, 0},
				{SuiteMetric{Name: "norm", F: norm2}, 5},
			},
			LitOpt: 0, LitSource: "Ackley's global minimum 0 at the origin, feasible (on the boundary of Σxᵢ ≤ 0)",
		},
		{
			Name:    "pressure-vessel",
			Summary: "minimise the cost of a cylindrical pressure vessel (shell Tₛ, head Tₕ, radius R, length L) s.t. two thickness rules and a volume of at least 1,296,000 in³",
			Source:  "Sandgren 1990 (ASME J. Mech. Des. 112); the continuous statement of Coello Coello & Mezura-Montes 2002 (Adv. Eng. Informatics 16) with constraints g₁–g₃ and the box 0 ≤ Tₛ,Tₕ ≤ 1, 0 ≤ R ≤ 50, 0 ≤ L ≤ 240 (as in the DEFT-FUNNEL test set); the suite raises the lower bounds of R and L to 10",
			Units:   "natural: cost in dollars (0 … 13,666 over the box), thickness margins in inches, volume shortfall in cubic inches (≈ −1.1·10⁶ … 1.3·10⁶)",
			Lo:      []float64{0, 0, 10, 10}, Hi: []float64{1, 1, 50, 240},
			Objective: SuiteMetric{Name: "cost", Unit: "$", F: func(x []float64) float64 {
				ts, th, r, l := x[0], x[1], x[2], x[3]
				return 0.6224*ts*r*l + 1.7781*th*r*r + 3.1661*ts*ts*l + 19.84*ts*ts*r
			}},
			Goal: SuiteMinimize,
			Constraints: []SuiteConstraint{
				{SuiteMetric{Name: "shell_margin", Unit: "in", F: func(x []float64) float64 { return 0.0193*x[2] - x[0] }}, 0},
				{SuiteMetric{Name: "head_margin", Unit: "in", F: func(x []float64) float64 { return 0.00954*x[2] - x[1] }}, 0},
				{SuiteMetric{Name: "volume_shortfall", Unit: "in³", F: func(x []float64) float64 {
					r, l := x[2], x[3]
					return 1296000 - (math.Pi*r*r*l + 4.0/3.0*math.Pi*r*r*r)
				}}, 0},
			},
			// The optimum is the vertex where g₁, g₂, g₃ and L ≤ 240 are active:
			// R solves πR²·240 + 4/3·πR³ = 1296000, Tₛ = 0.0193R, Tₕ = 0.00954R
			// (test TestSuitePressureVesselVertex).
			LitOpt: 5804.45, LitSource: "5804.45, the best known value of the DEFT-FUNNEL test set's statement (after Coello Coello & Mezura-Montes 2002); the vertex of g₁–g₃ and L = 240 gives 5804.3762",
		},
		{
			Name:    "hartmann6",
			Summary: "minimise Hartmann-6 on [0,1]⁶ s.t. ‖x‖₂ ≤ 1",
			Source:  "Letham, Karrer, Ottoni & Bakshy 2019 (Bayesian Analysis 14(2)), §5 (constrained Hartmann6, ‖x‖₂ ≤ 1, as in BoTorch's ConstrainedHartmann); Hartmann-6 of Dixon & Szegő 1978",
			Units:   "natural (Hartmann-6 −3.32 … 0; norm 0 … 2.45)",
			Lo:      []float64{0, 0, 0, 0, 0, 0}, Hi: []float64{1, 1, 1, 1, 1, 1},
			Objective: SuiteMetric{Name: "hartmann6", F: hartmann6},
			Goal:      SuiteMinimize,
			Constraints: []SuiteConstraint{
				{SuiteMetric{Name: "norm", F: norm2}, 1},
			},
			LitOpt: -3.32237, LitSource: "Hartmann-6 minimum −3.32237 at (0.20169, 0.150011, 0.476874, 0.275332, 0.311652, 0.6573), ‖x*‖ = 0.946 ≤ 1",
		},
	}
}

// SuiteNames lists the names of the suite problems in Suite order.
func SuiteNames() []string {
	var out []string
	for _, p := range Suite() {
		out = append(out, p.Name)
	}
	return out
}

// SuiteByName returns the named suite problem of Suite or SystemsSuite
// (the short name, or "suite-"+name); the error lists the accepted names.
func SuiteByName(name string) (SuiteProblem, error) {
	for _, p := range append(Suite(), SystemsSuite()...) {
		if p.Name == name || "suite-"+p.Name == name {
			return p, nil
		}
	}
	return SuiteProblem{}, fmt.Errorf("problem: unknown suite problem %q (known: %v, systems: %v)", name, SuiteNames(), SystemsNames())
}

var suiteFacts sync.Map // name → func() (SuiteFacts, error)

// Facts returns the problem's optimum and metric ranges, computed once per
// process (a Halton sample of SuiteHaltonN points, then a feasible pattern
// search from the best feasible points; see suiteFactsOf).
func (p *SuiteProblem) Facts() (SuiteFacts, error) {
	q := *p
	f, _ := suiteFacts.LoadOrStore(p.Name, sync.OnceValues(func() (SuiteFacts, error) { return systemsFactsOf(&q) }))
	return f.(func() (SuiteFacts, error))()
}

// suiteFactsOf computes the facts: ranges over the Halton sample; the
// optimum by a local search (suiteRefine) from the 8 best feasible sample
// points.
func suiteFactsOf(p *SuiteProblem) (SuiteFacts, error) {
	d, m := len(p.Lo), len(p.Constraints)
	if d == 0 || len(p.Hi) != d {
		return SuiteFacts{}, fmt.Errorf("problem: suite-%s: box lo %v, hi %v", p.Name, p.Lo, p.Hi)
	}
	fa := SuiteFacts{ObjRange: [2]float64{math.Inf(1), math.Inf(-1)}, ConRanges: make([][2]float64, m)}
	for j := range fa.ConRanges {
		fa.ConRanges[j] = [2]float64{math.Inf(1), math.Inf(-1)}
	}
	type cand struct {
		x []float64
		v float64 // objective in the minimisation sense
	}
	var feas []cand
	minMax := math.Inf(1)
	cons := make([]float64, m)
	sign := p.Sign()
	for _, x := range domain.HaltonPoints(p.Lo, p.Hi, SuiteHaltonN, nil) {
		f := p.Eval(x, cons)
		fa.ObjRange[0], fa.ObjRange[1] = math.Min(fa.ObjRange[0], f), math.Max(fa.ObjRange[1], f)
		worst := math.Inf(-1)
		for j, c := range cons {
			fa.ConRanges[j][0], fa.ConRanges[j][1] = math.Min(fa.ConRanges[j][0], c), math.Max(fa.ConRanges[j][1], c)
			worst = math.Max(worst, c-p.Constraints[j].Threshold)
		}
		minMax = math.Min(minMax, worst)
		if worst <= 0 {
			feas = append(feas, cand{x, -sign * f})
		}
	}
	if len(feas) == 0 {
		return SuiteFacts{}, fmt.Errorf("problem: suite-%s: no feasible point among %d Halton points", p.Name, SuiteHaltonN)
	}
	fa.Slater = math.Max(-minMax, 0)
	sort.SliceStable(feas, func(a, b int) bool { return feas[a].v < feas[b].v })
	best := feas[0]
	rng := rand.New(rand.NewPCG(seed.Derive(1, "suite-facts:"+p.Name), 0))
	for i := 0; i < 8 && i < len(feas); i++ {
		x, v := suiteRefine(p, &fa, feas[i].x, feas[i].v, rng)
		if v < best.v {
			best = cand{x, v}
		}
	}
	fa.Opt, fa.XOpt = -sign*best.v, best.x
	return fa, nil
}

// suiteRefine is the local search of suiteFactsOf from the feasible point x
// (value v in the minimisation sense): a pattern search (coordinate
// directions and seeded random directions; the step doubled after a success
// and halved after a failure) on the log-barrier function
// v(x)/range(f) − μ Σ_j log(−g_j(x)/range(g_j)) for μ = 10⁻², 10⁻³, …,
// 10⁻¹², each stage from the last, then on v itself accepting only feasible
// points. The barrier keeps the search inside the feasible set, where it
// can slide along curved active constraints that stall a feasible-only
// pattern search (pressure-vessel's optimum is a vertex of three).
func suiteRefine(p *SuiteProblem, fa *SuiteFacts, x []float64, v float64, rng *rand.Rand) ([]float64, float64) {
	x = append([]float64(nil), x...)
	sign := p.Sign()
	rf := fa.ObjRange[1] - fa.ObjRange[0]
	if !(rf > 0) {
		rf = 1
	}
	value := func(y []float64, mu float64) float64 {
		w := -sign * p.Objective.F(y) / rf
		for j, c := range p.Constraints {
			g := c.F(y) - c.Threshold
			if mu == 0 {
				if !(g <= 0) {
					return math.Inf(1)
				}
				continue
			}
			if !(g < 0) {
				return math.Inf(1)
			}
			rg := fa.ConRanges[j][1] - fa.ConRanges[j][0]
			if !(rg > 0) {
				rg = 1
			}
			w -= mu * math.Log(-g/rg)
		}
		return w
	}
	if value(x, 1e-2) == math.Inf(1) {
		// On a constraint's boundary: polish feasibly only.
		return suitePattern(p, x, func(y []float64) float64 { return value(y, 0) }, rng), v
	}
	for mu := 1e-2; mu > 1e-13; mu /= 10 {
		x = suitePattern(p, x, func(y []float64) float64 { return value(y, mu) }, rng)
	}
	x = suitePattern(p, x, func(y []float64) float64 { return value(y, 0) }, rng)
	if w := -sign * p.Objective.F(x); p.Feasible(x) && w < v {
		return x, w
	}
	return x, v
}

// suitePattern minimises h by a pattern search from x (steps relative to
// the box sides, from 0.01 down to 1e-14) and returns the best point.
func suitePattern(p *SuiteProblem, x []float64, h func([]float64) float64, rng *rand.Rand) []float64 {
	d := len(x)
	x = append([]float64(nil), x...)
	hv := h(x)
	y := make([]float64, d)
	dir := make([]float64, d)
	step := 0.01
	try := func() bool {
		for k := range y {
			y[k] = math.Min(math.Max(x[k]+step*(p.Hi[k]-p.Lo[k])*dir[k], p.Lo[k]), p.Hi[k])
		}
		if w := h(y); w < hv {
			copy(x, y)
			hv = w
			return true
		}
		return false
	}
	for iter := 0; iter < 20000 && step > 1e-14; iter++ {
		ok := false
		for k := 0; k < 2*d && !ok; k++ {
			clear(dir)
			dir[k/2] = float64(1 - 2*(k%2))
			ok = try()
		}
		for r := 0; r < 4*d && !ok; r++ {
			var n float64
			for k := range dir {
				dir[k] = rng.NormFloat64()
				n += dir[k] * dir[k]
			}
			n = math.Sqrt(n)
			for k := range dir {
				dir[k] /= n
			}
			ok = try()
		}
		if ok {
			step = math.Min(2*step, 0.1)
		} else {
			step /= 2
		}
	}
	return x
}

// suiteParams are the parameters of the registered suite-<name> problems.
var (
	suiteNoise = bandit.FloatParam{Name: "noise", Default: 0.02, Range: bandit.AtLeast(0),
		Doc: "std of the Gaussian noise of every metric, as a fraction of that metric's range over the box (2 %)", Source: "our choice"}
	suiteScale = func() bandit.FloatParam {
		d := scaleDoc
		d.Doc = "a: the metrics in other units: every metric m ↦ a·m + b, thresholds likewise (so g' = a·g); noise scales with a"
		return d
	}()
	suiteParams = []bandit.Param{suiteNoise, suiteScale, offsetDoc}
)

func init() {
	for _, sp := range Suite() {
		sp := sp
		Register(Spec{
			Name:    "suite-" + sp.Name,
			Summary: sp.Summary + " (practical-defaults suite)",
			Source:  sp.Source,
			Params:  suiteParams,
			New: func(p bandit.Params, _ uint64) (Problem, error) {
				return newSuiteInstance(sp, p)
			},
		})
	}
}

// suiteInstance is a suite problem as a Problem: reward Sign·(a·objective +
// b), costs g_j = a·(metric_j − threshold_j), Gaussian noise of std
// noise·a·range per metric.
type suiteInstance struct {
	sp     SuiteProblem
	fa     SuiteFacts
	in     bandit.Info
	box    *domain.Box
	a, b   float64
	noiseF float64
	noiseG []float64
}

func newSuiteInstance(sp SuiteProblem, p bandit.Params) (Problem, error) {
	name := "suite-" + sp.Name
	frac, err := suiteNoise.Read(name, p)
	if err != nil {
		return nil, err
	}
	a, b, err := unitsParams(name, p)
	if err != nil {
		return nil, err
	}
	fa, err := sp.Facts()
	if err != nil {
		return nil, err
	}
	box, err := domain.NewBox(sp.Lo, sp.Hi)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	ls := make([]float64, len(sp.Lo))
	for k := range ls {
		ls[k] = 0.2 * (sp.Hi[k] - sp.Lo[k])
	}
	k, err := gp.NewARD(0, ls, 1)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	s := &suiteInstance{sp: sp, fa: fa, box: box, a: a, b: b,
		noiseF: frac * a * (fa.ObjRange[1] - fa.ObjRange[0]), noiseG: make([]float64, len(sp.Constraints))}
	var G, RG float64
	for j, c := range sp.Constraints {
		s.noiseG[j] = frac * a * (fa.ConRanges[j][1] - fa.ConRanges[j][0])
		RG = math.Max(RG, s.noiseG[j])
		G = math.Max(G, a*math.Max(math.Abs(fa.ConRanges[j][0]-c.Threshold), math.Abs(fa.ConRanges[j][1]-c.Threshold)))
	}
	s.in = bandit.Info{
		Domain: box, M: len(sp.Constraints), Kernel: k,
		// Prior facts as the other box problems state them: SE kernel of
		// lengthscale 0.2 × side and unit variance, λ the reward noise
		// variance, B and G sup-norm bounds over the sample (the RKHS norms
		// are unknown).
		NoiseVar: math.Max(s.noiseF*s.noiseF, 1e-6),
		B:        math.Max(math.Abs(a*fa.ObjRange[0]+b), math.Abs(a*fa.ObjRange[1]+b)),
		G:        G, R: s.noiseF, RG: RG,
		Slater: a * fa.Slater,
	}
	return s, nil
}

func (s *suiteInstance) Info() bandit.Info { return s.in }

func (s *suiteInstance) Round(_ *rand.Rand, t int) *bandit.Round { return &bandit.Round{T: t} }

func (s *suiteInstance) Truth(_ *bandit.Round, a bandit.Action, costs []float64) (float64, error) {
	if err := s.box.Contains(a.X); err != nil {
		return 0, fmt.Errorf("action: %w", err)
	}
	if s.sp.CrashAt(a.X) != "" {
		// A crash yields nothing: the objective's worst value over the box
		// in the goal's sense and no constraint value (systems suite).
		clear(costs)
		w := s.fa.ObjRange[1]
		if s.sp.Goal == SuiteMaximize {
			w = s.fa.ObjRange[0]
		}
		return s.sp.Sign() * (s.a*w + s.b), nil
	}
	f := s.sp.Eval(a.X, costs)
	for j := range costs {
		costs[j] = s.a * (costs[j] - s.sp.Constraints[j].Threshold)
	}
	return s.sp.Sign() * (s.a*f + s.b), nil
}

// Observe draws the costs' noise first, then the reward's (a fixed order
// that does not depend on the action: common random numbers).
func (s *suiteInstance) Observe(rng *rand.Rand, r *bandit.Round, a bandit.Action, costs []float64) (float64, error) {
	f, err := s.Truth(r, a, costs)
	if err != nil {
		return 0, err
	}
	for j := range costs {
		costs[j] += s.noiseG[j] * rng.NormFloat64()
	}
	return f + s.noiseF*rng.NormFloat64(), nil
}

func (s *suiteInstance) Optimum(*bandit.Round) float64 {
	return s.sp.Sign() * (s.a*s.fa.Opt + s.b)
}
