package suite

import (
	"math"
	"strings"
	"testing"
)

// Paired against a hand-solved case: d = (0.2, 0.3, 0), mean 1/6, sd
// 0.152753, t(0.975, 2) = 4.302653; a seed without a feasible evaluation
// drops out of the gap's pairs only (d = (0.5, −1)); a seed the first
// entry lacks drops out; violations of different kinds are not paired.
func TestPairedHandSolved(t *testing.T) {
	g := func(v float64) *float64 { return &v }
	run := func(seed int, regret float64, gap *float64) RunResult {
		return RunResult{Job: Job{Problem: "p", Units: Natural, Seed: seed}, Regret: regret, Systems: &SystemsScore{Gap: gap}}
	}
	base := Cell{Problem: "p", Algorithm: "a", Runs: []RunResult{run(1, 0.1, g(1)), run(2, 0.2, g(2)), run(3, 0.4, nil)}}
	c := Cell{Problem: "p", Algorithm: "b", Runs: []RunResult{run(1, 0.3, g(1.5)), run(2, 0.5, g(1)), run(3, 0.4, g(9)), run(4, 9, g(9))}}
	got := map[string]PairedScore{}
	for _, p := range Paired(base, c, Natural) {
		got[p.Score] = p
	}
	r := got["late regret"].Diff
	half := 4.302653 * 0.152753 / math.Sqrt(3)
	if r.N != 3 || math.Abs(r.Mean-1.0/6) > 1e-9 || math.Abs(r.Lo-(1.0/6-half)) > 1e-5 || math.Abs(r.Hi-(1.0/6+half)) > 1e-5 ||
		r.AWins != 0 || r.Ties != 1 || r.BWins != 2 {
		t.Fatalf("late regret: %+v", r)
	}
	if d := got["best gap"].Diff; d.N != 2 || math.Abs(d.Mean+0.25) > 1e-12 || d.AWins != 1 || d.BWins != 1 {
		t.Fatalf("best gap over seeds 1-2: %+v", d)
	}
	if _, ok := got["rec gap"]; ok {
		t.Fatal("rec gap paired though no run has a recommendation")
	}
	s := &Summary{Algorithms: []string{"a", "b"}, Units: []string{Natural}, Cells: []Cell{base, c}}
	if md := s.pairedMarkdown(); !strings.Contains(md, "| p | b | natural | late regret | +0.1667 [") || !strings.Contains(md, "| 0 / 1 / 2 |") {
		t.Fatalf("markdown:\n%s", md)
	}
	base.ViolationKind, c.ViolationKind = "long-term", "per-round"
	for _, p := range Paired(base, c, Natural) {
		if p.Score == "late violation" {
			t.Fatal("a long-term violation paired with a per-round one")
		}
	}
	if (&Summary{Algorithms: []string{"a"}}).pairedMarkdown() != "" {
		t.Fatal("one entry: nothing to pair")
	}
}
