package optimize_test

import (
	"context"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/cbandit/cbandit/optimize"
)

func quad(p optimize.Point) (float64, []float64, error) {
	x := p.X
	return -(x[0] - 0.3) * (x[0] - 0.3), []float64{x[0]}, nil
}

// TestRunChoosesAndKeeps: the chosen algorithm and kinds, a named one's
// default kind, a kind it does not keep refused naming both, and the same
// seed giving the same trials.
func TestRunChoosesAndKeeps(t *testing.T) {
	ctx := context.Background()
	box := optimize.Options{Lo: []float64{0}, Hi: []float64{1}, Horizon: 15, Seed: 2, Evaluations: optimize.Live,
		Constraints: []optimize.Constraint{{Name: "c", Max: 0.5}}}
	r, err := optimize.Run(ctx, quad, box)
	if err != nil {
		t.Fatal(err)
	}
	if r.Algorithm != optimize.Config || r.Kinds[0] != optimize.StageWise || !strings.Contains(r.Reason, "config") || len(r.Trials) != 15 {
		t.Fatalf("chosen %s %v (%s), %d trials", r.Algorithm, r.Kinds, r.Reason, len(r.Trials))
	}
	if r.Best == nil || !r.Best.Feasible || r.Best.Metrics[0] > 0.5 {
		t.Fatalf("best %+v", r.Best)
	}
	again, _ := optimize.Run(ctx, quad, box)
	if !reflect.DeepEqual(r.Trials, again.Trials) {
		t.Error("the same options and seed gave other trials")
	}

	named := box
	named.Algorithm = optimize.CKBUCB
	if r, err := optimize.Run(ctx, quad, named); err != nil || r.Kinds[0] != optimize.LongTerm || r.Reason != "" {
		t.Fatalf("ckb-ucb: %v, kinds %v, reason %q", err, r.Kinds, r.Reason)
	}
	named.Constraints = []optimize.Constraint{{Name: "c", Max: 0.5, Kind: optimize.StageWise}}
	if _, err := optimize.Run(ctx, quad, named); err == nil || !strings.Contains(err.Error(), "ckb-ucb does not keep stage-wise") {
		t.Fatalf("ckb-ucb with a per-round limit: %v", err)
	}
	named.Algorithm = optimize.Config
	named.Constraints[0].Kind = optimize.LongTerm // a weaker kind: kept
	if _, err := optimize.Run(ctx, quad, named); err != nil {
		t.Fatalf("config with a long-term constraint: %v", err)
	}
}

// TestRunShapes: minimise, a finite set of points, no constraints, a
// cancelled context.
func TestRunShapes(t *testing.T) {
	ctx := context.Background()
	pts := [][]float64{{0, 0}, {0.2, 0.5}, {0.4, 0.1}, {0.6, 0.3}, {0.8, 0.9}, {1, 1}}
	r, err := optimize.Run(ctx, func(p optimize.Point) (float64, []float64, error) {
		return p.X[0] + p.X[1], []float64{p.X[0]}, nil
	}, optimize.Options{Points: pts, Minimize: true, Horizon: 12, Seed: 1, Evaluations: optimize.Live,
		Constraints: []optimize.Constraint{{Max: 0.5, Kind: optimize.Cumulative}}})
	if err != nil {
		t.Fatal(err)
	}
	if r.Algorithm != optimize.RPOLUCB || r.Best == nil || r.Best.Objective != 0 {
		t.Fatalf("points, minimise: %s, best %+v", r.Algorithm, r.Best)
	}
	r, err = optimize.Run(ctx, func(p optimize.Point) (float64, []float64, error) { return -math.Abs(p.X[0]), nil, nil },
		optimize.Options{Lo: []float64{-1}, Hi: []float64{1}, Horizon: 10, Evaluations: optimize.Live})
	if err != nil || r.Algorithm != optimize.IGPUCB {
		t.Fatalf("no constraints: %v, %s", err, r.Algorithm)
	}
	cctx, cancel := context.WithCancel(ctx)
	n := 0
	r, err = optimize.Run(cctx, func(p optimize.Point) (float64, []float64, error) {
		if n++; n == 3 {
			cancel()
		}
		return quad(p)
	}, optimize.Options{Lo: []float64{0}, Hi: []float64{1}, Horizon: 10, Constraints: []optimize.Constraint{{Max: 1}}})
	if err != context.Canceled || len(r.Trials) != 3 {
		t.Fatalf("cancelled: %v, %d trials", err, len(r.Trials))
	}
}

// TestOptionsAndTellErrors: bad options and bad values are errors naming
// what is wrong.
func TestOptionsAndTellErrors(t *testing.T) {
	ok := optimize.Options{Lo: []float64{0}, Hi: []float64{1}, Horizon: 5, Evaluations: optimize.Live, Constraints: []optimize.Constraint{{Max: 1}}}
	for _, c := range []struct {
		mod  func(*optimize.Options)
		want string
	}{
		{func(o *optimize.Options) { o.Horizon = 0 }, "Horizon = 0"},
		{func(o *optimize.Options) { o.Hi = nil }, "Lo and Hi"},
		{func(o *optimize.Options) { o.Points = [][]float64{{0}} }, "not both"},
		{func(o *optimize.Options) { o.Constraints[0].Kind = "hard" }, `kind "hard"`},
		{func(o *optimize.Options) { o.Constraints[0].Max = math.Inf(1) }, "Max = +Inf"},
		{func(o *optimize.Options) { o.Algorithm = "nope" }, `unknown algorithm "nope"`},
		{func(o *optimize.Options) { o.Params = map[string]string{"alpha": "-5"} }, "alpha = -5"},
	} {
		o := ok
		o.Constraints = append([]optimize.Constraint(nil), ok.Constraints...)
		c.mod(&o)
		if _, err := optimize.NewStudy(o); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v", c.want, err)
		}
	}
	s, err := optimize.NewStudy(ok)
	if err != nil {
		t.Fatal(err)
	}
	tr, _ := s.Ask()
	for _, c := range []struct {
		id   int64
		obj  float64
		ms   []float64
		want string
	}{
		{tr.ID + 7, 0, []float64{0}, "no trial"},
		{tr.ID, 0, nil, "0 metrics"},
	} {
		if err := s.Tell(c.id, c.obj, c.ms); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v", c.want, err)
		}
	}
	if err := s.Tell(tr.ID, 1, []float64{2}); err != nil {
		t.Fatal(err)
	}
	if err := s.Tell(tr.ID, 1, []float64{2}); err == nil || !strings.Contains(err.Error(), "already told") {
		t.Errorf("told twice: %v", err)
	}
	if s.Best() != nil {
		t.Error("an infeasible trial is the best")
	}
	for i := 1; i < 5; i++ {
		s.Ask()
	}
	if _, err := s.Ask(); err == nil || !strings.Contains(err.Error(), "Horizon") {
		t.Errorf("beyond the horizon: %v", err)
	}
}
