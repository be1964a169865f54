package service

import (
	"math"
	"net/http"
	"testing"

	"github.com/cbandit/cbandit/domain"
	"github.com/cbandit/cbandit/service/api"
	"github.com/cbandit/cbandit/store"
)

// quickstart is the README's quickstart system: throughput up, latency ≤ 50.
func quickstart(p map[string]any) (float64, float64) {
	b, th := float64(p["batch"].(float64)), float64(p["threads"].(float64))
	return 1000 * math.Sqrt(th) / (1 + math.Abs(b-32)/32), 5 + b*th/10
}

func quickstartSpec() api.StudySpec {
	lo1, hi1, lo2, hi2 := 1.0, 128.0, 1.0, 16.0
	return api.StudySpec{Name: "quickstart", Algorithm: "config", Seed: 1, Horizon: 60,
		Parameters: []api.Parameter{{Name: "batch", Type: "int", Low: &lo1, High: &hi1, Log: true},
			{Name: "threads", Type: "int", Low: &lo2, High: &hi2}},
		Objective:   api.Objective{Name: "throughput", Goal: "maximize"},
		Constraints: []api.Constraint{{Name: "latency_ms", Threshold: 50, Kind: "stage-wise"}}}
}

// The README's quickstart, through the service with the current defaults,
// finds its system's optimum (batch 32, threads 14: 3742), which the
// candidate set of generation 7 did not hold; a batch of 4 asks gets 4
// distinct configurations, each a valid one.
func TestQuickstartFindsItsOptimum(t *testing.T) {
	s := newTestServer(t, store.NewMemory(), Options{})
	st := s.create(quickstartSpec())
	if !st.Spec.Space.Native || st.Spec.Defaults != api.DefaultsPractical {
		t.Fatalf("space %+v, defaults %d: want the encoded cube (native) of generation %d", st.Spec.Space, st.Spec.Defaults, api.DefaultsPractical)
	}
	for range 60 {
		sg := s.ask(st.ID, 1)[0]
		th, lat := quickstart(asFloats(sg.Params))
		s.tell(st.ID, api.Observation{DecisionID: sg.DecisionID, Reward: f64(th), Costs: []float64{lat}})
	}
	var sum api.Summary
	s.do("GET", "/studies/"+st.ID+"/summary", nil, &sum)
	if sum.Best == nil || sum.Best.Params["batch"] != float64(32) || sum.Best.Params["threads"] != float64(14) {
		t.Fatalf("best %+v, want batch 32, threads 14", sum.Best)
	}

	spec := quickstartSpec()
	spec.Name = "batches"
	b := s.create(spec)
	for range 5 {
		sgs := s.ask(b.ID, 4)
		seen := map[[2]float64]bool{}
		for _, sg := range sgs {
			p := asFloats(sg.Params)
			k := [2]float64{p["batch"].(float64), p["threads"].(float64)}
			if seen[k] || k[0] != math.Round(k[0]) || k[1] != math.Round(k[1]) {
				t.Fatalf("batch of 4: %v repeats or is not a valid configuration (%v)", k, sgs)
			}
			seen[k] = true
		}
		for _, sg := range sgs {
			th, lat := quickstart(asFloats(sg.Params))
			s.tell(b.ID, api.Observation{DecisionID: sg.DecisionID, Reward: f64(th), Costs: []float64{lat}})
		}
	}
}

// Studies of generation 7 keep their candidate set.
func TestTypedStudyOfGeneration7(t *testing.T) {
	s := newTestServer(t, store.NewMemory(), Options{})
	spec := quickstartSpec()
	spec.Defaults = 7
	st := s.create(spec)
	if st.Spec.Space.Type != api.SpacePoints || len(st.Spec.Space.Points) == 0 {
		t.Fatalf("generation 7: space %v, want its stored candidates", st.Spec.Space.Type)
	}
}

// asFloats reads JSON-decoded params (numbers as float64).
func asFloats(p map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range p {
		switch x := v.(type) {
		case int64:
			out[k] = float64(x)
		default:
			out[k] = v
		}
	}
	return out
}

// The learner's projection and the service's decoding agree: a projected
// point decodes to the values its encoding gives back exactly.
func TestProjectionMatchesDecoding(t *testing.T) {
	lo1, hi1, lo2, hi2, lo3, hi3 := 1.0, 1000.0, -3.0, 7.0, 0.1, 10.0
	ps := []api.Parameter{{Name: "a", Type: "int", Low: &lo1, High: &hi1, Log: true}, {Name: "b", Type: "int", Low: &lo2, High: &hi2},
		{Name: "c", Type: "categorical", Choices: []any{"x", "y", "z"}}, {Name: "d", Type: "float", Low: &lo3, High: &hi3, Log: true}}
	spec := api.StudySpec{Parameters: ps, Defaults: api.DefaultsMixed, Space: api.Space{Native: true}}
	if e := normalizeParameters(&spec); e != nil {
		t.Fatal(e)
	}
	box, err := domain.NewBox(spec.Space.Lo, spec.Space.Hi)
	if err != nil {
		t.Fatal(err)
	}
	box.Vars = paramVars(ps)
	for _, x := range domain.Halton(200, box.Dim()) {
		box.Project(x)
		vals := decodeParams(ps, x)
		back := encodeParams(ps, []any{vals["a"], vals["b"], vals["c"], vals["d"]})
		for i := range x {
			if math.Abs(back[i]-x[i]) > 1e-12 {
				t.Fatalf("x %v decodes to %v, encoded back %v", x, vals, back)
			}
		}
	}
}

// A stepped float (Optuna's step) is searched on its steps.
func TestSteppedFloat(t *testing.T) {
	s := newTestServer(t, store.NewMemory(), Options{})
	lo, hi, step := 0.0, 1.0, 0.25
	spec := quickstartSpec()
	spec.Parameters = append(spec.Parameters, api.Parameter{Name: "ratio", Type: "float", Low: &lo, High: &hi, Step: &step})
	st := s.create(spec)
	for range 12 {
		sg := s.ask(st.ID, 1)[0]
		r := sg.Params["ratio"].(float64)
		if r*4 != math.Round(r*4) {
			t.Fatalf("ratio %v is not a step of 0.25", r)
		}
		th, lat := quickstart(asFloats(sg.Params))
		s.tell(st.ID, api.Observation{DecisionID: sg.DecisionID, Reward: f64(th * (1 - math.Abs(r-0.5))), Costs: []float64{lat}})
	}
	code, raw := s.do("POST", "/studies", map[string]any{"name": "bad", "parameters": []map[string]any{{"name": "c", "type": "categorical", "choices": []string{"a"}, "step": 1}},
		"objective": map[string]any{"name": "y"}}, nil)
	wantError(t, code, raw, http.StatusBadRequest, "parameters[0].low")
}

// A typed study's candidate set over the model's bound is refused naming
// space.candidates, the field the user set, with the largest it takes.
func TestTypedCandidatesBound(t *testing.T) {
	s := newTestServer(t, store.NewMemory(), Options{})
	spec := quickstartSpec()
	lo, hi := 0.0, 1.0
	for _, n := range []string{"a", "b", "c", "d", "e", "f"} {
		spec.Parameters = append(spec.Parameters, api.Parameter{Name: n, Type: "float", Low: &lo, High: &hi})
	}
	spec.Space.Candidates = 2000
	code, raw := s.do("POST", "/studies", spec, nil)
	wantError(t, code, raw, http.StatusBadRequest, "space.candidates")
}
