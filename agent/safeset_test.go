package agent

import (
	"math"
	"testing"
)

// Outside the safe set where the models hold a limit broken on average,
// safe-outside=ucb ranks the point its models are surest of (the least
// largest UCB) first, likely the point most probably feasible; inside it
// both rank by f's UCB, above every point outside.
func TestSafeOutside(t *testing.T) {
	at := func(likely bool, fmu, gmu, gsd float64) float64 {
		return safeFirst(2, []float64{1}, likely)(Posterior{[]float64{fmu, 0.01, gmu, gsd * gsd}})
	}
	// Near: just over the limit and well known (UCB 0.06, P(g ≤ 0) = Φ(−5));
	// far: over on average but unsure (UCB 0.8, P = Φ(−0.6)).
	for _, c := range []struct{ likely, nearFirst bool }{{false, true}, {true, false}} {
		near, far := at(c.likely, 5, 0.05, 0.01), at(c.likely, 5, 0.3, 0.5)
		in, inHigh := at(c.likely, 0, -1, 0.1), at(c.likely, 1, -1, 0.1)
		if (near > far) != c.nearFirst {
			t.Errorf("likely=%v: near %v, far %v: want the near point first %v", c.likely, near, far, c.nearFirst)
		}
		if !(inHigh > in && in > math.Max(near, far)) {
			t.Errorf("likely=%v: inside %v and %v, outside %v and %v: want the safe points first, by f", c.likely, inHigh, in, near, far)
		}
	}
	// Where a point's posterior means hold every limit, likely ranks it
	// above every point whose means break one, and among such points as
	// ucb does: the surer (UCB 0.01) before the likelier (UCB 0.1).
	if a, b := at(true, 0, -0.05, 0.1), at(true, 0, 0.01, 10); !(a > b) {
		t.Errorf("likely: a mean inside %v, a mean over with P ≈ 1/2 %v: want the mean inside first", a, b)
	}
	if a, b := at(true, 0, -0.01, 0.02), at(true, 0, -0.9, 1); !(a > b) {
		t.Errorf("likely: UCB 0.01 scores %v, UCB 0.1 %v: want the least largest UCB first among means inside", a, b)
	}
	// The order holds far in the tail, where P underflows to 0.
	if a, b := at(true, 0, 40, 1), at(true, 0, 45, 1); !(a > b) || math.IsNaN(a) {
		t.Errorf("likely: P = Φ(−40) scores %v, Φ(−45) %v: want the likelier first", a, b)
	}
	if a, b := at(true, 0, 0.1, 0), at(true, 0, 50, 1); !(b > a) {
		t.Errorf("likely: a certain violation scores %v, Φ(−50) %v: want the certain one last", a, b)
	}
}
