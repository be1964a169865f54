package agent

import (
	"math"
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
	tell := func(x []float64, fb bandit.Feedback) { t.Helper(); recordTold(t, l, x, fb) }
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

// TestPureError: the pooled variance of repeats about their configuration's
// mean, by hand: at p rewards 1, 1, 3 (mean 5/3, Σ(y − ȳ)² = 8/3, 2
// degrees of freedom), at q 5, 6 (½, 1): (8/3 + ½)/3; the costs 2, 2.5, 2
// at p (⅙, 2) and 7, 7 at q (0, 1): 1/18; failures and neighbours apart.
func TestPureError(t *testing.T) {
	l := NewLedger(1)
	tell := func(x []float64, fb bandit.Feedback) { t.Helper(); recordTold(t, l, x, fb) }
	p, q, r := []float64{0.25, 0.5}, []float64{0.75, 0.5}, []float64{0.25, 0.5000001}
	if pe, _, _ := l.pureError(); !slices.Equal(pe, []float64{0, 0}) || l.repeated() {
		t.Fatalf("empty ledger: pure error %v, repeated %v", pe, l.repeated())
	}
	tell(p, bandit.Feedback{Reward: 1, HasReward: true, Costs: []float64{2}})
	tell(q, bandit.Feedback{Reward: 5, HasReward: true, Costs: []float64{7}})
	tell(r, bandit.Feedback{Reward: 9, HasReward: true, Costs: []float64{9}})
	if pe, _, _ := l.pureError(); !slices.Equal(pe, []float64{0, 0}) || l.repeated() {
		t.Fatalf("no repeat: pure error %v, repeated %v", pe, l.repeated())
	}
	tell(slices.Clone(p), bandit.Feedback{Reward: 1, HasReward: true, Costs: []float64{2.5}})
	tell(slices.Clone(p), bandit.Feedback{Reward: 3, HasReward: true, Costs: []float64{2}})
	tell(slices.Clone(q), bandit.Feedback{Reward: 6, HasReward: true, Costs: []float64{7}})
	tell(slices.Clone(q), bandit.Feedback{Failed: true, Reason: "crash"})
	pe, df, groups := l.pureError()
	if !slices.Equal(df, []float64{3, 3}) {
		t.Errorf("degrees of freedom %v, want [3 3] (p's 3 observations, q's 2)", df)
	}
	want := []float64{(8.0/3 + 0.5) / 3, 1.0 / 18}
	for j := range want {
		if math.Abs(pe[j]-want[j]) > 1e-12 {
			t.Errorf("metric %d: pure error %v, want %v", j, pe[j], want[j])
		}
	}
	if n := groups[string(pointKey(nil, p))].n; n != 3 {
		t.Errorf("p observed %d times, want 3", n)
	}
	if n := groups[string(pointKey(nil, q))].n; n != 2 {
		t.Errorf("q observed %d times (a failure apart), want 2", n)
	}
	if m := groups[string(pointKey(nil, p))].mean(0); math.Abs(m-5.0/3) > 1e-12 {
		t.Errorf("mean reward at p %v, want 5/3", m)
	}
	if m := groups[string(pointKey(nil, p))].mean(1); math.Abs(m-6.5/3) > 1e-12 {
		t.Errorf("mean cost at p %v, want 6.5/3", m)
	}
	if !l.repeated() {
		t.Error("repeats recorded, repeated() false")
	}
}

// TestRepeatedPending: a pending decision repeating an observed one counts.
func TestRepeatedPending(t *testing.T) {
	l := NewLedger(0)
	d := l.Record(1, bandit.Action{Arm: -1, X: []float64{0.5}}, 0)
	if _, err := l.Accept(bandit.Feedback{ID: d.ID, Reward: 1, HasReward: true}); err != nil {
		t.Fatal(err)
	}
	if l.repeated() {
		t.Fatal("one decision: repeated")
	}
	l.Record(2, bandit.Action{Arm: -1, X: []float64{0.5}}, 0)
	if !l.repeated() {
		t.Fatal("a pending repeat: not repeated")
	}
}

// recordTold records a decision at x in l and accepts fb for it.
func recordTold(t *testing.T, l *Ledger, x []float64, fb bandit.Feedback) {
	t.Helper()
	d := l.Record(1, bandit.Action{Arm: -1, X: x}, 0)
	fb.ID = d.ID
	if _, err := l.Accept(fb); err != nil {
		t.Fatal(err)
	}
}
