package ckb

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cbandit/cbandit/report"
)

// The table sets our N beside the paper's with report.md's verdict, and
// lists an algorithm the paper reports but the experiment did not run.
func TestWriteViolations(t *testing.T) {
	res := report.Results{
		Summary: report.Summary{Horizon: 1000, Algorithms: map[string]report.Algorithm{
			"ckb-ucb": {ViolationCount: report.Stat{Mean: 3, Stderr: 1},
				Regret: report.Stat{PerTrial: []float64{10, 12, 14}}},
			"ckb-rand": {ViolationCount: report.Stat{Mean: 10, Stderr: 1},
				Regret: report.Stat{PerTrial: []float64{5, 8, 9}}},
			"sgp-ucb": {},
		}},
		Paper: map[string]map[string]float64{
			"ckb-ucb":  {"violation_count": 4, "violation_soft": 0},
			"ckb-rand": {"violation_count": 38},
			"ckb-ts":   {"violation_count": 1},
			"stageopt": {"violation_soft": 0},
		},
		PaperSource: "001 App. F.1",
	}
	file := filepath.Join(t.TempDir(), "violations.md")
	if err := writeViolations(file, []row{{"lightsensor", res}}, false); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	got := string(b)
	for _, want := range []string{
		"| lightsensor | 1000 | ckb-ucb | 3 ± 1 | 4 | agrees |",
		"| lightsensor | 1000 | ckb-rand | 10 ± 1 | 38 | differs |",
		"| lightsensor | 1000 | ckb-ts | — | 1 | not run |",
		"| lightsensor | 1000 | sgp-ucb | 0 ± 0 | – | – |",
		"- lightsensor: 001 App. F.1",
		"| lightsensor | ckb-rand − ckb-ucb | -4.667 | [-6.101, -3.232] | 3 / 0 / 0 | lower |",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("violations.md lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "stageopt") {
		t.Errorf("stageopt has no paper N and did not run; it should not be listed:\n%s", got)
	}
}

// The sensitivity table lists every variant at every scale, with a figure.
func TestWriteSensitivity(t *testing.T) {
	s := report.Summary{Horizon: 100, Trials: 3, Algorithms: map[string]report.Algorithm{}}
	for _, id := range []string{"ckb-ucb", "ckb-ts"} {
		for k, sc := range []string{"0.1", "1"} {
			label := id + " β×" + sc
			s.Specs = append(s.Specs, report.AlgoSpec{Label: label, ID: id, Params: map[string]string{"beta-scale": sc}})
			s.Algorithms[label] = report.Algorithm{Regret: report.Stat{Mean: float64(10 * (k + 1)), Stderr: 1},
				ViolationCount: report.Stat{Mean: float64(k), Stderr: 0.5}}
		}
	}
	dir := t.TempDir()
	if err := writeSensitivity(dir, s, false); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, "beta-sensitivity.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"| β scale | ckb-ts regret | ckb-ts N | ckb-ucb regret | ckb-ucb N |", "| 0.1 | 10 ± 1 | 0 ± 0.5 | 10 ± 1 | 0 ± 0.5 |", "| 1 | 20 ± 1 | 1 ± 0.5 |"} {
		if !strings.Contains(string(b), want) {
			t.Errorf("beta-sensitivity.md lacks %q:\n%s", want, b)
		}
	}
	for _, f := range []string{"beta_regret.svg", "beta_violation_count.png"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Error(err)
		}
	}
}
