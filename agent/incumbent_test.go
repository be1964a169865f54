package agent

import (
	"testing"

	"github.com/cbandit/cbandit/bandit"
)

// TestConfirmableHandSolved: recommendFixture standardised, λ = 1 in the
// models' units; arm 0's constraint has posterior N(−1/1.1, ½), so after n
// more observations there N(−1/1.1, 1/(2 + n)) and P = Φ(√(2 + n)/1.1):
// 0.9027 (n = 0), 0.9423 (1), 0.9655 (2). Arm 1's mean is above the limit:
// never. At level 0.95 arm 0 is confirmable from n = 2; at 0.9 it already
// is the recommendation, so the confirmation searches instead.
func TestConfirmableHandSolved(t *testing.T) {
	a := recommendFixture(t, "on").(*LogNEI)
	ev, ok := a.evaluated()
	if !ok {
		t.Fatal("not evaluated")
	}
	for _, c := range []struct {
		level float64
		n     int
		want  int
	}{{0.95, 0, -1}, {0.95, 1, -1}, {0.95, 2, 0}, {0.95, 50, 0}, {0.9, 0, 0}, {0.97, 2, -1}} {
		if got := a.confirmable(ev, c.level, c.n); got != c.want {
			t.Errorf("level %v, n = %d: %d, want %d", c.level, c.n, got, c.want)
		}
	}
	// Horizon 10 and confirm 0.1: round 10 is the confirmation's; with one
	// round left arm 0 is not confirmable (0.9423), so lognei searches.
	if a.from != 10 {
		t.Fatalf("from = %d, want 10", a.from)
	}
	if _, ok := a.confirmTurn(10, a.from, a.horizon); ok {
		t.Error("round 10: confirms with one round left")
	}
	b := recommendFixture(t, "on").(*LogNEI)
	b.from = 11 // no confirmation: the search plays arm 1
	if d, err := b.Decide(&bandit.Round{T: 9}); err != nil || d.Action.Arm != 1 {
		t.Fatalf("round 9 searching: %+v, %v; want arm 1", d.Action, err)
	}
	b = recommendFixture(t, "on").(*LogNEI)
	b.from = 9 // two rounds left at round 9: arm 0 is replicated
	d, err := b.Decide(&bandit.Round{T: 9})
	if err != nil {
		t.Fatal(err)
	}
	if d.Action.Arm != 0 {
		t.Errorf("round 9 of 10: plays %+v, want arm 0", d.Action)
	}
	if _, ok := b.confirmTurn(8, b.from, b.horizon); ok {
		t.Error("round 8: confirms before its rounds")
	}
}

// TestConfirmEarlierGeneration: confirm = 0 (generation 10) leaves no
// confirmation round.
func TestConfirmEarlierGeneration(t *testing.T) {
	for _, c := range []struct {
		v       string
		T, want int
	}{{"0", 200, 201}, {"0.1", 200, 181}, {"0.1", 15, 14}, {"0.5", 3, 2}} {
		got, err := confirmFrom("lognei", bandit.Params{"confirm": c.v}, c.T)
		if err != nil || got != c.want {
			t.Errorf("confirm %s, T = %d: %d, %v; want %d", c.v, c.T, got, err, c.want)
		}
	}
}
