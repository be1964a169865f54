package stagewise

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cbandit/cbandit/experiment"
	"github.com/cbandit/cbandit/report"
	"github.com/cbandit/cbandit/runner"
)

func TestBandFactor(t *testing.T) {
	for _, c := range []struct {
		band string
		want float64
	}{{"", 1}, {"stderr", 1}, {"std", 3}, {"half-std", 1.5}} {
		out := &runner.Output{Results: report.Results{Band: c.band, Summary: report.Summary{Trials: 9}}}
		if f, _ := bandFactor(out); f != c.want {
			t.Errorf("band %q over 9 trials: factor %v, want %v", c.band, f, c.want)
		}
	}
	// relabel scales the bands of the curves it returns.
	out := &runner.Output{Results: report.Results{Band: "half-std", Summary: report.Summary{Trials: 4},
		Curves: []report.Curve{{Algorithm: "a", Metric: runner.Regret, Rounds: []int{1}, Mean: []float64{2}, Stderr: []float64{0.5}}}}}
	if cs := relabel(out, runner.Regret, "τ=0.5"); len(cs) != 1 || cs[0].Stderr[0] != 0.5 || cs[0].Algorithm != "a τ=0.5" {
		t.Errorf("relabel: %+v, want band 0.5·√4·0.5 = 0.5 labelled \"a τ=0.5\"", cs)
	}
	if out.Results.Curves[0].Stderr[0] != 0.5 {
		t.Error("relabel changed the run's own curves")
	}
}

// fakeRun is a cyclic-shifts run whose algorithms end with the given per-trial regrets.
func fakeRun(tau string, regrets map[string][]float64) result {
	out := &runner.Output{Rounds: []int{10}, PerTrial: map[string]map[string][][]float64{}}
	out.Results.Summary = report.Summary{Problem: "fake", Horizon: 10, Trials: 3, Algorithms: map[string]report.Algorithm{}}
	for l, r := range regrets {
		out.Results.Summary.Algorithms[l] = report.Algorithm{Regret: report.Describe(r)}
		var vc [][]float64
		for range r {
			vc = append(vc, []float64{0})
		}
		out.PerTrial[l] = map[string][][]float64{runner.ViolationCount: vc}
	}
	return result{runSpec{group: "shifts", file: "stagewise/shifts.yaml", sub: "d=3", tau: tau, name: "fig1-shifts-d3-tau" + tau}, out}
}

// The claims table pairs trials: LC-LUCB below Safe-LTS with an interval
// below 0 agrees; Safe-LTS's regret rising with τ disagrees, with the paired
// difference as the measured reason.
func TestClaimsTable(t *testing.T) {
	rs := []result{
		fakeRun("0.2", map[string][]float64{"lc-lucb": {10, 11, 12}, "safe-lts": {20, 21, 23}}),
		fakeRun("0.5", map[string][]float64{"lc-lucb": {5, 6, 7}, "safe-lts": {25, 26, 27}}),
	}
	file := filepath.Join(t.TempDir(), "report.md")
	if err := writeReport(file, experiment.Options{}, rs); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	md := string(b)
	tail := md[strings.Index(md, "## Claims table"):]
	for _, want := range []string{
		"| regret shrinks as τ grows: lc-lucb, shifts d=3 | Fig. 1, App. B Figs. 5–7 | 0.2→0.5: +5 [+5, +5] (n = 3) | agree |",
		"| regret shrinks as τ grows: safe-lts, shifts d=3 | Fig. 1, App. B Figs. 5–7 | 0.2→0.5: -4.667",
		"| disagree | R(τ=0.2) < R(τ=0.5) by 4.667, interval below 0 |",
		"| LC-LUCB's regret below Safe-LTS's: fig1-shifts-d3-tau0.2 | Fig. 1, App. B Figs. 5–7 | LC-LUCB − Safe-LTS = -10.33",
		"| the stage-wise constraint holds in every round except w.p. δ = 0.05 | Figs. 1–4, 8 (cost panels) | 0 of 12 runs had a violating round (0) | agree |",
		"4 of 5 claims agree.",
	} {
		if !strings.Contains(tail, want) {
			t.Errorf("claims table lacks %q:\n%s", want, tail)
		}
	}
}
