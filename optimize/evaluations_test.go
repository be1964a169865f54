package optimize_test

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/cbandit/cbandit/optimize"
)

// Evaluations: offline unless said (one's own function is evaluated), live
// when asked; the same algorithm decides either way while no algorithm is
// declared for offline limits, and anything else is refused naming the
// value.
func TestEvaluations(t *testing.T) {
	ctx := context.Background()
	o := optimize.Options{Lo: []float64{0}, Hi: []float64{1}, Horizon: 8, Seed: 3,
		Constraints: []optimize.Constraint{{Name: "c", Max: 0.5, Kind: optimize.Cumulative}}}
	off, err := optimize.Run(ctx, quad, o)
	if err != nil || off.Evaluations != optimize.Offline {
		t.Fatalf("default: %v, evaluations %q, want offline", err, off.Evaluations)
	}
	o.Evaluations = optimize.Live
	live, err := optimize.Run(ctx, quad, o)
	if err != nil || live.Evaluations != optimize.Live {
		t.Fatalf("live: %v, evaluations %q", err, live.Evaluations)
	}
	if off.Algorithm == live.Algorithm && !reflect.DeepEqual(off.Trials, live.Trials) {
		t.Error("the same algorithm and seed decided otherwise offline")
	}
	o.Evaluations = "sometimes"
	if _, err := optimize.Run(ctx, quad, o); err == nil || !strings.Contains(err.Error(), `"sometimes"`) {
		t.Fatalf("evaluations sometimes: %v, want an error naming the value", err)
	}
	// Result.Recommendation is the algorithm's (nil when it names none);
	// when given, it is one of the evaluated configurations.
	if r := off.Recommendation; r != nil {
		found := false
		for _, tr := range off.Trials {
			found = found || tr.ID == r.ID && reflect.DeepEqual(tr.X, r.X)
		}
		if !found || r.Feasible < 0.95 {
			t.Errorf("recommendation %+v: not an evaluated trial reaching 0.95", r)
		}
	}
}
