package agent

import (
	"slices"
	"testing"

	"github.com/cbandit/cbandit/bandit"
)

// The ledger says when a decision's feedback is complete: on the report
// that brings the last of reward and costs, in either order, once; never
// for a failure; and Observed then holds both values.
func TestLedgerComplete(t *testing.T) {
	l := NewLedger(2)
	a := l.Record(1, bandit.Action{Arm: 0}, 0)
	b := l.Record(2, bandit.Action{Arm: 1}, 0)
	c := l.Record(3, bandit.Action{Arm: 2}, 0)
	step := func(fb bandit.Feedback, want bool) {
		t.Helper()
		acc, err := l.Accept(fb)
		if err != nil {
			t.Fatal(err)
		}
		if acc.Complete != want {
			t.Fatalf("feedback %+v: Complete = %v, want %v", fb, acc.Complete, want)
		}
	}
	step(bandit.Feedback{ID: a.ID, Reward: 1.5, HasReward: true}, false)
	step(bandit.Feedback{ID: b.ID, Costs: []float64{-1, 2}}, false)
	step(bandit.Feedback{ID: a.ID, Costs: []float64{0.5, -0.25}}, true)
	step(bandit.Feedback{ID: b.ID, Reward: -3, HasReward: true}, true)
	step(bandit.Feedback{ID: c.ID, Failed: true, Reason: "crash"}, false)
	for _, w := range []struct {
		id     int64
		reward float64
		costs  []float64
	}{{a.ID, 1.5, []float64{0.5, -0.25}}, {b.ID, -3, []float64{-1, 2}}} {
		if r, cs := l.Observed(w.id); r != w.reward || !slices.Equal(cs, w.costs) {
			t.Errorf("Observed(%d) = %v, %v; want %v, %v", w.id, r, cs, w.reward, w.costs)
		}
	}
	if l.Open() != 0 {
		t.Errorf("%d decisions still pending", l.Open())
	}
}

// replicatesDiffer: per metric, whether two evaluations of one
// configuration (bit for bit) gave different values; a failure and an
// evaluation elsewhere do not count.
func TestReplicatesDiffer(t *testing.T) {
	l := NewLedger(2)
	tell := func(x []float64, fb bandit.Feedback) {
		t.Helper()
		d := l.Record(1, bandit.Action{Arm: -1, X: x}, 0)
		fb.ID = d.ID
		if _, err := l.Accept(fb); err != nil {
			t.Fatal(err)
		}
	}
	p, q := []float64{0.25, 0.5}, []float64{0.25, 0.5000001}
	tell(p, bandit.Feedback{Reward: 1, HasReward: true, Costs: []float64{-1, 2}})
	tell(slices.Clone(p), bandit.Feedback{Reward: 1, HasReward: true, Costs: []float64{-1, 2}})
	tell(q, bandit.Feedback{Reward: 5, HasReward: true, Costs: []float64{3, 4}})
	tell(slices.Clone(p), bandit.Feedback{Failed: true, Reason: "crash"})
	if got := l.replicatesDiffer(); !slices.Equal(got, []bool{false, false, false}) {
		t.Fatalf("equal repeats, a neighbour and a failure: %v", got)
	}
	tell(slices.Clone(p), bandit.Feedback{Reward: 1, HasReward: true, Costs: []float64{-1, 2.5}})
	if got := l.replicatesDiffer(); !slices.Equal(got, []bool{false, false, true}) {
		t.Fatalf("a repeat whose second cost differs: %v", got)
	}
}
