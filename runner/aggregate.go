package runner

import (
	"fmt"
	"maps"
	"math"
	"slices"

	"github.com/cbandit/cbandit/report"
)

// MeanStderr returns the mean and the standard error of the mean (sample
// standard deviation / √n; 0 for n < 2); see [report.MeanStderr].
func MeanStderr(xs []float64) (mean, stderr float64) { return report.MeanStderr(xs) }

// Collect aggregates the jobs of a run — all of them, from one process or
// from the shards of an array job in any order — into the run's output. It
// fails unless every (trial, algorithm) of the spec appears exactly once,
// with every metric recorded at every round. Trials are aggregated in trial
// order, so the numbers do not depend on how the jobs were split or ordered.
func Collect(spec *Spec, rounds []int, metrics []string, jobs []Job) (*Output, error) {
	if err := spec.validate(); err != nil {
		return nil, err
	}
	index := map[string]int{}
	for a, al := range spec.Algos {
		index[al.Label] = a
	}
	grid := make([][]*Job, len(spec.Algos))
	for a := range grid {
		grid[a] = make([]*Job, spec.Trials)
	}
	for k := range jobs {
		j := &jobs[k]
		a, ok := index[j.Algorithm]
		if !ok {
			return nil, fmt.Errorf("job for algorithm %q: not in the run's algorithms", j.Algorithm)
		}
		if j.Trial < 0 || j.Trial >= spec.Trials {
			return nil, fmt.Errorf("job for algorithm %q: trial %d outside [0, %d)", j.Algorithm, j.Trial, spec.Trials)
		}
		if grid[a][j.Trial] != nil {
			return nil, fmt.Errorf("algorithm %q, trial %d: given twice (overlapping shards?)", j.Algorithm, j.Trial)
		}
		for _, m := range metrics {
			if len(j.Metrics[m]) != len(rounds) {
				return nil, fmt.Errorf("algorithm %q, trial %d: metric %s has %d values for %d recorded rounds",
					j.Algorithm, j.Trial, m, len(j.Metrics[m]), len(rounds))
			}
		}
		for k, v := range j.Diagnostics {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("algorithm %q, trial %d: diagnostic %s = %v: must be finite", j.Algorithm, j.Trial, k, v)
			}
		}
		grid[a][j.Trial] = j
	}
	for a, al := range spec.Algos {
		for tr, j := range grid[a] {
			if j == nil {
				return nil, fmt.Errorf("algorithm %q, trial %d: missing (a shard not merged?)", al.Label, tr)
			}
		}
	}

	out := &Output{
		Rounds:   rounds,
		Metrics:  metrics,
		PerTrial: map[string]map[string][][]float64{},
		Seconds:  map[string][]float64{},
	}
	sum := report.Summary{
		Problem:    spec.Problem,
		Params:     map[string]string(spec.ProblemParams.Clone()),
		Horizon:    spec.Horizon,
		Trials:     spec.Trials,
		Seed:       spec.Seed,
		Defaults:   spec.Defaults,
		Batch:      spec.Batch,
		Async:      spec.Async,
		Algorithms: map[string]report.Algorithm{},
	}
	for tr := 0; tr < spec.Trials; tr++ {
		for a := range spec.Algos {
			out.Jobs = append(out.Jobs, *grid[a][tr])
		}
	}
	for a, al := range spec.Algos {
		done := grid[a]
		sum.Specs = append(sum.Specs, report.AlgoSpec{Label: al.Label, ID: al.ID, Params: maps.Clone(map[string]string(al.Params))})
		per := map[string][][]float64{}
		final := map[string]report.Stat{}
		for _, m := range metrics {
			traj := make([][]float64, len(done))
			for i, r := range done {
				traj[i] = r.Metrics[m]
			}
			per[m] = traj
			c := report.Curve{Algorithm: al.Label, Metric: m, Rounds: rounds,
				Mean: make([]float64, len(rounds)), Stderr: make([]float64, len(rounds))}
			col := make([]float64, len(done))
			for k := range rounds {
				for i := range done {
					col[i] = traj[i][k]
				}
				c.Mean[k], c.Stderr[k] = report.MeanStderr(col)
			}
			out.Results.Curves = append(out.Results.Curves, c)
			final[m] = report.Describe(col) // col holds the last round now
		}
		secs := make([]float64, len(done))
		for i, r := range done {
			secs[i] = r.SecondsPerRound
		}
		spr, _ := report.MeanStderr(secs)
		out.PerTrial[al.Label] = per
		out.Seconds[al.Label] = secs
		alg := report.Algorithm{
			Regret:          final[Regret],
			ViolationSoft:   final[ViolationSoft],
			ViolationHard:   final[ViolationHard],
			ViolationCount:  final[ViolationCount],
			SecondsPerRound: spr,
		}
		if c, ok := final[Cost]; ok {
			alg.Cost = &c
		}
		diag, err := collectDiagnostics(al.Label, done)
		if err != nil {
			return nil, err
		}
		alg.Diagnostics = diag
		sum.Algorithms[al.Label] = alg
	}
	out.Results.Summary = sum
	return out, nil
}

// collectDiagnostics describes each diagnostic of one algorithm over its
// trials (trial order). Every trial must report the same keys: a key missing
// from some trial would break the pairing of per-trial values.
func collectDiagnostics(label string, done []*Job) (map[string]report.Stat, error) {
	if len(done) == 0 || len(done[0].Diagnostics) == 0 {
		for _, j := range done {
			if len(j.Diagnostics) > 0 {
				return nil, fmt.Errorf("algorithm %q: trial %d reports diagnostics, trial 0 none", label, j.Trial)
			}
		}
		return nil, nil
	}
	keys := slices.Sorted(maps.Keys(done[0].Diagnostics))
	out := make(map[string]report.Stat, len(keys))
	for _, k := range keys {
		vals := make([]float64, len(done))
		for i, j := range done {
			v, ok := j.Diagnostics[k]
			if !ok || len(j.Diagnostics) != len(keys) {
				return nil, fmt.Errorf("algorithm %q: trial %d reports diagnostics %v, trial 0 %v", label, j.Trial,
					slices.Sorted(maps.Keys(j.Diagnostics)), keys)
			}
			vals[i] = v
		}
		out[k] = report.Describe(vals)
	}
	return out, nil
}
