package service

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/cbandit/cbandit/bandit"
	"github.com/cbandit/cbandit/service/api"
	"github.com/cbandit/cbandit/store"
)

// A study says what counts: live by default (stored explicitly), offline
// when asked, anything else refused naming the field and the value.
func TestEvaluations(t *testing.T) {
	s := newTestServer(t, store.NewMemory(), Options{})
	spec := toySpec("live")
	if st := s.create(spec); st.Spec.Evaluations != "live" {
		t.Fatalf("evaluations absent: stored %q, want live", st.Spec.Evaluations)
	}
	spec = toySpec("offline")
	spec.Algorithm, spec.Evaluations = "", "offline"
	st := s.create(spec)
	if st.Spec.Evaluations != "offline" || st.Spec.Algorithm == "" || !strings.Contains(st.Spec.AlgorithmChoice, "offline") {
		t.Fatalf("offline study: evaluations %q, algorithm %q, choice %q", st.Spec.Evaluations, st.Spec.Algorithm, st.Spec.AlgorithmChoice)
	}
	spec = toySpec("sometimes")
	spec.Evaluations = "sometimes"
	code, raw := s.do("POST", "/studies", spec, nil)
	wantError(t, code, raw, 400, "evaluations")
	if !strings.Contains(string(raw), "sometimes") {
		t.Fatalf("the error does not name the value: %s", raw)
	}
}

// recAgent is a fake agent that names a recommendation.
type recAgent struct {
	bandit.Agent
	rec bandit.Recommendation
}

func (a *recAgent) Recommend(float64) (bandit.Recommendation, bool) { return a.rec, true }

// The summary carries the agent's recommendation in the study's terms: the
// study's decision ID, x as the learner has it, the parameters' values, the
// objective in its own direction, constraint metrics with their names and
// units; without a recommending agent the key is absent.
func TestSummaryRecommendation(t *testing.T) {
	spec, _, e := decodeStudy([]byte(`{"name": "r", "parameters": [{"name": "n", "type": "int", "low": 1, "high": 4}],
		"space": {"candidates": 4}, "objective": {"name": "loss", "goal": "minimize"},
		"constraints": [{"name": "ms", "threshold": 10}], "algorithm": "config", "horizon": 10}`))
	if e != nil {
		t.Fatal(e)
	}
	raw, _ := json.Marshal(spec)
	l, err := newLive(store.Study{ID: "s-r", Name: spec.Name, Spec: raw}, newMetrics())
	if err != nil {
		t.Fatal(err)
	}
	for i := range 2 {
		l.decs = append(l.decs, decState{round: i + 1, arm: i, x: l.b.Points[i]})
	}
	if doc, _ := json.Marshal(l.summary()); strings.Contains(string(doc), "recommendation") {
		t.Fatalf("no agent: %s", doc)
	}
	l.agent = &recAgent{rec: bandit.Recommendation{Decision: 2, Action: bandit.Action{Arm: 1},
		Objective: bandit.Moments{Mean: -0.5, Std: 0.1}, Constraints: []bandit.Moments{{Mean: -2, Std: 0.3}}, Feasible: 0.99}}
	r := l.summary().Recommendation
	want := &api.Recommendation{DecisionID: 2, X: l.b.Points[1], Params: decodeParams(spec.Parameters, l.b.Points[1]),
		Objective: bandit.Moments{Mean: 0.5, Std: 0.1}, Constraints: []api.ConstraintMoments{{Name: "ms", Mean: 8, Std: 0.3}}, Feasible: 0.99}
	if !reflect.DeepEqual(r, want) {
		t.Fatalf("recommendation %+v, want %+v", r, want)
	}
	var doc map[string]map[string]any
	b, _ := json.Marshal(l.summary())
	json.Unmarshal(b, &doc)
	for _, k := range []string{"decision_id", "x", "params", "objective", "constraints", "feasible"} {
		if _, ok := doc["recommendation"][k]; !ok {
			t.Errorf("summary JSON %s: recommendation has no %q", b, k)
		}
	}
}

// The OpenAPI document names every JSON field of the study definition, the
// summary and what they hold.
func TestOpenAPIInStep(t *testing.T) {
	var doc struct {
		Components struct {
			Schemas map[string]struct {
				Properties map[string]any `json:"properties"`
			} `json:"schemas"`
		} `json:"components"`
	}
	if err := json.Unmarshal(openapiDoc, &doc); err != nil {
		t.Fatal(err)
	}
	for name, v := range map[string]any{"StudySpec": api.StudySpec{}, "Summary": api.Summary{}, "Best": api.Best{},
		"Recommendation": api.Recommendation{}} {
		props := doc.Components.Schemas[name].Properties
		rt := reflect.TypeOf(v)
		for i := range rt.NumField() {
			tag := strings.Split(rt.Field(i).Tag.Get("json"), ",")[0]
			if tag == "" || tag == "-" {
				continue
			}
			if _, ok := props[tag]; !ok {
				keys := make([]string, 0, len(props))
				for k := range props {
					keys = append(keys, k)
				}
				slices.Sort(keys)
				t.Errorf("openapi.json: schema %s has no property %q (it has %v)", name, tag, keys)
			}
		}
	}
}

// A study stored before the evaluations field existed is live: a create
// with load_if_exists of the same definition (which now records "live")
// resumes it, and an offline one is a different study.
func TestResumeStoredWithoutEvaluations(t *testing.T) {
	st := store.NewMemory()
	s := newTestServer(t, st, Options{})
	spec, _, e := decodeStudy(mustJSON(t, resumeSpec(2)))
	if e != nil {
		t.Fatal(e)
	}
	spec.Evaluations = "" // as a study of an earlier release was stored
	raw, _ := json.Marshal(spec)
	if strings.Contains(string(raw), "evaluations") {
		t.Fatalf("stored definition %s", raw)
	}
	if err := st.Create(t.Context(), store.Study{ID: "s-old", Name: spec.Name, Spec: raw}); err != nil {
		t.Fatal(err)
	}
	var again api.Study
	if code, raw := s.do("POST", "/studies?load_if_exists=true", resumeSpec(2), &again); code != 200 || again.ID != "s-old" {
		t.Fatalf("resume: %d %s", code, raw)
	}
	off := resumeSpec(2)
	off.Evaluations = "offline"
	code, body := s.do("POST", "/studies?load_if_exists=true", off, nil)
	wantError(t, code, body, 409, "load_if_exists")
	if !strings.Contains(string(body), "evaluations") {
		t.Fatalf("%s: want evaluations named", body)
	}
}
