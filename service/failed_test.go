package service

import (
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/cbandit/cbandit/service/api"
	"github.com/cbandit/cbandit/store"
)

// failedStudy plays n rounds of the toy system with config, telling every
// evaluation at x₀ > 0.8 as failed ("OOM"), and returns the study and the
// failures told.
func failedStudy(t *testing.T, s *tserver, n int) (api.Study, int) {
	t.Helper()
	spec := toySpec("crashy")
	spec.Algorithm = "config"
	st := s.create(spec)
	fails := 0
	for range n {
		sg := s.ask(st.ID, 1)[0]
		if sg.X[0] > 0.8 {
			fails++
			r := s.tell(st.ID, api.Observation{DecisionID: sg.DecisionID, Failed: true, Reason: "OOM"})
			if !slices.Equal(r.Applied, []string{"failed"}) {
				t.Fatalf("failed tell applied %v, want [failed]", r.Applied)
			}
			continue
		}
		s.tell(st.ID, api.Observation{DecisionID: sg.DecisionID, Reward: f64(toyF(sg.X)), Costs: []float64{toyG(sg.X)}})
	}
	return st, fails
}

// A failed evaluation is an observation: counted in the summary with its
// reason, listed and exported, and replayed after a restart to the same
// next decision as a server that never stopped.
func TestFailedEvaluations(t *testing.T) {
	const n = 30
	st1, st2 := store.NewMemory(), store.NewMemory()
	a := newTestServer(t, st1, Options{})
	study, fails := failedStudy(t, a, n)
	if fails == 0 {
		t.Fatal("no evaluation failed: the test needs some")
	}
	var sum api.Summary
	a.do("GET", "/studies/"+study.ID+"/summary", nil, &sum)
	if sum.Failed != fails || sum.Reasons["OOM"] != fails || sum.Pending != 0 {
		t.Fatalf("summary: failed %d (reasons %v), pending %d; want %d failed, all OOM, 0 pending", sum.Failed, sum.Reasons, sum.Pending, fails)
	}
	var list api.DecisionList
	a.do("GET", "/studies/"+study.ID+"/decisions", nil, &list)
	failed := 0
	for _, d := range list.Decisions {
		if d.Failed && d.Reason == "OOM" && d.Observed != nil {
			failed++
		}
	}
	if failed != fails {
		t.Fatalf("decisions list: %d failed with reason and time, want %d", failed, fails)
	}
	_, csv := a.do("GET", "/studies/"+study.ID+"/decisions.csv", nil, nil)
	if got := strings.Count(string(csv), ",failed,"); got != fails || !strings.Contains(string(csv), ",OOM\n") {
		t.Fatalf("decisions.csv: %d rows with status failed (want %d), reason OOM present: %v", got, fails, strings.Contains(string(csv), ",OOM\n"))
	}

	// The same study on a second store, then a fresh server on it (a
	// restart: the log replayed): the next decision equals the first
	// server's.
	b := newTestServer(t, st2, Options{})
	study2, _ := failedStudy(t, b, n)
	next := a.ask(study.ID, 1)[0]
	restarted := newTestServer(t, st2, Options{})
	again := restarted.ask(study2.ID, 1)[0]
	if !slices.Equal(next.X, again.X) {
		t.Fatalf("after a restart the next decision is %v, without one %v", again.X, next.X)
	}
}

// Bad failure bodies get a 4xx naming the field.
func TestFailedValidation(t *testing.T) {
	s := newTestServer(t, store.NewMemory(), Options{})
	spec := toySpec("v")
	spec.Algorithm = "config"
	st := s.create(spec)
	sg := s.ask(st.ID, 3)
	path := "/studies/" + st.ID + "/observations"
	long := strings.Repeat("x", 201)
	for _, c := range []struct {
		body  any
		code  int
		field string
	}{
		{map[string]any{"decision_id": sg[0].DecisionID, "failed": true, "reward": 1.0}, http.StatusBadRequest, "failed"},
		{map[string]any{"decision_id": sg[0].DecisionID, "failed": true, "costs": []float64{1}}, http.StatusBadRequest, "failed"},
		{map[string]any{"decision_id": sg[0].DecisionID, "failed": true, "reason": long}, http.StatusBadRequest, "reason"},
		{map[string]any{"decision_id": sg[0].DecisionID, "reward": 1.0, "reason": "OOM"}, http.StatusBadRequest, "reason"},
		{map[string]any{"decision_id": sg[0].DecisionID, "failed": "yes"}, http.StatusBadRequest, "failed"},
	} {
		code, raw := s.do("POST", path, c.body, nil)
		wantError(t, code, raw, c.code, c.field)
	}
	// a failure of an abandoned decision, of an observed one, and values
	// after a failure: 409
	if code, raw := s.do("DELETE", "/studies/"+st.ID+"/decisions/1", nil, nil); code != 200 {
		t.Fatalf("abandon: %d %s", code, raw)
	}
	code, raw := s.do("POST", path, api.Observation{DecisionID: 1, Failed: true}, nil)
	wantError(t, code, raw, http.StatusConflict, "decision_id")
	s.tell(st.ID, api.Observation{DecisionID: 2, Reward: f64(1)})
	code, raw = s.do("POST", path, api.Observation{DecisionID: 2, Failed: true}, nil)
	wantError(t, code, raw, http.StatusConflict, "failed")
	s.tell(st.ID, api.Observation{DecisionID: 3, Failed: true, Reason: "OOM"})
	if r := s.tell(st.ID, api.Observation{DecisionID: 3, Failed: true, Reason: "OOM"}); !slices.Equal(r.Duplicate, []string{"failed"}) {
		t.Fatalf("a repeated failure: %+v, want a duplicate", r)
	}
	code, raw = s.do("POST", path, api.Observation{DecisionID: 3, Reward: f64(1)}, nil)
	wantError(t, code, raw, http.StatusConflict, "decision_id")
	code, raw = s.do("DELETE", "/studies/"+st.ID+"/decisions/3", nil, nil)
	wantError(t, code, raw, http.StatusConflict, "decision_id")
}
