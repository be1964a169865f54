package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/cbandit/cbandit/agent"
	"github.com/cbandit/cbandit/experiment"
	"github.com/cbandit/cbandit/problem"
	"github.com/cbandit/cbandit/progress"
	"github.com/cbandit/cbandit/suite"
)

func init() {
	register(command{
		name:    "suite",
		usage:   "[--set defaults|systems] [--algos a,b,c] [--problems p,q] [--horizon T] [--seeds n|a-b] [--units natural|scaled|both] [--noise f | --noise-free] [--evaluations live|offline] [--workers w] [--out DIR] [--quiet]",
		summary: "measure the defaults: run the practical-defaults suite of constrained BO problems through the service, in process",
		run:     runSuite,
	})
}

const suiteHelp = `
The practical-defaults suite answers "what does a user get who
names no setting?". Each constrained test problem of the BO literature
(cbandit list shows them as suite-<name>; docs/suite.md cites each) is run
through the ask/tell HTTP service, started in process, for every algorithm,
seed and unit system. A study gets a box space, the objective and its goal,
the constraints with thresholds and kind ("long-term" for ckb-*,
"cumulative" otherwise), the algorithm, the seed and the horizon — nothing
else: no params, no prior, no candidates, no native flag. The entry
"default" names no algorithm and no kind: its studies get exactly what a
study gets that says nothing (live: config, cei on typed parameters;
offline: lognei; the kind stage-wise), and the tables label it
"default (<the chosen ID>)". Each round asks a
suggestion, evaluates the true functions, adds Gaussian noise of std 2 % of
each metric's range (--noise f: f of it; --noise-free or --noise 0: none;
the same noise for every algorithm) and tells it.

Unit systems: natural (the problem's own units) and scaled (every metric
m -> 1000 m + 50, thresholds likewise): defaults that work do the same in both.

Scores over the second half of the rounds (t > T/2), on the true functions:
  regret     mean of (f* - f(x_t)) / range(f)
  violation  per round (all but ckb-*): mean of max_j [g_j(x_t)]+ / range(g_j)
             long-term (ckb-*): max_j [mean of g_j(x_t)]+ / range(g_j)
with g_j = metric_j - threshold_j and ranges over the box. The table shows the
mean over seeds per unit system, the difference scaled - natural and the
wall time per round; --out DIR also writes DIR/suite.md and DIR/summary.json
(every seed's numbers). Results do not depend on --workers.

--set systems runs the systems suite instead (docs/systems.md): a model
server that crashes past a memory frontier (told to the service as a failed
observation, "OOM"), a service of 8 typed parameters (ints, log-scaled
floats, categoricals; the study is defined by parameters), SCBO's 10-D
Ackley, the 7-D speed reducer with 11 constraints, a 20-D Levy, and
engineering design problems (pressure vessel, continuous and with stepped
thicknesses; tension-compression spring; welded beam; three-bar truss) and
SCBO's Ackley in 20-D. Beside the scores above, each run is scored as the
BO literature scores it: the best feasible value found within T (natural
units) and its gap to the optimum f* ((best - f*)/|f*| for a minimised
objective, (f* - best)/|f*| for a maximised one, not divided when |f*| < 1e-9;
mean and worst seed), and the shares of evaluations that crashed, or
crashed or broke a limit (overall and over t > T/2; mean and worst seed).

--evaluations offline marks the studies offline (only the final
configuration counts; passed in the study's definition, recorded in
summary.json), runs --algos default unless --algos is given, and adds the
offline scores:
the recommendation the service's summary names at the end, scored on the
true functions (its gap and whether it truly holds every limit; absent
when the summary has none), beside the best feasible gap and the late
shares that crash and that break a limit. docs/systems.md lists the keys
of summary.json.
`

func runSuite(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	c := commands["suite"]
	fs := newFlagSet(c, stderr)
	flagsUsage := fs.Usage
	fs.Usage = func() {
		flagsUsage()
		fmt.Fprint(stderr, suiteHelp)
	}
	algos := fs.String("algos", "", "comma-separated algorithm IDs (see 'cbandit list'), or "+suite.Default+": the studies name no algorithm and get the service's choice, labelled '"+suite.Default+" (<its ID>)'; an entry 'label=id:k=v;k=v' gives its studies those parameters (a sweep of the defaults' values, not the defaults); the parameter "+suite.GenerationKey+"=g (the default's only one) asks for generation g's defaults instead of today's, e.g. 'g9="+suite.Default+":"+suite.GenerationKey+"=9' beside "+suite.Default+", paired by seed (default "+strings.Join(suite.DefaultAlgorithms, ",")+"; with --evaluations offline, "+strings.Join(suite.DefaultOfflineAlgorithms, ",")+")")
	set := fs.String("set", suite.SetDefaults, "problem set: defaults (the practical-defaults suite) or systems ("+strings.Join(problem.SystemsNames(), ",")+")")
	problems := fs.String("problems", "", "comma-separated suite problems (default all of --set; defaults: "+strings.Join(problem.SuiteNames(), ",")+")")
	horizon := fs.Int("horizon", suite.DefaultHorizon, "rounds T per study (at least 2)")
	seeds := fs.String("seeds", strconv.Itoa(suite.DefaultSeeds), "seeds per problem, algorithm and unit system: n (seeds 1..n) or a-b (seeds a..b; a run's numbers depend on its seed alone, so 11-20 repeats those seeds of 1-20)")
	units := fs.String("units", "both", "unit systems: natural, scaled or both")
	workers := fs.Int("workers", 0, "studies run in parallel (0: one per CPU)")
	out := fs.String("out", "", "directory for suite.md and summary.json (optional)")
	batch := fs.Int("batch", 0, "q > 1: every study asks q suggestions at once (count: q), then tells them")
	noiseFree := fs.Bool("noise-free", false, "tell the metrics without noise (the BO literature's usual setting for constrained test problems); the same as --noise 0")
	noise := fs.Float64("noise", suite.NoiseFraction, "noise std of every metric as a fraction of its range over the box (e.g. 0, 0.02, 0.05)")
	noiseScale := fs.String("noise-scale", suite.NoiseRange, "what --noise is a fraction of: range (each metric's range over the box) or limit (each metric's size: |f*| for the objective, the limit for a constraint; engineering problems, whose ranges span orders of magnitude)")
	evaluations := fs.String("evaluations", suite.Live, "what a study says counts: live (every evaluation; limits at every round) or offline (only the final configuration; --algos default unless given; adds the offline scores, on every set)")
	async := fs.Int("async", 0, "q > 1: q asynchronous workers per study (q − 1 pending at every ask)")
	quiet := fs.Bool("quiet", false, "no progress bar")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "cbandit suite: unexpected argument %q\n", fs.Arg(0))
		fs.Usage()
		return errUsage
	}
	if *set != suite.SetDefaults && *set != suite.SetSystems {
		return fmt.Errorf("suite: --set = %q: must be %s or %s", *set, suite.SetDefaults, suite.SetSystems)
	}
	if *noise < 0 || *noise > 1 {
		return fmt.Errorf("suite: --noise = %v: must be a fraction of each metric's range in [0, 1]", *noise)
	}
	if *evaluations != suite.Live && *evaluations != suite.Offline {
		return fmt.Errorf("suite: --evaluations = %q: must be %s or %s", *evaluations, suite.Live, suite.Offline)
	}
	first, count, err := seedRange(*seeds)
	if err != nil {
		return err
	}
	o := suite.Options{Set: *set, Horizon: *horizon, Seeds: count, FirstSeed: first, Workers: *workers, Batch: *batch, Async: *async,
		NoiseFree: *noiseFree || *noise == 0, Noise: *noise, NoiseScale: *noiseScale, Evaluations: *evaluations}
	if *horizon < 2 {
		return fmt.Errorf("suite: --horizon = %d: must be at least 2", *horizon)
	}
	if *workers < 0 {
		return fmt.Errorf("suite: --workers = %d: must be 0 (one per CPU) or more", *workers)
	}
	switch *units {
	case "both":
		o.Units = []string{suite.Natural, suite.Scaled}
	case suite.Natural, suite.Scaled:
		o.Units = []string{*units}
	default:
		return fmt.Errorf("suite: --units = %q: must be natural, scaled or both", *units)
	}
	split := func(flag, s string) ([]string, error) {
		var out []string
		for _, v := range strings.Split(s, ",") {
			if v = strings.TrimSpace(v); v != "" {
				out = append(out, v)
			}
		}
		if len(out) == 0 && s != "" {
			return nil, fmt.Errorf("suite: --%s = %q: no names", flag, s)
		}
		return out, nil
	}
	if o.Algorithms, err = split("algos", *algos); err != nil {
		return err
	}
	if o.Problems, err = split("problems", *problems); err != nil {
		return err
	}
	for i, p := range o.Problems {
		if _, err := problem.SuiteByName(p); err != nil {
			return fmt.Errorf("suite: --problems: %w", err)
		}
		o.Problems[i] = strings.TrimPrefix(p, "suite-")
	}
	for _, a := range o.Algorithms {
		if _, err := suite.ParseEntry(a); err != nil {
			if e, perr := experiment.ParseAlgoEntry(a); perr == nil && e.ID != suite.Default {
				if _, lerr := agent.Lookup(e.ID); lerr != nil {
					return fmt.Errorf("suite: --algos: %w", lerr)
				}
			}
			return err
		}
	}
	if o, err = o.Normalize(); err != nil {
		return err
	}
	enabled := !*quiet
	if f, ok := stderr.(*os.File); ok {
		enabled = enabled && progress.IsTerminal(f)
	}
	bar := progress.New(stderr, len(o.Jobs())*o.Horizon, "suite", enabled)
	o.OnRound = func() { bar.Add(1) }
	sum, err := suite.Run(ctx, o)
	bar.Done()
	if err != nil {
		return err
	}
	fmt.Fprint(stdout, sum.Markdown())
	if *out != "" {
		if err := sum.WriteFiles(*out); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "\nwrote %s/suite.md and %s/summary.json\n", *out, *out)
	}
	return nil
}

// seedRange reads --seeds: n (seeds 1..n) or a-b (seeds a..b), as the first
// seed and the count.
func seedRange(v string) (first, count int, err error) {
	bad := fmt.Errorf("suite: --seeds = %q: want n ≥ 1 (seeds 1..n) or a-b with 1 ≤ a ≤ b (seeds a..b)", v)
	lo, hi, isRange := strings.Cut(v, "-")
	a, err := strconv.Atoi(strings.TrimSpace(lo))
	if err != nil || a < 1 {
		return 0, 0, bad
	}
	if !isRange {
		return 1, a, nil
	}
	b, err := strconv.Atoi(strings.TrimSpace(hi))
	if err != nil || b < a {
		return 0, 0, bad
	}
	return a, b - a + 1, nil
}
