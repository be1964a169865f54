// Package suite measures what a user gets from cbandit's defaults: it runs
// the practical-defaults suite (problem.Suite: constrained test problems of
// the Bayesian-optimisation literature, in their own units) through the ask/
// tell HTTP service, in process, creating every study with "defaults only"
// — a box space (the problem's lo/hi), the objective with its goal, the
// constraints with their thresholds and kind, the algorithm, a seed and the
// horizon T, and nothing else (no params, no prior, no candidates, no native
// flag; the systems set's typed problem gives its typed parameters
// instead of a box). Whatever the service does by default is what is
// measured; the entry Default goes one step further and names no algorithm
// and no constraint kind, so its studies get the service's own choice. An
// entry's "defaults=g" (GenerationKey) asks for generation g's defaults, so
// an earlier generation runs beside today's; suite.md then pairs every entry
// with the first, seed by seed (Paired).
//
// Each round asks one suggestion, evaluates the true functions there, adds
// Gaussian noise of std 2 % of each metric's range over the box (none with
// Options.NoiseFree), and tells the observation; with Options.Batch q the
// study is asked q suggestions at once and told them all, with
// Options.Async q workers each tell their decision and ask the next. The noise of round t comes from a stream derived from
// (problem, seed, t) alone, so every algorithm and both unit systems meet
// the same noise (common random numbers).
//
// Unit systems: "natural" (the problem's units) and "scaled" (every metric
// m ↦ 1000·m + 50, thresholds likewise, noise std × 1000).
//
// Scores, on the true noise-free functions in natural units over the second
// half of the rounds (t > T/2, L = the number of such rounds):
//
//   - late normalised regret: (1/L) Σ_t (f* − f(x_t)) / range(f), f the
//     objective in the maximisation sense, f* its best feasible value;
//   - late normalised violation, per-round kinds (every algorithm but ckb-*,
//     studies of kind "cumulative"): (1/L) Σ_t max_j [g_j(x_t)]⁺ / range(g_j);
//   - late normalised violation, long-term kind (ckb-*, studies of kind
//     "long-term"): max_j [(1/L) Σ_t g_j(x_t)]⁺ / range(g_j);
//
// with g_j = metric_j − threshold_j and the ranges taken over the box
// (problem.SuiteFacts). Results are reported per (problem, algorithm): the
// mean over seeds in each unit system, the difference scaled − natural, and
// the wall time per round (ask + tell, client side); summary.json also has
// each run's CPU time per round (the process's: the run's own with one
// worker). The scores do not depend on the number of workers: each run is a pure function of (problem,
// algorithm, seed, units, T), and runs are aggregated in a fixed order.
//
// The systems set (Options.Set = SetSystems, `cbandit suite --set
// systems`; problem.SystemsSuite, docs/systems.md) adds the traits of tuning
// a real system: a crash region (an evaluation there is told to the service
// as a failed observation with its reason), a study defined by typed
// parameters (suggestions decoded from their params), more dimensions and
// more constraints. Its runs are also scored as the BO literature scores
// them (SystemsScore): the best feasible value found within T and its gap
// to the optimum, and the shares of evaluations that crashed, or crashed or
// broke a limit, overall and over t > T/2. In the late scores above, a
// crashed evaluation counts as the objective's worst value over the box and
// breaks no limit.
//
// `cbandit suite` is the command; BenchmarkSuiteRound measures the service
// path per round; docs/suite.md gives the problems and today's results next
// to the scikit-learn reference of docs/suite_reference.py.
package suite
