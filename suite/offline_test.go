package suite

import (
	"context"
	"encoding/json"
	"maps"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/cbandit/cbandit/agent"
	"github.com/cbandit/cbandit/learner"
	"github.com/cbandit/cbandit/problem"
)

// The late share that breaks a limit leaves out the crashes; the gap is
// signed: a best feasible value beyond f* (here a wrong f* of 5) gives a
// negative gap; an f* that is 0 up to rounding does not divide it.
func TestScoreSystemsBreakLateAndSignedGap(t *testing.T) {
	p, fa := lineCrash()
	q := *p
	q.Goal = problem.SuiteMinimize
	fq := fa
	fq.Opt = 0
	// t = 3, 4 late: 0.9 crashes, 0.7 runs and breaks x ≤ 0.6.
	sc := ScoreSystems(&q, fq, [][]float64{{0.2}, {0.1}, {0.9}, {0.7}})
	if sc.FailedLate != 0.5 || sc.BadLate != 1 || sc.BreakLate != 0.5 {
		t.Fatalf("late shares %+v", sc)
	}
	fq.Opt = 2.5e-13 // zero up to rounding: not divided
	if sc = ScoreSystems(&q, fq, [][]float64{{0.2}}); sc.Gap == nil || math.Abs(*sc.Gap-(*sc.Best-fq.Opt)) > 1e-15 {
		t.Fatalf("gap %v at f* ≈ 0, want %v", sc.Gap, *sc.Best-fq.Opt)
	}
	fa.Opt = 5
	sc = ScoreSystems(p, fa, [][]float64{{0.5}, {0.55}})
	if sc.Gap == nil || math.Abs(*sc.Gap-(-0.1)) > 1e-15 {
		t.Fatalf("gap %v, want −0.1", sc.Gap)
	}
}

// The mean sets the worst seed beside each mean: the largest gap and late
// shares, and counts and gaps of the recommendations.
func TestMeanSystemsWorstAndRecommendation(t *testing.T) {
	g1, g2, r1, r2 := 0.2, 0.4, 0.05, 0.15
	v := 1.0
	m := MeanSystems([]SystemsScore{
		{Opt: 6, Best: &v, Gap: &g1, FailedLate: 0.5, BadLate: 0.75, BreakLate: 0.25,
			Recommendation: &RecommendationScore{Present: true, Value: &v, Gap: &r1, Feasible: true}},
		{Opt: 6, Best: &v, Gap: &g2, BadLate: 0.5, BreakLate: 0.5,
			Recommendation: &RecommendationScore{Present: true, Value: &v, Gap: &r2}},
		{Opt: 6, Recommendation: &RecommendationScore{Present: true, Crashed: true}},
		{Opt: 6, Recommendation: &RecommendationScore{}},
	})
	if *m.GapWorst != 0.4 || math.Abs(*m.Gap-0.3) > 1e-15 || m.FailedLateWorst != 0.5 || m.BadLateWorst != 0.75 ||
		m.BreakLateWorst != 0.5 || m.BreakLate != 0.1875 {
		t.Fatalf("worst %+v", m)
	}
	if m.RecPresent != 3 || m.RecFeasible != 1 || math.Abs(*m.RecGap-0.1) > 1e-15 || *m.RecGapWorst != 0.15 {
		t.Fatalf("recommendation %+v", m)
	}
}

// The recommendation is read from the summary's JSON: as x, under action,
// or as parameters; absent or null is recorded as absent; scored on the
// true functions (lineCrash: f* = 6 at x = 0.6, limit x ≤ 0.6, crash past
// 0.8).
func TestReadRecommendation(t *testing.T) {
	p, fa := lineCrash()
	for _, c := range []struct {
		raw                      string
		present, feasible, crash bool
		gap                      float64
	}{
		{`{"rounds": 10}`, false, false, false, 0},
		{`{"recommendation": null}`, false, false, false, 0},
		{`{"recommendation": {"feasible": 0.97}}`, false, false, false, 0},
		{`{"recommendation": {"x": [0.5], "feasible": 0.97}}`, true, true, false, 1.0 / 6},
		{`{"recommendation": {"action": {"x": [0.6]}}}`, true, true, false, 0},
		{`{"recommendation": {"x": [0.7]}}`, true, false, false, -1.0 / 6},
		{`{"recommendation": {"x": [0.9]}}`, true, false, true, 0},
	} {
		r, err := readRecommendation(p, fa, []byte(c.raw))
		if err != nil {
			t.Fatalf("%s: %v", c.raw, err)
		}
		if r.Present != c.present || r.Feasible != c.feasible || r.Crashed != c.crash {
			t.Fatalf("%s: %+v", c.raw, r)
		}
		if c.present && !c.crash && math.Abs(*r.Gap-c.gap) > 1e-12 {
			t.Fatalf("%s: gap %v, want %v", c.raw, *r.Gap, c.gap)
		}
		if c.crash && (r.Value != nil || r.Gap != nil) {
			t.Fatalf("%s: a crash has a value: %+v", c.raw, r)
		}
	}
	if _, err := readRecommendation(p, fa, []byte(`{"recommendation": {"x": [0.5, 0.5]}}`)); err == nil || !strings.Contains(err.Error(), "coordinates") {
		t.Fatalf("wrong dimension: %v", err)
	}
	typed, err := problem.SuiteByName("typed")
	if err != nil {
		t.Fatal(err)
	}
	tf, err := typed.Facts()
	if err != nil {
		t.Fatal(err)
	}
	raw := `{"recommendation": {"params": {"workers": 14, "batch": 15, "queue": 2, "replicas": 6, "timeout_ms": 200, "gc": 0.89117199391172, "compression": "zstd", "scheduler": "fifo"}}}`
	r, err := readRecommendation(&typed, tf, []byte(raw))
	if err != nil || !r.Present || !r.Feasible || math.Abs(*r.Gap) > 1e-9 || !slices.Equal(r.X[:4], []float64{14, 15, 2, 6}) {
		t.Fatalf("typed recommendation %+v, err %v", r, err)
	}
}

// --noise and --evaluations: the noise level of a job, and bad values named.
func TestNoiseAndEvaluationsOptions(t *testing.T) {
	if (Job{}).noiseLevel() != NoiseFraction || (Job{Noise: 0.05}).noiseLevel() != 0.05 || (Job{NoiseFree: true, Noise: 0.05}).noiseLevel() != 0 {
		t.Fatal("noise levels")
	}
	if _, err := (Options{Noise: -0.1}).Normalize(); err == nil || !strings.Contains(err.Error(), "noise") {
		t.Fatalf("bad noise: %v", err)
	}
	if _, err := (Options{Evaluations: "sometimes"}).Normalize(); err == nil || !strings.Contains(err.Error(), "evaluations") {
		t.Fatalf("bad evaluations: %v", err)
	}
	o, err := Options{}.Normalize()
	if err != nil || o.Evaluations != Live {
		t.Fatalf("default evaluations %q, err %v", o.Evaluations, err)
	}
}

// An offline run of the systems set: the mode is in summary.json and in
// the study definition exactly when the API carries it (setEvaluations);
// every run has a recommendation score (absent while the service names
// none; else the score of its configuration); the stepped thicknesses of
// vessel-mi are studied as stepped floats; the tables print.
func TestRunOffline(t *testing.T) {
	s, err := Run(context.Background(), Options{Set: SetSystems, Problems: []string{"three-bar-truss", "vessel-mi"}, Algorithms: []string{"rpol-ucb"},
		Horizon: 16, Seeds: 1, Units: []string{Natural}, Workers: 1, Noise: 0.05, Evaluations: Offline})
	if err != nil {
		t.Fatal(err)
	}
	if s.Evaluations != Offline || s.Noise != 0.05 {
		t.Fatalf("summary evaluations %q noise %v", s.Evaluations, s.Noise)
	}
	p, _ := problem.SuiteByName("vessel-mi")
	raw, err := json.Marshal(StudySpec(&p, Job{Problem: "vessel-mi", Algorithm: "rpol-ucb", Units: Natural, Seed: 1, Evaluations: Offline}, 16))
	if err != nil {
		t.Fatal(err)
	}
	if has := strings.Contains(string(raw), `"evaluations":"offline"`); has != s.EvaluationsSent {
		t.Fatalf("definition carries the mode: %v; summary says %v", has, s.EvaluationsSent)
	}
	if !strings.Contains(string(raw), `"step":0.0625`) {
		t.Fatalf("vessel-mi's thicknesses are not stepped: %s", raw)
	}
	for _, c := range s.Cells {
		r := c.Runs[0]
		if r.Evaluations != Offline || r.Systems == nil || r.Systems.Recommendation == nil {
			t.Fatalf("%s: run %+v", c.Problem, r)
		}
		if rec := r.Systems.Recommendation; rec.Present {
			q, _ := problem.SuiteByName(c.Problem)
			fa, _ := q.Facts()
			if want := scoreRecommendation(&q, fa, rec.X); want.Feasible != rec.Feasible || (want.Gap == nil) != (rec.Gap == nil) {
				t.Fatalf("%s: recommendation %+v, rescored %+v", c.Problem, rec, want)
			}
		}
		if c.Problem == "vessel-mi" {
			for _, x := range r.Points {
				if !slices.Equal(x, p.SnapParams(x)) {
					t.Fatalf("vessel-mi point %v is not on the thickness steps", x)
				}
			}
		}
	}
	md := s.Markdown()
	for _, want := range []string{"Evaluations: offline", "Offline scores", "| three-bar-truss | rpol-ucb | natural |", "Per seed", "Noise std 0.05"} {
		if !strings.Contains(md, want) {
			t.Fatalf("markdown lacks %q:\n%s", want, md)
		}
	}
}

// Offline, a problem of the defaults set gets the offline scores too (the
// best feasible gap, the recommendation); live it gets none.
func TestRunOfflineDefaultsSet(t *testing.T) {
	for _, ev := range []string{Offline, Live} {
		s, err := Run(context.Background(), Options{Problems: []string{"gardner"}, Algorithms: []string{"rpol-ucb"},
			Horizon: 16, Seeds: 1, Units: []string{Natural}, Workers: 1, Noise: 0.02, Evaluations: ev})
		if err != nil {
			t.Fatal(err)
		}
		r := s.Cells[0].Runs[0]
		if scored := r.Systems != nil && r.Systems.Recommendation != nil; scored != (ev == Offline) {
			t.Fatalf("%s: systems scores %+v", ev, r.Systems)
		}
		if md := s.Markdown(); strings.Contains(md, "Offline scores") != (ev == Offline) {
			t.Fatalf("%s: markdown:\n%s", ev, md)
		}
	}
}

// The entry "default" names no algorithm and no kind: its studies get the
// service's choice (learner.Choose for stage-wise limits on a box: offline
// lognei, live config), which the cells record and the tables label
// "default (<ID>)"; offline it is the default list; it takes no parameters.
func TestDefaultEntry(t *testing.T) {
	o, err := Options{Evaluations: Offline}.Normalize()
	if err != nil || !slices.Equal(o.Algorithms, []string{Default}) {
		t.Fatalf("offline default algorithms %v, %v", o.Algorithms, err)
	}
	if o, err = (Options{}).Normalize(); err != nil || !slices.Equal(o.Algorithms, DefaultAlgorithms) {
		t.Fatalf("live default algorithms %v, %v", o.Algorithms, err)
	}
	if _, err := ParseEntry("default:beta-f=2"); err == nil || !strings.Contains(err.Error(), "no parameters") {
		t.Fatalf("default with parameters: %v", err)
	}
	p, _ := problem.SuiteByName("three-bar-truss")
	spec := StudySpec(&p, Job{Problem: "three-bar-truss", Algorithm: Default, Units: Natural, Seed: 1, Evaluations: Offline}, 8)
	if spec.Algorithm != "" || spec.Params != nil || spec.Constraints[0].Kind != "" {
		t.Fatalf("default spec: algorithm %q, params %v, kind %q", spec.Algorithm, spec.Params, spec.Constraints[0].Kind)
	}
	for _, mode := range []string{Offline, Live} {
		want, err := learner.Choose(make([]learner.Kind, len(p.Constraints)), false, agent.DomainBox, mode)
		if err != nil {
			t.Fatal(err)
		}
		s, err := Run(context.Background(), Options{Set: SetSystems, Problems: []string{"three-bar-truss"}, Algorithms: []string{Default},
			Horizon: 8, Seeds: 1, Units: []string{Natural}, Workers: 1, NoiseFree: true, Evaluations: mode})
		if err != nil {
			t.Fatal(err)
		}
		c := s.Cells[0]
		if c.Resolved != want.Algorithm || c.Runs[0].Resolved != want.Algorithm || c.ViolationKind != "per-round" {
			t.Fatalf("%s: resolved %q (run %q), violation %s; want %s, per-round", mode, c.Resolved, c.Runs[0].Resolved, c.ViolationKind, want.Algorithm)
		}
		label := "default (" + want.Algorithm + ")"
		md := s.Markdown()
		for _, row := range []string{"| three-bar-truss | " + label + " |", "| " + label + " | ", "- three-bar-truss, " + label + ", natural:"} {
			if !strings.Contains(md, row) {
				t.Fatalf("%s: markdown lacks %q:\n%s", mode, row, md)
			}
		}
	}
}

// --noise-scale: a noise relative to each metric's size (|f*|, the limit)
// or to its range; problems without such a size, and bad values, named.
func TestNoiseScale(t *testing.T) {
	p, err := problem.SuiteByName("welded-beam")
	if err != nil {
		t.Fatal(err)
	}
	fa, err := p.Facts()
	if err != nil {
		t.Fatal(err)
	}
	lim, err := noiseStds(&p, fa, Job{Noise: 0.02, NoiseScale: NoiseLimit})
	if err != nil {
		t.Fatal(err)
	}
	want := []float64{0.02 * 13600, 0.02 * 30000, 0.02 * 0.205730, 0.02 * 6000, 0.02 * 0.25, 0.02 * math.Abs(fa.Opt)}
	for j := range want {
		if math.Abs(lim[j]-want[j]) > 1e-12*want[j] {
			t.Fatalf("limit-relative stds %v, want %v", lim, want)
		}
	}
	rng, err := noiseStds(&p, fa, Job{Noise: 0.02})
	if err != nil || rng[0] != 0.02*(fa.ConRanges[0][1]-fa.ConRanges[0][0]) || rng[0] < 100*lim[0] {
		t.Fatalf("range-relative stds %v, err %v (the shear's range spans orders of magnitude over its limit)", rng, err)
	}
	if s, _ := noiseStds(&p, fa, Job{NoiseFree: true, Noise: 0.02, NoiseScale: NoiseLimit}); slices.ContainsFunc(s, func(v float64) bool { return v != 0 }) {
		t.Fatalf("noise-free stds %v", s)
	}
	o, err := Options{Set: SetSystems, Problems: []string{"spring"}, NoiseScale: NoiseLimit}.Normalize()
	if err != nil || o.NoiseScale != NoiseLimit {
		t.Fatalf("spring, limit: %+v, %v", o.NoiseScale, err)
	}
	if o, err := (Options{}).Normalize(); err != nil || o.NoiseScale != NoiseRange {
		t.Fatalf("default noise scale %q, err %v", o.NoiseScale, err)
	}
	if _, err := (Options{Set: SetSystems, Problems: []string{"ackley20"}, NoiseScale: NoiseLimit}).Normalize(); err == nil || !strings.Contains(err.Error(), "ackley") || !strings.Contains(err.Error(), "f* = 0") {
		t.Fatalf("ackley20 has f* = 0: %v", err)
	}
	if _, err := (Options{NoiseScale: "limits"}).Normalize(); err == nil || !strings.Contains(err.Error(), `noise-scale = "limits"`) {
		t.Fatalf("bad noise scale: %v", err)
	}
}

// An entry's "defaults=g" asks for generation g's defaults: the study says
// so, other parameters stay the algorithm's, bad generations are named, and
// the generation reaches the service (the speed reducer's config decides
// otherwise under generation 9 than today).
func TestGenerationEntry(t *testing.T) {
	for entry, want := range map[string]Entry{
		"default":                       {ID: Default},
		"g9=default:defaults=9":         {ID: Default, Defaults: 9},
		"config:defaults=9;beta-safe=2": {ID: "config", Params: map[string]any{"beta-safe": "2"}, Defaults: 9},
		"config:beta-safe=2":            {ID: "config", Params: map[string]any{"beta-safe": "2"}},
	} {
		e, err := ParseEntry(entry)
		if err != nil || e.ID != want.ID || e.Defaults != want.Defaults || !maps.Equal(e.Params, want.Params) {
			t.Fatalf("%s: %+v, %v; want %+v", entry, e, err, want)
		}
	}
	for entry, words := range map[string]string{
		"default:defaults=0":          "defaults = 0: must be a generation",
		"default:defaults=nine":       "defaults = nine",
		"config:defaults=999":         "defaults = 999",
		"default:defaults=9;beta-f=2": "no parameters but defaults",
	} {
		if _, err := ParseEntry(entry); err == nil || !strings.Contains(err.Error(), words) {
			t.Fatalf("%s: error %v, want one saying %q", entry, err, words)
		}
	}
	p, _ := problem.SuiteByName("speed-reducer")
	if spec := StudySpec(&p, Job{Problem: "speed-reducer", Algorithm: "g9=default:defaults=9", Units: Natural, Seed: 1}, 8); spec.Defaults != 9 || spec.Algorithm != "" {
		t.Fatalf("spec: defaults %d, algorithm %q", spec.Defaults, spec.Algorithm)
	}
	s, err := Run(context.Background(), Options{Set: SetSystems, Problems: []string{"speed-reducer"}, Algorithms: []string{Default, "g9=default:defaults=9"},
		Horizon: 40, Seeds: 1, Units: []string{Natural}, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	if slices.EqualFunc(s.Cells[0].Runs[0].Points, s.Cells[1].Runs[0].Points, slices.Equal) {
		t.Fatal("generation 9's study decided as today's: the generation did not reach the service")
	}
}
