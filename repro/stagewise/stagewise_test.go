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

// The OPLB table finds the `oplb` entry by ID whatever its label, pairs it
// with oplb-lp and OPB, and pools the search diagnostics over the trials:
// uncertified share weighted by the searched rounds, gap mean weighted by
// the uncertified rounds.
func TestOPLBTable(t *testing.T) {
	alg := func(reg []float64, diag map[string][]float64) report.Algorithm {
		a := report.Algorithm{Regret: report.Describe(reg)}
		if diag != nil {
			a.Diagnostics = map[string]report.Stat{}
			for k, v := range diag {
				a.Diagnostics[k] = report.Describe(v)
			}
		}
		return a
	}
	out := &runner.Output{}
	out.Results.Summary = report.Summary{Problem: "random-mab", Horizon: 10, Trials: 3,
		Specs: []report.AlgoSpec{{Label: "oplb-budget", ID: "oplb", Params: map[string]string{"nodes": "500"}}, {Label: "oplb-lp", ID: "oplb-lp"}, {Label: "opb", ID: "opb"}},
		Algorithms: map[string]report.Algorithm{
			"oplb-budget": alg([]float64{10, 20, 30}, map[string][]float64{
				"searched_rounds": {100, 100, 100}, "uncertified_rounds": {0, 10, 50},
				"gap_mean": {0, 0.1, 0.4}, "gap_max": {0, 0.2, 0.7}}),
			"oplb-lp": alg([]float64{12, 23, 31}, nil),
			"opb":     alg([]float64{5, 5, 5}, nil),
		}}
	var b strings.Builder
	writeOPLB(&b, []result{{runSpec{group: "oplb-exact", sub: "K=10", tau: "0.5", name: "fig3-oplb-budget-k10-tau0.5"}, out}})
	// Uncertified 60/300 = 20 %, per trial 0–50 %; gap (0.1·10 + 0.4·50)/60 = 0.35, max 0.7.
	want := "| fig3-oplb-budget-k10-tau0.5 | `oplb-budget` (≤ 500 simplices/round) | 20 ± 5.774 | 22 ± 5.508 | 5 ± 0 | -2 [-4.484, +0.4841] (n = 3) | false | +15 [-9.841, +39.84] (n = 3) | 20.0 % (0.0–50.0 %) | 0.35; 0.7 |"
	if !strings.Contains(b.String(), want) {
		t.Errorf("OPLB table lacks\n%s\n%s", want, b.String())
	}
}

// The plan runs K = 10 and 20 with the budgeted oplb beside oplb-lp and
// OPB for three thresholds, and every file it names parses with its --set
// overrides.
func TestPlanOPLBSizes(t *testing.T) {
	seen := map[string]bool{}
	for _, r := range plan() {
		c, err := experiment.Embedded(r.file)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range r.sets {
			if err := c.Set(s); err != nil {
				t.Fatalf("%s: %v", r.name, err)
			}
		}
		if r.group != "oplb-exact" {
			continue
		}
		seen[c.Params["k"]+"/"+r.tau] = true
		ids := map[string]bool{}
		for _, a := range c.Algorithms {
			ids[a.ID] = true
		}
		if !ids["oplb"] || !ids["oplb-lp"] || !ids["opb"] {
			t.Errorf("%s: algorithms %v", r.name, c.Algorithms)
		}
	}
	for _, k := range []string{"5", "10", "20"} {
		for _, tau := range []string{"0.2", "0.5", "0.8"} {
			if !seen[k+"/"+tau] {
				t.Errorf("no OPLB run at K = %s, τ = %s", k, tau)
			}
		}
	}
}
