package rpol

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cbandit/cbandit/report"
)

// The claims table gives a paired verdict per claim and metric.
func TestWriteClaims(t *testing.T) {
	st := func(v ...float64) report.Stat { return report.Stat{PerTrial: v} }
	sums := map[string]report.Summary{"classical": {Algorithms: map[string]report.Algorithm{
		"rpol-ucb": {Regret: st(1, 2, 3), ViolationHard: st(10, 11, 12)},
		"ckb-ucb":  {Regret: st(5, 6, 8), ViolationHard: st(9, 10, 11)},
		"config":   {Regret: st(4, 7, 6), ViolationHard: st(10, 12, 11)},
	}}}
	file := filepath.Join(t.TempDir(), "report.md")
	if err := writeClaims(file, sums, false); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(file)
	md := string(b)
	for _, want := range []string{
		"| classical Fig. 1 | rpol-ucb lowest | regret | ckb-ucb | -4.333 |",
		"| classical Fig. 1 | rpol-ucb lowest | violation_hard | ckb-ucb | 1 | [1, 1] | **disagrees** |",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("report.md lacks %q:\n%s", want, md)
		}
	}
	if !strings.Contains(md, "regret | ckb-ucb | -4.333 | [-5.768, -2.899] | **agrees** |") {
		t.Errorf("regret claim not agreeing:\n%s", md)
	}
}
