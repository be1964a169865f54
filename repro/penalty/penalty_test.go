package penalty

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cbandit/cbandit/experiment"
	"github.com/cbandit/cbandit/runner"
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
		"sensitivity to our surrogate constants", "admmbo stops by its own rule at round ", "| 0.5 | 0 | 2.2489 |", "| 1 | 0.3 |"} {
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

// ADMMBO's boxes and means use only the trials not yet stopped at t.
func TestRunningUpToStop(t *testing.T) {
	f := finals{checkpoints: []int{20, 40, 60}, stops: []int{45, 0, 30},
		regret: [][]float64{{1, 2, 3}, {4, 5, 6}, {7, 8, 9}}}
	for k, want := range [][]float64{{1, 2, 3}, {4, 5}, {8}} {
		got := f.running(f.regret, k)
		if len(got) != len(want) {
			t.Fatalf("checkpoint %d: %v, want %v", f.checkpoints[k], got, want)
		}
		for i := range got {
			if got[i] != want[i] {
				t.Fatalf("checkpoint %d: %v, want %v", f.checkpoints[k], got, want)
			}
		}
	}
	note := stopNote(map[string]finals{"admmbo": f, "oco-bandit": {}})
	if !strings.Contains(note, "admmbo stops by its own rule at round 37.5 on average (min 30, max 45; 2 of 3 trials") ||
		strings.Contains(note, "oco-bandit") {
		t.Fatalf("stop note: %q", note)
	}
}

// The replay finds the round after which the runner's ADMMBO plays one
// point: its per-round regret is constant from the stop on.
func TestADMMBOStopMatchesRunner(t *testing.T) {
	c, err := experiment.Parse("admmbo-stop", []byte(`title: t
problem: gardner
params: {noise_f: "0.1", noise_g: "0"}
algorithms:
  - id: admmbo
    params: {budget-f1: "3", budget-c1: "4", budget: "2", iters: "3"}
horizon: 40
trials: 3
seed: 5
`))
	if err != nil {
		t.Fatal(err)
	}
	stops, err := admmboStops(c, false)
	if err != nil {
		t.Fatal(err)
	}
	spec, err := c.Spec(false)
	if err != nil {
		t.Fatal(err)
	}
	spec.CurvePoints, spec.Workers = spec.Horizon, 1
	out, err := runner.Run(context.Background(), spec)
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Rounds) != spec.Horizon || out.Rounds[0] != 1 {
		t.Fatalf("recorded rounds %v, want 1..%d", out.Rounds, spec.Horizon)
	}
	reg := out.PerTrial["admmbo"][runner.Regret]
	for tr, s := range stops["admmbo"] {
		// 2 initial + 3 + 4 + 2 iterations × (2 + 2) queries at most.
		if s < 9 || s > 25 {
			t.Fatalf("trial %d: stop round %d, want 9..25", tr, s)
		}
		inc := func(t int) float64 { return reg[tr][t-1] - reg[tr][t-2] } // regret of round t
		for r := s + 2; r <= spec.Horizon; r++ {
			if d := inc(r) - inc(s+1); d > 1e-9 || d < -1e-9 {
				t.Fatalf("trial %d: stop round %d, but round %d's regret %v differs from round %d's %v", tr, s, r, inc(r), s+1, inc(s+1))
			}
		}
	}
}
