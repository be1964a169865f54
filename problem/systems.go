package problem

import (
	"fmt"
	"math"

	"github.com/cbandit/cbandit/bandit"
	"github.com/cbandit/cbandit/domain"
)

// The systems suite: problems with the traits of tuning a real system — a
// region where the system crashes (a hidden constraint: the evaluation
// fails and yields no metric), typed parameters (ints, log-scaled floats,
// categoricals), more dimensions and many constraints — stated like the
// practical-defaults suite (SuiteProblem) and registered the same way, as
// "suite-<name>". `cbandit suite --set systems` runs them; they are not part
// of Suite(), so the practical-defaults suite is unchanged.

// SuiteHidden is a hidden constraint: the evaluation fails with Reason
// (e.g. "OOM") where the metric exceeds Threshold, and nothing is measured
// there (Gelbart, Snoek & Adams 2014, §2: a constraint seen only as
// pass/fail). The metric is known to the problem, never told the learner.
type SuiteHidden struct {
	SuiteConstraint
	Reason string
}

// Suite parameter types (the service's parameter types).
const (
	SuiteFloat       = "float"
	SuiteInt         = "int"
	SuiteCategorical = "categorical"
)

// SuiteParam is one typed parameter of a suite problem stated with
// parameters: coordinate k of x is its value (an int as an integral float,
// a categorical as the index of its choice). Lo and Hi bound a float or
// int; Log searches it on a log scale; Step > 0 restricts a float to
// Lo + k·Step (the service's stepped float).
type SuiteParam struct {
	Name    string
	Type    string
	Lo, Hi  float64
	Log     bool
	Step    float64
	Choices []string
}

// CrashAt returns the reason the evaluation at x fails, or "" when it runs.
func (p *SuiteProblem) CrashAt(x []float64) string {
	if p.Hidden != nil && !(p.Hidden.F(x) <= p.Hidden.Threshold) {
		return p.Hidden.Reason
	}
	return ""
}

// SnapParams maps x to the nearest valid parameter values: ints rounded,
// stepped floats to the nearest step, categorical indices rounded and
// clipped to the choices (a problem without
// parameters returns x). It is how a box point (a continuous relaxation,
// as `cbandit run` plays it) is evaluated.
func (p *SuiteProblem) SnapParams(x []float64) []float64 {
	if p.Params == nil {
		return x
	}
	y := make([]float64, len(x))
	copy(y, x)
	for k, q := range p.Params {
		switch q.Type {
		case SuiteInt:
			y[k] = math.Min(math.Max(math.Round(y[k]), q.Lo), q.Hi)
		case SuiteCategorical:
			y[k] = math.Min(math.Max(math.Round(y[k]), 0), float64(len(q.Choices)-1))
		case SuiteFloat:
			if q.Step > 0 {
				y[k] = math.Min(math.Max(q.Lo+math.Round((y[k]-q.Lo)/q.Step)*q.Step, q.Lo), q.Hi)
			}
		}
	}
	return y
}

// SystemsSuite returns the systems suite problems: the registered ones
// (systemsRegistered), then the engineering problems (engineering.go).
func SystemsSuite() []SuiteProblem {
	return append(systemsRegistered(), vesselProblem(), vesselMIProblem(), springProblem(), weldedBeamProblem(), trussProblem(), ackleyProblem(20))
}

// systemsRegistered are the systems problems also registered as
// "suite-<name>" for `cbandit run`. The engineering problems are suite
// problems only: six more would widen `cbandit list --fits` (a column per
// registered problem) past its 100 columns.
func systemsRegistered() []SuiteProblem {
	return []SuiteProblem{crashProblem(), typedProblem(), ackleyProblem(10), speedReducerProblem(), levy20Problem()}
}

// SystemsNames lists the names of the systems suite problems in order.
func SystemsNames() []string {
	var out []string
	for _, p := range SystemsSuite() {
		out = append(out, p.Name)
	}
	return out
}

// IsSystems reports whether name (short, or "suite-"+name) is a systems
// suite problem.
func IsSystems(name string) bool {
	for _, p := range SystemsSuite() {
		if p.Name == name || "suite-"+p.Name == name {
			return true
		}
	}
	return false
}

// crash: a model server with threads T ∈ [1, 32], batch size B ∈ [1, 32]
// and model size S ∈ [0.5, 8] (GB of weights). A batch of B requests takes
// τ = (4 + 0.5·B)·(1 + 0.1·S)·(1 + T/8) ms on one of T threads (compute
// grows with the batch and the model; threads contend for memory
// bandwidth); throughput = 1000·T·B/τ requests/s; a model of S GB answers a
// share S/(S + 1) correctly; the objective is the goodput, correct answers
// per second = throughput · S/(S + 1) (maximised). The latency limit is
// τ ≤ 60 ms. Memory = 0.05·T·B·S + 2 GB (activations and caches per thread
// and request, plus a runtime); above 48 GB (the card) the server dies:
// "OOM", on 42 % of the box. Goodput grows in T and B, and in S up to S = √10
// at fixed (T, B). The optimum, 4618.88 answers/s at T = B ≈ 19.91,
// S ≈ 2.320, lies where the OOM frontier T·B·S = 920 meets the latency
// limit: without the latency limit the best point needs T ≈ 25, B ≈ 23
// (latency ≈ 74 ms); without the crash, T·B·S ≈ 985 (51 GB).
const (
	crashMemLimit = 48.0
	crashLatLimit = 60.0
)

func crashTau(x []float64) float64 {
	t, b, s := x[0], x[1], x[2]
	return (4 + 0.5*b) * (1 + 0.1*s) * (1 + t/8)
}

func crashMemory(x []float64) float64 { return 0.05*x[0]*x[1]*x[2] + 2 }

func crashGoodput(x []float64) float64 {
	s := x[2]
	return 1000 * x[0] * x[1] / crashTau(x) * s / (s + 1)
}

func crashProblem() SuiteProblem {
	return SuiteProblem{
		Name:    "crash",
		Summary: "maximise the goodput of a model server (threads, batch, model size) s.t. latency ≤ 150 ms; past 48 GB of memory it crashes (OOM, a hidden constraint)",
		Source:  "systems suite: a stated model (this file); hidden constraints as in Gelbart, Snoek & Adams 2014 (UAI) §2",
		Units:   "natural: goodput in correct answers/s, latency in ms, memory in GB",
		Lo:      []float64{1, 1, 0.5}, Hi: []float64{32, 32, 8},
		Objective: SuiteMetric{Name: "goodput", Unit: "1/s", F: crashGoodput},
		Goal:      SuiteMaximize,
		Constraints: []SuiteConstraint{
			{SuiteMetric{Name: "latency", Unit: "ms", F: crashTau}, crashLatLimit},
		},
		Hidden: &SuiteHidden{SuiteConstraint{SuiteMetric{Name: "memory", Unit: "GB", F: crashMemory}, crashMemLimit}, "OOM"},
		LitOpt: math.NaN(), LitSource: "none published: the optimum is computed (SuiteFacts, checked by a dense search in the tests)",
	}
}

// typed: a replicated web service with 8 typed parameters. Throughput
// (requests/s, maximised) = base(d)·u(timeout)·v(gc) with the discrete part
// d = (workers, batch, queue, replicas, compression, scheduler),
// u = exp(−0.1·ln²(timeout/200 ms)) (timeouts too short drop requests, too
// long hold workers) and v = 1 − 0.5·(gc − 0.6)² (the share of a heap
// collected per cycle). The limits: latency = L(d)·(1 + 0.3·gc) ≤ 50 ms and
// memory = M(d)·(1.5 − gc) ≤ 16 GB. Given d, the best timeout is 200 ms and
// the best gc is 0.6 clipped to the interval the two limits allow, so the
// optimum is exact by enumerating the 589,824 discrete combinations
// (typedOptimum).
var (
	typedCompression = []string{"none", "lz4", "zstd"}
	typedScheduler   = []string{"fifo", "fair", "priority"}
	// Per compression: throughput factor, CPU (latency) factor, memory factor.
	typedCompThr = [3]float64{1, 0.97, 0.9}
	typedCompCPU = [3]float64{1, 1.1, 1.4}
	typedCompMem = [3]float64{1, 0.6, 0.4}
	// Per scheduler: throughput factor, latency factor.
	typedSchedThr = [3]float64{1, 0.95, 0.9}
	typedSchedLat = [3]float64{1, 0.85, 0.75}
)

const (
	typedLatLimit = 50.0
	typedMemLimit = 16.0
)

// typedParts returns base(d), L(d), M(d) and the floats (timeout, gc) of x.
func typedParts(x []float64) (base, lat, mem, timeout, gc float64) {
	w, b, q, r := math.Round(x[0]), math.Round(x[1]), math.Round(x[2]), math.Round(x[3])
	timeout, gc = x[4], x[5]
	c := int(math.Min(math.Max(math.Round(x[6]), 0), 2))
	s := int(math.Min(math.Max(math.Round(x[7]), 0), 2))
	base = math.Pow(r, 0.8) * 100 * w / (1 + w/6) * b / (1 + b/16) * (1 + 0.4*q/(q+2)) * typedCompThr[c] * typedSchedThr[s]
	lat = (2 + 0.8*b*typedCompCPU[c]) * (1 + 0.08*q) * (1 + w/(3*r)) * typedSchedLat[s]
	mem = 2.5*r + 0.02*w*b*r*typedCompMem[c] + 0.1*q*r
	return
}

func typedThroughput(x []float64) float64 {
	base, _, _, timeout, gc := typedParts(x)
	l := math.Log(timeout / 200)
	return base * math.Exp(-0.1*l*l) * (1 - 0.5*(gc-0.6)*(gc-0.6))
}

func typedLatency(x []float64) float64 {
	_, lat, _, _, gc := typedParts(x)
	return lat * (1 + 0.3*gc)
}

func typedMemory(x []float64) float64 {
	_, _, mem, _, gc := typedParts(x)
	return mem * (1.5 - gc)
}

var typedParams = []SuiteParam{
	{Name: "workers", Type: SuiteInt, Lo: 1, Hi: 16},
	{Name: "batch", Type: SuiteInt, Lo: 1, Hi: 64, Log: true},
	{Name: "queue", Type: SuiteInt, Lo: 1, Hi: 8},
	{Name: "replicas", Type: SuiteInt, Lo: 1, Hi: 8},
	{Name: "timeout_ms", Type: SuiteFloat, Lo: 10, Hi: 1000, Log: true},
	{Name: "gc", Type: SuiteFloat, Lo: 0.1, Hi: 0.9},
	{Name: "compression", Type: SuiteCategorical, Choices: typedCompression},
	{Name: "scheduler", Type: SuiteCategorical, Choices: typedScheduler},
}

// typedOptimum enumerates the discrete combinations; for each, the best
// timeout is 200 ms and the best gc is 0.6 clipped to the feasible interval
// [max(0.1, 1.5 − 16/M), min(0.9, (50/L − 1)/0.3)] (v is a concave
// parabola with its peak at 0.6; latency grows and memory falls with gc).
func typedOptimum() (x []float64, f float64) {
	f = math.Inf(-1)
	y := make([]float64, 8)
	y[4] = 200
	for w := 1.0; w <= 16; w++ {
		for b := 1.0; b <= 64; b++ {
			for q := 1.0; q <= 8; q++ {
				for r := 1.0; r <= 8; r++ {
					for c := range 3 {
						for s := range 3 {
							y[0], y[1], y[2], y[3], y[6], y[7] = w, b, q, r, float64(c), float64(s)
							_, lat, mem, _, _ := typedParts(y)
							lo := math.Max(0.1, 1.5-typedMemLimit/mem)
							hi := math.Min(0.9, (typedLatLimit/lat-1)/0.3)
							if lo > hi {
								continue
							}
							y[5] = math.Min(math.Max(0.6, lo), hi)
							if v := typedThroughput(y); v > f {
								f, x = v, append([]float64(nil), y...)
							}
						}
					}
				}
			}
		}
	}
	return x, f
}

func typedProblem() SuiteProblem {
	lo, hi := make([]float64, len(typedParams)), make([]float64, len(typedParams))
	for k, q := range typedParams {
		lo[k], hi[k] = q.Lo, q.Hi
		if q.Type == SuiteCategorical {
			lo[k], hi[k] = 0, float64(len(q.Choices)-1)
		}
	}
	return SuiteProblem{
		Name:    "typed",
		Summary: "maximise the throughput of a replicated service over 8 typed parameters (4 ints, 2 floats, 2 categoricals) s.t. latency ≤ 50 ms and memory ≤ 16 GB",
		Source:  "systems suite: a stated model (this file); typed spaces as in Optuna (Akiba et al. 2019) and Ax",
		Units:   "natural: throughput in requests/s, latency in ms, memory in GB",
		Params:  typedParams,
		Lo:      lo, Hi: hi,
		Objective: SuiteMetric{Name: "throughput", Unit: "1/s", F: typedThroughput},
		Goal:      SuiteMaximize,
		Constraints: []SuiteConstraint{
			{SuiteMetric{Name: "latency", Unit: "ms", F: typedLatency}, typedLatLimit},
			{SuiteMetric{Name: "memory", Unit: "GB", F: typedMemory}, typedMemLimit},
		},
		Exact:  typedOptimum,
		LitOpt: math.NaN(), LitSource: "none published: exact by enumeration (typedOptimum)",
	}
}

// ackleyProblem is SCBO's constrained Ackley in d dimensions.
func ackleyProblem(d int) SuiteProblem {
	lo, hi := make([]float64, d), make([]float64, d)
	for k := range lo {
		lo[k], hi[k] = -5, 10
	}
	src := "Eriksson & Poloczek 2021 (AISTATS, SCBO), §5 (10-D Ackley with c₁ = Σxᵢ ≤ 0, c₂ = ‖x‖₂ − 5 ≤ 0 on [−5,10]^10); BoTorch's SCBO tutorial"
	if d != 10 {
		src += fmt.Sprintf("; the same stated in %d dimensions", d)
	}
	return SuiteProblem{
		Name:    fmt.Sprintf("ackley%d", d),
		Summary: fmt.Sprintf("minimise Ackley on [−5,10]^%d s.t. Σxᵢ ≤ 0 and ‖x‖₂ ≤ 5", d),
		Source:  src,
		Units:   fmt.Sprintf("natural (Ackley 0 … ≈ 22; Σx %d … %d; ‖x‖ 0 … %.1f)", -5*d, 10*d, 10*math.Sqrt(float64(d))),
		Lo:      lo, Hi: hi,
		Objective: SuiteMetric{Name: "ackley", F: ackley},
		Goal:      SuiteMinimize,
		Constraints: []SuiteConstraint{
			{SuiteMetric{Name: "sum", F: sumOf}, 0},
			{SuiteMetric{Name: "norm", F: norm2}, 5},
		},
		// Ackley ≥ 0 with equality only at 0, which is feasible.
		Exact:  func() ([]float64, float64) { return make([]float64, d), 0 },
		LitOpt: 0, LitSource: "Ackley's global minimum 0 at the origin, feasible (Σx = 0 on the boundary)",
	}
}

// speedReducer is the weight of Golinski's speed reducer (Lemonge et al.
// 2010 §4.2; BoTorch's SpeedReducer): x = (face width b, module m, teeth
// z, shaft lengths l₁ l₂, shaft diameters d₁ d₂).
func speedReducer(x []float64) float64 {
	x1, x2, x3, x4, x5, x6, x7 := x[0], x[1], x[2], x[3], x[4], x[5], x[6]
	return 0.7854*x1*x2*x2*(3.3333*x3*x3+14.9334*x3-43.0934) -
		1.508*x1*(x6*x6+x7*x7) + 7.4777*(x6*x6*x6+x7*x7*x7) + 0.7854*(x4*x6*x6+x5*x7*x7)
}

func speedReducerProblem() SuiteProblem {
	c := func(name string, thr float64, f func(x1, x2, x3, x4, x5, x6, x7 float64) float64) SuiteConstraint {
		return SuiteConstraint{SuiteMetric{Name: name, F: func(x []float64) float64 {
			return f(x[0], x[1], x[2], x[3], x[4], x[5], x[6])
		}}, thr}
	}
	return SuiteProblem{
		Name:    "speed-reducer",
		Summary: "minimise the weight of a speed reducer (7 design variables) s.t. 11 constraints (bending, surface stress, shaft deflections and stresses, geometry)",
		Source:  "Golinski 1973; the statement of Lemonge, Barbosa, Borges & Silva 2010 (Mecánica Computacional 29) §4.2, as BoTorch's SpeedReducer test function states it (bounds and constraints)",
		Units:   "natural: weight in grams-equivalent units of the statement; constraints as ratios (≤ 1), stresses (MPa-like, ≤ 1100 and ≤ 850) and dimensionless geometry",
		Lo:      []float64{2.6, 0.7, 17, 7.3, 7.8, 2.9, 5.0}, Hi: []float64{3.6, 0.8, 28, 8.3, 8.3, 3.9, 5.5},
		Objective: SuiteMetric{Name: "weight", F: speedReducer},
		Goal:      SuiteMinimize,
		Constraints: []SuiteConstraint{
			c("bending", 1, func(x1, x2, x3, _, _, _, _ float64) float64 { return 27 / (x1 * x2 * x2 * x3) }),
			c("surface", 1, func(x1, x2, x3, _, _, _, _ float64) float64 { return 397.5 / (x1 * x2 * x2 * x3 * x3) }),
			c("deflection1", 1, func(_, x2, x3, x4, _, x6, _ float64) float64 {
				return 1.93 * x4 * x4 * x4 / (x2 * x3 * x6 * x6 * x6 * x6)
			}),
			c("deflection2", 1, func(_, x2, x3, _, x5, _, x7 float64) float64 {
				return 1.93 * x5 * x5 * x5 / (x2 * x3 * x7 * x7 * x7 * x7)
			}),
			c("stress1", 1100, func(_, x2, x3, x4, _, x6, _ float64) float64 {
				a := 745 * x4 / (x2 * x3)
				return math.Sqrt(a*a+16.9e6) / (0.1 * x6 * x6 * x6)
			}),
			c("stress2", 850, func(_, x2, x3, _, x5, _, x7 float64) float64 {
				a := 745 * x5 / (x2 * x3)
				return math.Sqrt(a*a+157.5e6) / (0.1 * x7 * x7 * x7)
			}),
			c("mz", 40, func(_, x2, x3, _, _, _, _ float64) float64 { return x2 * x3 }),
			c("width_min", -5, func(x1, x2, _, _, _, _, _ float64) float64 { return -x1 / x2 }),
			c("width_max", 12, func(x1, x2, _, _, _, _, _ float64) float64 { return x1 / x2 }),
			c("shaft1", 1, func(_, _, _, x4, _, x6, _ float64) float64 { return (1.5*x6 + 1.9) / x4 }),
			c("shaft2", 1, func(_, _, _, _, x5, _, x7 float64) float64 { return (1.1*x7 + 1.9) / x5 }),
		},
		LitOpt: 2996.3482, LitSource: "2996.3482 at (3.5, 0.7, 17, 7.3, 7.8, 3.350215, 5.286683) (Lemonge et al. 2010; BoTorch's SpeedReducer)",
	}
}

// levy is the Levy function (Surjanovic & Bingham's Virtual Library,
// "levy"): ≥ 0, with 0 only at (1, …, 1).
func levy(x []float64) float64 {
	w := func(v float64) float64 { return 1 + (v-1)/4 }
	d := len(x)
	s := math.Sin(math.Pi * w(x[0]))
	f := s * s
	for i := 0; i < d-1; i++ {
		wi := w(x[i])
		t := math.Sin(math.Pi*wi + 1)
		f += (wi - 1) * (wi - 1) * (1 + 10*t*t)
	}
	wd := w(x[d-1])
	t := math.Sin(2 * math.Pi * wd)
	return f + (wd-1)*(wd-1)*(1+t*t)
}

// levy20: Levy in 20 dimensions on [−10,10]²⁰ with SCBO-style constraints
// (Eriksson & Poloczek 2021 §5) moved so that Levy's minimiser (1, …, 1)
// stays feasible: Σxᵢ ≤ 20 (active there) and ‖x‖₂ ≤ 5 (√20 ≈ 4.47 there).
func levy20Problem() SuiteProblem {
	const d = 20
	lo, hi := make([]float64, d), make([]float64, d)
	for k := range lo {
		lo[k], hi[k] = -10, 10
	}
	ones := make([]float64, d)
	for k := range ones {
		ones[k] = 1
	}
	return SuiteProblem{
		Name:    "levy20",
		Summary: "minimise Levy on [−10,10]²⁰ s.t. Σxᵢ ≤ 20 and ‖x‖₂ ≤ 5",
		Source:  "Levy function (Surjanovic & Bingham, Virtual Library of Simulation Experiments); constraints in the style of Eriksson & Poloczek 2021 (AISTATS, SCBO) §5, moved so that the minimiser stays feasible",
		Units:   "natural (Levy 0 … ≈ 10³; Σx −200 … 200; ‖x‖ 0 … 44.7)",
		Lo:      lo, Hi: hi,
		Objective: SuiteMetric{Name: "levy", F: levy},
		Goal:      SuiteMinimize,
		Constraints: []SuiteConstraint{
			{SuiteMetric{Name: "sum", F: sumOf}, 20},
			{SuiteMetric{Name: "norm", F: norm2}, 5},
		},
		Exact:  func() ([]float64, float64) { return ones, 0 },
		LitOpt: 0, LitSource: "Levy's global minimum 0 at (1, …, 1), feasible (Σx = 20 on the boundary, ‖x‖ = √20)",
	}
}

// systemsFactsOf computes the facts of a problem with a hidden constraint
// or an exact optimum; others go to suiteFactsOf. A hidden constraint
// joins the constraints for the optimum search (its points are not
// feasible) but not the ranges; with Exact, the ranges come from the Halton
// sample (snapped to valid parameter values) and the optimum from Exact.
func systemsFactsOf(p *SuiteProblem) (SuiteFacts, error) {
	if p.Hidden == nil && p.Exact == nil && p.Params == nil {
		return suiteFactsOf(p)
	}
	if p.Exact == nil {
		q := *p
		q.Constraints = append(append([]SuiteConstraint(nil), p.Constraints...), p.Hidden.SuiteConstraint)
		q.Hidden = nil
		fa, err := suiteFactsOf(&q)
		if err != nil {
			return fa, err
		}
		m := len(p.Constraints)
		fa.ConRanges = fa.ConRanges[:m]
		// Slater over the regular constraints only: their worst margin
		// over the sample points that do not crash.
		fa.Slater = systemsSlater(p)
		return fa, nil
	}
	m := len(p.Constraints)
	fa := SuiteFacts{ObjRange: [2]float64{math.Inf(1), math.Inf(-1)}, ConRanges: make([][2]float64, m)}
	for j := range fa.ConRanges {
		fa.ConRanges[j] = [2]float64{math.Inf(1), math.Inf(-1)}
	}
	cons := make([]float64, m)
	for _, x := range domain.HaltonPoints(p.Lo, p.Hi, SuiteHaltonN, nil) {
		x = p.SnapParams(x)
		f := p.Eval(x, cons)
		fa.ObjRange[0], fa.ObjRange[1] = math.Min(fa.ObjRange[0], f), math.Max(fa.ObjRange[1], f)
		for j, c := range cons {
			fa.ConRanges[j][0], fa.ConRanges[j][1] = math.Min(fa.ConRanges[j][0], c), math.Max(fa.ConRanges[j][1], c)
		}
	}
	fa.XOpt, fa.Opt = p.Exact()
	if !p.Feasible(fa.XOpt) || p.CrashAt(fa.XOpt) != "" {
		return fa, fmt.Errorf("problem: suite-%s: the exact optimum %v is not feasible", p.Name, fa.XOpt)
	}
	fa.Slater = systemsSlater(p)
	return fa, nil
}

// systemsSlater is −min_x max_j (metric_j − threshold_j) over the snapped
// Halton sample, leaving out points that crash (0 when none is strictly
// feasible).
func systemsSlater(p *SuiteProblem) float64 {
	best := math.Inf(1)
	for _, x := range domain.HaltonPoints(p.Lo, p.Hi, SuiteHaltonN, nil) {
		x = p.SnapParams(x)
		if p.CrashAt(x) != "" {
			continue
		}
		worst := math.Inf(-1)
		for _, c := range p.Constraints {
			worst = math.Max(worst, c.F(x)-c.Threshold)
		}
		best = math.Min(best, worst)
	}
	return math.Max(-best, 0)
}

func init() {
	for _, sp := range systemsRegistered() {
		sp := sp
		summary := sp.Summary + " (systems suite)"
		if sp.Params != nil {
			summary += "; as a box problem, ints are rounded and a categorical's coordinate is its choice's index, rounded"
		}
		Register(Spec{
			Name:    "suite-" + sp.Name,
			Summary: summary,
			Source:  sp.Source,
			Params:  suiteParams,
			New: func(p bandit.Params, _ uint64) (Problem, error) {
				in, err := newSuiteInstance(sp, p)
				if err != nil || sp.Hidden == nil {
					return in, err
				}
				return crashInstance{in.(*suiteInstance)}, nil
			},
		})
	}
}

// crashInstance is a suite problem with a hidden constraint: a Crasher.
type crashInstance struct{ *suiteInstance }

// Crash reports the hidden constraint's reason where the action crashes.
func (c crashInstance) Crash(_ *bandit.Round, a bandit.Action) string {
	if c.box.Contains(a.X) != nil {
		return ""
	}
	return c.sp.CrashAt(a.X)
}

// sumOf is Σᵢ xᵢ (SCBO's first constraint).
func sumOf(x []float64) float64 {
	var s float64
	for _, v := range x {
		s += v
	}
	return s
}
