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
			"ckb-ucb":  {ViolationCount: report.Stat{Mean: 3, Stderr: 1}},
			"ckb-rand": {ViolationCount: report.Stat{Mean: 10, Stderr: 1}},
			"sgp-ucb":  {},
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
	} {
		if !strings.Contains(got, want) {
			t.Errorf("violations.md lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "stageopt") {
		t.Errorf("stageopt has no paper N and did not run; it should not be listed:\n%s", got)
	}
}
