package service

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"testing"

	"github.com/cbandit/cbandit/service/api"
	"github.com/cbandit/cbandit/store"
)

// postKeyed sends a JSON body with an Idempotency-Key and returns the
// status, whether the answer says it was replayed, and the body.
func postKeyed(t *testing.T, s *tserver, path, key string, body any) (int, bool, []byte) {
	t.Helper()
	raw, _ := json.Marshal(body)
	req, _ := http.NewRequest("POST", s.url+path, bytes.NewReader(raw))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Idempotency-Key", `"`+key+`"`)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	out, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header.Get("Idempotent-Replayed") == "true", out
}

// A past measurement re-sent with its Idempotency-Key (a retry after a
// lost answer) is recorded once, also after a restart; the key with
// another body, or on an ask, is refused.
func TestAddTrialIdempotent(t *testing.T) {
	st := store.NewMemory()
	s := newTestServer(t, st, Options{})
	spec := toySpec("added")
	spec.Algorithm = "config"
	study := s.create(spec)
	path := "/studies/" + study.ID + "/trials"
	r := 0.5
	trial := api.TrialRequest{X: []float64{0.25, 0.5}, Reward: &r, Costs: []float64{0.1}}
	var first, again api.Suggestion
	code, replayed, raw := postKeyed(t, s, path, "add-1", trial)
	if code != http.StatusCreated || replayed || json.Unmarshal(raw, &first) != nil {
		t.Fatalf("first add: %d replayed=%v %s", code, replayed, raw)
	}
	code, replayed, raw = postKeyed(t, s, path, "add-1", trial)
	if code != http.StatusCreated || !replayed || json.Unmarshal(raw, &again) != nil || again.DecisionID != first.DecisionID {
		t.Fatalf("re-sent add: %d replayed=%v %s; want decision %d again", code, replayed, raw, first.DecisionID)
	}
	var sum api.Summary
	s.do("GET", "/studies/"+study.ID+"/summary", nil, &sum)
	if sum.Rounds != 1 {
		t.Fatalf("%d rounds after a re-sent add, want 1", sum.Rounds)
	}
	other := trial
	r2 := 0.7
	other.Reward = &r2
	code, _, raw = postKeyed(t, s, path, "add-1", other)
	wantError(t, code, raw, http.StatusUnprocessableEntity, "Idempotency-Key")
	code, _, raw = postKeyed(t, s, "/studies/"+study.ID+"/suggestions", "add-1", api.SuggestRequest{Count: 1})
	wantError(t, code, raw, http.StatusUnprocessableEntity, "Idempotency-Key")

	restarted := newTestServer(t, st, Options{})
	code, replayed, raw = postKeyed(t, restarted, path, "add-1", trial)
	if code != http.StatusCreated || !replayed || json.Unmarshal(raw, &again) != nil || again.DecisionID != first.DecisionID {
		t.Fatalf("re-sent after a restart: %d replayed=%v %s", code, replayed, raw)
	}
	restarted.do("GET", "/studies/"+study.ID+"/summary", nil, &sum)
	if sum.Rounds != 1 {
		t.Fatalf("%d rounds after a restart and a re-sent add, want 1", sum.Rounds)
	}
}

// A past evaluation that failed is recorded as a decision told failed,
// with its reason; values with it, or a failure enqueued, are refused.
func TestAddPastFailure(t *testing.T) {
	s := newTestServer(t, store.NewMemory(), Options{})
	spec := toySpec("past-failure")
	spec.Algorithm = "config"
	study := s.create(spec)
	path := "/studies/" + study.ID + "/trials"
	if code, raw := s.do("POST", path, api.TrialRequest{X: []float64{0.9, 0.9}, Failed: true, Reason: "OOM"}, nil); code != http.StatusCreated {
		t.Fatalf("past failure: %d %s", code, raw)
	}
	var sum api.Summary
	s.do("GET", "/studies/"+study.ID+"/summary", nil, &sum)
	if sum.Rounds != 1 || sum.Failed != 1 || sum.Reasons["OOM"] != 1 || sum.Pending != 0 {
		t.Fatalf("summary %+v: want 1 round, failed with OOM", sum)
	}
	r := 1.0
	code, raw := s.do("POST", path, api.TrialRequest{X: []float64{0.5, 0.5}, Failed: true, Reward: &r}, nil)
	wantError(t, code, raw, http.StatusBadRequest, "failed")
	code, raw = s.do("POST", path, api.TrialRequest{X: []float64{0.5, 0.5}, Reward: &r, Costs: []float64{0}, Reason: "OOM"}, nil)
	wantError(t, code, raw, http.StatusBadRequest, "reason")
	code, raw = s.do("POST", "/studies/"+study.ID+"/enqueue", api.TrialRequest{X: []float64{0.5, 0.5}, Failed: true}, nil)
	wantError(t, code, raw, http.StatusBadRequest, "failed")
	s.ask(study.ID, 1) // the agent goes on from a past failure
}
