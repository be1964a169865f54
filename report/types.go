package report

import (
	"fmt"
	"math"
)

// Stat describes one metric over trials: mean with its standard error,
// median and quartiles, and the per-trial values (trial 0, 1, … in order;
// trial i of every algorithm of a run is the same instance and noise, so
// the arrays of two algorithms are paired). See [Describe].
type Stat struct {
	Mean   float64 `json:"mean"`
	Stderr float64 `json:"stderr"`
	Median float64 `json:"median"`
	Q1     float64 `json:"q1"`
	Q3     float64 `json:"q3"`
	// PerTrial holds the final value of each trial.
	PerTrial []float64 `json:"per_trial,omitempty"`
}

// Algorithm is one algorithm's final metrics (at the horizon) in summary.json.
// Keys follow ../shared/DESIGN.md "Metrics".
type Algorithm struct {
	Regret         Stat `json:"regret"`
	ViolationSoft  Stat `json:"violation_soft"`
	ViolationHard  Stat `json:"violation_hard"`
	ViolationCount Stat `json:"violation_count"`
	// Cost is the per-round expected cost of stage-wise settings (Pacchiano et al.); nil elsewhere.
	Cost            *Stat   `json:"cost,omitempty"`
	SecondsPerRound float64 `json:"seconds_per_round"`
	// Diagnostics are the agent's own numbers at the end of each trial
	// (bandit.Diagnostics, e.g. rounds an inner solver left uncertified),
	// by key; nil for agents that report none.
	Diagnostics map[string]Stat `json:"diagnostics,omitempty"`
}

// Summary is the content of DIR/summary.json (a contract: see DESIGN.md).
type Summary struct {
	Problem string            `json:"problem"`
	Params  map[string]string `json:"params"`
	Horizon int               `json:"horizon"`
	Trials  int               `json:"trials"`
	Seed    uint64            `json:"seed"`
	// Defaults is "practical" or "paper": the settings the algorithms ran
	// with where a run names none (cbandit run --defaults).
	Defaults string `json:"defaults,omitempty"`
	// Batch and Async (> 1) say how the run evaluated several decisions at
	// once (runner.Spec); rounds are evaluations either way.
	Batch      int                  `json:"batch,omitempty"`
	Async      int                  `json:"async,omitempty"`
	Algorithms map[string]Algorithm `json:"algorithms"`
	// Specs lists the algorithms in the order they were given, with their
	// labels and parameters, so that a run can be re-created exactly.
	Specs []AlgoSpec `json:"algorithm_specs,omitempty"`
}

// AlgoSpec is one algorithm entry of a run.
type AlgoSpec struct {
	Label  string            `json:"label"`
	ID     string            `json:"id"`
	Params map[string]string `json:"params,omitempty"`
}

// Order returns the algorithm labels in the order given (Specs), or sorted
// by name when the summary has no Specs.
func (s *Summary) Order() []string {
	if len(s.Specs) > 0 {
		out := make([]string, 0, len(s.Specs))
		for _, a := range s.Specs {
			if _, ok := s.Algorithms[a.Label]; ok {
				out = append(out, a.Label)
			}
		}
		return out
	}
	return sortedKeys(s.Algorithms)
}

// Curve is one metric of one algorithm against the round number, mean ±
// stderr across trials, at the recorded rounds (1-based, increasing).
type Curve struct {
	Algorithm string
	Metric    string
	Rounds    []int
	Mean      []float64
	Stderr    []float64
}

// Results is everything one run writes.
type Results struct {
	Summary Summary
	// Curves holds every (algorithm, metric) curve; metrics use the DESIGN.md keys.
	Curves []Curve
	// Title names the experiment in figures and report.md.
	Title string
	// Paper holds the numbers the paper reports, by algorithm then metric key,
	// set beside ours in report.md; PaperSource cites where they come from.
	Paper       map[string]map[string]float64
	PaperSource string
	// Notes is free Markdown appended to report.md (choices the paper leaves open).
	Notes string
	// Command is the command line that re-creates this run (report.md
	// prints it); empty means "derive it from the summary".
	Command string
	// Quick marks a run at reduced size: report.md opens with a banner and
	// leaves out the paper's columns.
	Quick bool
	// Band is what the shaded bands of the figures show: "stderr" (default,
	// ±1 standard error of the mean), "std" (±1 standard deviation across
	// trials) or "half-std" (±0.5 standard deviation). curves.csv always
	// holds the standard error.
	Band string
	// PaperBand says what the paper's figure draws, for report.md.
	PaperBand string
}

// bandScale is the factor that turns a standard error over n trials into
// the band of kind band, and the band's description.
func bandScale(band string, n int) (float64, string, error) {
	switch band {
	case "", "stderr":
		return 1, "±1 standard error of the mean", nil
	case "std":
		return math.Sqrt(float64(n)), "±1 standard deviation across trials", nil
	case "half-std":
		return 0.5 * math.Sqrt(float64(n)), "±0.5 standard deviation across trials", nil
	}
	return 0, "", fmt.Errorf("band = %q: want stderr, std or half-std", band)
}

// CheckBand validates a band name (see Results.Band).
func CheckBand(band string) error {
	_, _, err := bandScale(band, 1)
	return err
}
