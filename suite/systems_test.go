package suite

import (
	"context"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/cbandit/cbandit/problem"
)

// lineCrash: maximise f(x) = 10x on [0, 1] s.t. metric 2x ≤ 1.2 (x ≤ 0.6);
// evaluations crash ("OOM") past x = 0.8. f* = 6.
func lineCrash() (*problem.SuiteProblem, problem.SuiteFacts) {
	p := &problem.SuiteProblem{
		Name: "line-crash", Lo: []float64{0}, Hi: []float64{1}, Goal: problem.SuiteMaximize,
		Objective:   problem.SuiteMetric{Name: "f", F: func(x []float64) float64 { return 10 * x[0] }},
		Constraints: []problem.SuiteConstraint{{SuiteMetric: problem.SuiteMetric{Name: "g", F: func(x []float64) float64 { return 2 * x[0] }}, Threshold: 1.2}},
		Hidden:      &problem.SuiteHidden{SuiteConstraint: problem.SuiteConstraint{SuiteMetric: problem.SuiteMetric{Name: "mem", F: func(x []float64) float64 { return x[0] }}, Threshold: 0.8}, Reason: "OOM"},
	}
	return p, problem.SuiteFacts{Opt: 6, XOpt: []float64{0.6}, ObjRange: [2]float64{0, 10}, ConRanges: [][2]float64{{0, 2}}}
}

// By hand, T = 6: x = 0.9 (crash), 0.5 (feasible, f 5), 0.7 (breaks the
// limit), 0.55 (feasible, 5.5), 0.95 (crash), 0.3 (feasible, 3). Best
// feasible 5.5, gap 0.5/6; failed 2/6, late (t = 4..6) 1/3; bad 3/6, late
// 1/3. Late regret (ScoreRun, t = 4..6): crashed round 5 scores the worst
// value 0: ((6−5.5) + (6−0) + (6−3))/3/10 = 0.95/3; violation 0 (only
// round 3 broke the limit).
func TestScoreSystemsHandComputed(t *testing.T) {
	p, fa := lineCrash()
	xs := [][]float64{{0.9}, {0.5}, {0.7}, {0.55}, {0.95}, {0.3}}
	sc := ScoreSystems(p, fa, xs)
	if sc.Best == nil || *sc.Best != 5.5 || math.Abs(*sc.Gap-0.5/6) > 1e-15 {
		t.Fatalf("best %v gap %v", sc.Best, sc.Gap)
	}
	if sc.Failed != 2.0/6 || sc.FailedLate != 1.0/3 || sc.Bad != 3.0/6 || sc.BadLate != 1.0/3 {
		t.Fatalf("shares %+v", sc)
	}
	r, v := ScoreRun(p, fa, xs, false)
	if math.Abs(r-0.95/3) > 1e-12 || v != 0 {
		t.Fatalf("late regret %v, violation %v; want %v, 0", r, v, 0.95/3)
	}
	// Minimised objective with f* = 0: the gap is absolute. Nothing
	// feasible: no best, no gap.
	q := *p
	q.Goal = problem.SuiteMinimize
	fq := fa
	fq.Opt = 0
	sc = ScoreSystems(&q, fq, [][]float64{{0.2}, {0.1}, {0.9}, {0.7}})
	if sc.Best == nil || *sc.Best != 1 || *sc.Gap != 1 || sc.Failed != 0.25 || sc.FailedLate != 0.5 || sc.Bad != 0.5 || sc.BadLate != 1 {
		t.Fatalf("minimise: %+v (best %v)", sc, sc.Best)
	}
	sc = ScoreSystems(&q, fq, [][]float64{{0.9}, {0.7}})
	if sc.Best != nil || sc.Gap != nil || sc.Failed != 0.5 || sc.Bad != 1 {
		t.Fatalf("none feasible: %+v", sc)
	}
	// Means: best and gap over the runs that found one, shares over all.
	b1, g1, b2, g2 := 5.0, 0.2, 3.0, 0.4
	m := MeanSystems([]SystemsScore{
		{Opt: 6, Best: &b1, Gap: &g1, Failed: 0.5, Bad: 0.5, FailedLate: 1, BadLate: 1},
		{Opt: 6, Best: &b2, Gap: &g2},
		{Opt: 6, Failed: 0.25, Bad: 1},
	})
	if m.Runs != 3 || m.Found != 2 || *m.Best != 4 || math.Abs(*m.Gap-0.3) > 1e-15 || m.Failed != 0.25 || m.Bad != 0.5 || m.FailedLate != 1.0/3 || m.Opt != 6 {
		t.Fatalf("mean %+v", m)
	}
}

// Typed suggestions decode to points and back; bad values are named.
func TestParamsPoint(t *testing.T) {
	p, err := problem.SuiteByName("typed")
	if err != nil {
		t.Fatal(err)
	}
	ap := apiParameters(p.Params)
	if len(ap) != 8 || ap[1].Name != "batch" || !ap[1].Log || *ap[1].High != 64 || len(ap[6].Choices) != 3 || ap[6].Low != nil {
		t.Fatalf("api parameters %+v", ap)
	}
	vals := map[string]any{"workers": 14.0, "batch": 15.0, "queue": 2.0, "replicas": 6.0, "timeout_ms": 200.0, "gc": 0.5,
		"compression": "zstd", "scheduler": "fifo"}
	x, err := paramsPoint(p.Params, vals)
	if err != nil || !slices.Equal(x, []float64{14, 15, 2, 6, 200, 0.5, 2, 0}) {
		t.Fatalf("x %v, err %v", x, err)
	}
	vals["scheduler"] = "lottery"
	if _, err := paramsPoint(p.Params, vals); err == nil || !strings.Contains(err.Error(), "scheduler") {
		t.Fatalf("bad choice: %v", err)
	}
	vals["scheduler"] = "fair"
	vals["workers"] = 2.5
	if _, err := paramsPoint(p.Params, vals); err == nil || !strings.Contains(err.Error(), "workers") {
		t.Fatalf("non-integer int: %v", err)
	}
}

// The systems set: its problems by default, typed studies defined by
// parameters run through the service, and systems scores in the summary and
// the table (crash is left out: the service refuses failed observations
// until it learns them).
func TestRunSystemsSet(t *testing.T) {
	o, err := Options{Set: SetSystems}.Normalize()
	if err != nil || !slices.Equal(o.Problems, problem.SystemsNames()) {
		t.Fatalf("problems %v, err %v", o.Problems, err)
	}
	if _, err := (Options{Set: "bogus"}).Normalize(); err == nil || !strings.Contains(err.Error(), "set") {
		t.Fatalf("bad set: %v", err)
	}
	s, err := Run(context.Background(), Options{Set: SetSystems, Problems: []string{"crash", "typed", "speed-reducer"}, Algorithms: []string{"rpol-ucb"},
		Horizon: 30, Seeds: 1, Units: []string{Natural}, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	if s.Set != SetSystems || len(s.Cells) != 3 {
		t.Fatalf("summary set %q, %d cells", s.Set, len(s.Cells))
	}
	for _, c := range s.Cells {
		r := c.Runs[0]
		if r.Systems == nil || c.Systems[Natural].Runs != 1 {
			t.Fatalf("%s: no systems scores", c.Problem)
		}
		// Recompute from the points the run played.
		p, _ := problem.SuiteByName(c.Problem)
		fa, _ := p.Facts()
		want := ScoreSystems(&p, fa, r.Points)
		if r.Systems.Bad != want.Bad || r.Systems.Opt != fa.Opt || (r.Systems.Best == nil) != (want.Best == nil) {
			t.Fatalf("%s: %+v, recomputed %+v", c.Problem, r.Systems, want)
		}
		if c.Problem == "crash" && r.Systems.Failed == 0 {
			t.Fatalf("crash: no evaluation failed in 30 (the failures are told and scored)")
		}
		if c.Problem == "typed" {
			for _, x := range r.Points {
				if !slices.Equal(x, p.SnapParams(x)) {
					t.Fatalf("typed point %v is not a valid parameter combination", x)
				}
			}
		}
	}
	if md := s.Markdown(); !strings.Contains(md, "| typed | rpol-ucb | natural | 14100.4 |") {
		t.Fatalf("markdown lacks the systems table:\n%s", md)
	}
}
