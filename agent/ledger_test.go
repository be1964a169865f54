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
