package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"runtime"
	"strconv"
	"strings"

	"github.com/cbandit/cbandit/bandit"
	"github.com/cbandit/cbandit/experiment"
)

func init() {
	c := command{
		name:  "run",
		usage: "--problem P [--param k=v ...] --algos a,b,c [--trials n] [--horizon T] [--seed s] --out DIR\n       cbandit run --config experiments/<paper>/<name>.yaml [--set key=value ...] --out DIR",
		summary: `Run trials × algorithms on a problem and write DIR/summary.json, DIR/curves.csv,
figures (*.svg, *.png) and DIR/report.md. Algorithm parameters: --algos 'ckb-ucb:alpha=0.1'
(several separated by ';' inside one entry: 'ckb-ucb:alpha=0.1;beta-scale=0.5'); a label of
your own: --algos 'wide=ckb-ucb:beta-scale=2,ckb-ucb'. See 'cbandit list --verbose' for every
problem, algorithm and parameter.

Trial i is the same problem instance, noise and delays for every algorithm (common random
numbers); an algorithm's own randomness depends on (seed, trial, label). So an algorithm's
numbers do not change when others are added, removed or reordered, and report.md compares
algorithms pairwise, trial by trial. report.md prints the command that re-creates the run.
With --shard i/n the run writes only DIR/trials.json; 'cbandit merge' combines the shards.`,
	}
	c.run = func(ctx context.Context, args []string, stdout, stderr io.Writer) error {
		fs := newFlagSet(c, stderr)
		prob := fs.String("problem", "", "problem name (cbandit list)")
		var params, sets listFlag
		fs.Var(&params, "param", "problem parameter key=value (repeatable, or comma-separated)")
		algos := fs.String("algos", "", "comma-separated algorithm IDs, each optionally with ':k=v;k=v' parameters")
		trials := fs.Int("trials", 10, "number of independent trials")
		horizon := fs.Int("horizon", 1000, "number of rounds T per trial")
		seedFlag := fs.Uint64("seed", 1, "random seed: same seed, same numbers, whatever --workers")
		out := fs.String("out", "", "output directory (required)")
		config := fs.String("config", "", "experiment file (YAML); replaces --problem/--algos/--trials/--horizon/--seed")
		fs.Var(&sets, "set", "override a field of --config: horizon=, trials=, seed=, params.<k>=, algorithms.<label>.<k>= (repeatable)")
		quick := fs.Bool("quick", false, "with --config: run the file's reduced 'quick' size")
		workers := fs.Int("workers", runtime.GOMAXPROCS(0), "parallel (trial, algorithm) jobs")
		shard := fs.String("shard", "", "run only slice i/n of the (trial, algorithm) grid (0-based i), for array jobs")
		quiet := fs.Bool("quiet", false, "no progress bar")
		batch := fs.Int("batch", 0, "q > 1: decide q points, then observe all q (parallel evaluations); rounds stay evaluations")
		async := fs.Int("async", 0, "q > 1: q asynchronous workers (each decision sees q − 1 pending)")
		defaults := fs.String("defaults", "practical", "practical: what whoever names no setting gets (docs/defaults.md); paper: the papers' settings, as the experiment files pin them")
		past := fs.String("past", "", "CSV of past measurements every algorithm is told first (header: x1..xd or arm, reward, g1..gm with g ≤ 0 feasible)")
		if err := fs.Parse(args); err != nil {
			return err
		}
		if fs.NArg() > 0 {
			return fmt.Errorf("run: unexpected argument %q (flags go before it? see --help)", fs.Arg(0))
		}
		if *out == "" {
			return fmt.Errorf("run: --out DIR is required")
		}
		if err := checkWorkers(*workers); err != nil {
			return fmt.Errorf("run: %w", err)
		}
		var cfg *experiment.Config
		var err error
		if *config != "" {
			if *prob != "" || *algos != "" {
				return fmt.Errorf("run: --config replaces --problem and --algos; give one or the other")
			}
			if cfg, err = experiment.Load(*config); err != nil {
				return err
			}
			if *batch != 0 || *async != 0 || *past != "" || *defaults != "practical" {
				return fmt.Errorf("run: --batch, --async, --past and --defaults go with --problem; an experiment file sets batch:, async:, past: or defaults:")
			}
			for _, s := range sets {
				if err := cfg.Set(s); err != nil {
					return err
				}
			}
		} else {
			if len(sets) > 0 {
				return fmt.Errorf("run: --set needs --config")
			}
			if *prob == "" {
				return fmt.Errorf("run: --problem is required (or --config); see 'cbandit list'")
			}
			if *algos == "" {
				return fmt.Errorf("run: --algos is required, e.g. --algos ckb-ucb; see 'cbandit list'")
			}
			pp, err := bandit.ParseParams(params)
			if err != nil {
				return fmt.Errorf("run: --param: %w", err)
			}
			cfg = &experiment.Config{Problem: *prob, Params: pp, Horizon: *horizon, Trials: *trials, Seed: *seedFlag, Batch: *batch, Async: *async, Past: *past, Defaults: *defaults}
			for _, entry := range strings.Split(*algos, ",") {
				a, err := experiment.ParseAlgoEntry(entry)
				if err != nil {
					return fmt.Errorf("run: %w", err)
				}
				cfg.Algorithms = append(cfg.Algorithms, a)
			}
		}
		i, n, err := parseShard(*shard)
		if err != nil {
			return err
		}
		o := experiment.Options{Out: *out, Quick: *quick, Quiet: *quiet, Workers: *workers, Shard: i, Shards: n}
		if f, ok := stderr.(*os.File); ok {
			o.Stderr = f
		} else {
			o.Stderr = stderr
		}
		res, err := experiment.Execute(ctx, cfg, o)
		if err != nil {
			return err
		}
		if n > 0 {
			fmt.Fprintf(stdout, "wrote shard %d/%d (%d jobs) to %s/%s; combine all %d shards with 'cbandit merge --out DIR SHARD_DIR...'\n",
				i, n, len(res.Jobs), *out, experiment.TrialsFile, n)
			return nil
		}
		fmt.Fprintf(stdout, "wrote %s (summary.json, curves.csv, report.md, figures)\n", *out)
		printSummary(stdout, res.Results.Summary)
		return nil
	}
	register(c)
}

func parseShard(s string) (int, int, error) {
	if s == "" {
		return 0, 0, nil
	}
	a, b, ok := strings.Cut(s, "/")
	i, err1 := strconv.Atoi(a)
	n, err2 := strconv.Atoi(b)
	if !ok || err1 != nil || err2 != nil || n < 1 || i < 0 || i >= n {
		return 0, 0, fmt.Errorf("--shard = %q: want i/n with 0 ≤ i < n, e.g. 0/4", s)
	}
	return i, n, nil
}
