package penalty

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cbandit/cbandit/experiment"
)

// The quick reproduction writes every experiment, the boxplots and the
// comparison with the paper's claims.
func TestQuickReproduction(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the quick reproduction")
	}
	dir := t.TempDir()
	if err := run(context.Background(), experiment.Options{Out: dir, Quick: true, Quiet: true, Workers: 1, Stderr: io.Discard}); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"gardner-noiseless/box_regret.svg", "gardner-noisy/box_violation.png",
		"datarate-noiseless/box_utility.svg", "datarate-noisy/summary.json", "tradeoff/curves.csv",
		"datarate-sensitivity/violation_avg.svg", "datarate-sensitivity/slope2-shift0/summary.json"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Error(err)
		}
	}
	md, err := os.ReadFile(filepath.Join(dir, "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Quick run (--quick)", "Left out at reduced size", "admmbo",
		"sensitivity to our surrogate constants", "| 0.5 | 0 | 2.2489 |", "| 1 | 0.3 |"} {
		if !strings.Contains(string(md), want) {
			t.Errorf("report.md lacks %q", want)
		}
	}
	if strings.Contains(string(md), "**agrees**") || strings.Contains(string(md), "**does not agree**") {
		t.Error("a --quick report.md gives verdicts against the paper")
	}
}

// The claims table states each claim of 002 App. E with a verdict computed
// from the checkpoints.
func TestVerdict(t *testing.T) {
	fin := func(v ...float64) finals {
		f := finals{}
		for k, x := range v {
			f.checkpoints = append(f.checkpoints, 20*(k+1))
			f.violation = append(f.violation, []float64{x})
			f.regret = append(f.regret, []float64{1})
		}
		return f
	}
	v := map[string]map[string]finals{
		"gardner-noiseless": {"penalty-noiseless": fin(0.5, 0.2, 0.1), "oco-bandit": fin(0.5, 0.4, 0.4)},
		"gardner-noisy":     {"penalty-noisy": fin(0.5, 0.3, 0.2), "oco-bandit": fin(0.5, 0.4, 0.39)},
	}
	got := verdict(v)
	for _, want := range []string{
		"gardner-noiseless: penalty-noiseless V(t)/t 0.5000 (t=20) → 0.2000 (t=40) → 0.1000",
		"OCO stalls: **agrees**",
		"final V(t)/t Alg. 2 0.1000, Alg. 3 0.2000. Paper: Alg. 3's violation converges more slowly: **agrees**",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("verdict lacks %q:\n%s", want, got)
		}
	}
}
