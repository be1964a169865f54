package service

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/cbandit/cbandit/service/api"
	"github.com/cbandit/cbandit/store"
)

// A NaN or an infinity in a body is refused (JSON has none), and the
// answer says how to report an evaluation that produced no number.
func TestNonFiniteValueSaysHowToReportAFailure(t *testing.T) {
	s := newTestServer(t, store.NewMemory(), Options{})
	spec := toySpec("nan")
	spec.Algorithm = "config"
	st := s.create(spec)
	s.ask(st.ID, 1)
	path := "/studies/" + st.ID + "/observations"
	for _, body := range []string{
		`{"decision_id": 1, "reward": NaN}`,
		`{"decision_id": 1, "reward": Infinity}`,
		`{"decision_id": 1, "reward": -Infinity}`,
		`{"decision_id": 1, "reward": 1, "costs": [nan]}`,
	} {
		code, raw := s.do("POST", path, body, nil)
		wantError(t, code, raw, http.StatusBadRequest, "body")
		if !strings.Contains(string(raw), `\"failed\": true`) || !strings.Contains(string(raw), "NaN") {
			t.Errorf("%s: %s, want the way to report a failure", body, raw)
		}
	}
	// Other syntax errors keep the plain message.
	code, raw := s.do("POST", path, `{"decision_id": 1, "reward": x}`, nil)
	wantError(t, code, raw, http.StatusBadRequest, "body")
	if strings.Contains(string(raw), "failed") {
		t.Errorf("a plain syntax error mentions failures: %s", raw)
	}
}

// An observation without decision_id says it is missing, not "= 0".
func TestMissingDecisionID(t *testing.T) {
	s := newTestServer(t, store.NewMemory(), Options{})
	st := s.create(toySpec("missing"))
	path := "/studies/" + st.ID + "/observations"
	for _, body := range []string{`{"reward": 1}`, `{"decision_id": null, "reward": 1}`} {
		code, raw := s.do("POST", path, body, nil)
		wantError(t, code, raw, http.StatusBadRequest, "decision_id")
		if !strings.Contains(string(raw), "missing") || strings.Contains(string(raw), "= 0") {
			t.Errorf("%s: %s, want \"is missing\"", body, raw)
		}
	}
	code, raw := s.do("POST", path, `{"decision_id": 0, "reward": 1}`, nil)
	wantError(t, code, raw, http.StatusBadRequest, "decision_id")
	if !strings.Contains(string(raw), "= 0") {
		t.Errorf("decision_id 0: %s, want it named", raw)
	}
}

// A second failure report with another reason is a conflict naming both
// reasons; the first reason stands. The same reason again is a duplicate.
func TestFailureWithAnotherReasonConflicts(t *testing.T) {
	s := newTestServer(t, store.NewMemory(), Options{})
	spec := toySpec("reasons")
	spec.Algorithm = "config"
	st := s.create(spec)
	s.ask(st.ID, 1)
	s.tell(st.ID, api.Observation{DecisionID: 1, Failed: true, Reason: "OOM"})
	code, raw := s.do("POST", "/studies/"+st.ID+"/observations", api.Observation{DecisionID: 1, Failed: true, Reason: "timeout"}, nil)
	wantError(t, code, raw, http.StatusConflict, "reason")
	if !strings.Contains(string(raw), "OOM") || !strings.Contains(string(raw), "timeout") {
		t.Fatalf("%s: want both reasons", raw)
	}
	if r := s.tell(st.ID, api.Observation{DecisionID: 1, Failed: true, Reason: "OOM"}); len(r.Duplicate) != 1 {
		t.Fatalf("the same reason again: %+v, want a duplicate", r)
	}
	var list api.DecisionList
	s.do("GET", "/studies/"+st.ID+"/decisions", nil, &list)
	if list.Decisions[0].Reason != "OOM" {
		t.Fatalf("reason %q, want the first, OOM", list.Decisions[0].Reason)
	}
}

// brokenWriter fails every write, as a connection the client closed, and
// counts the headers written.
type brokenWriter struct {
	h       http.Header
	headers int
}

func (b *brokenWriter) Header() http.Header       { return b.h }
func (b *brokenWriter) WriteHeader(int)           { b.headers++ }
func (b *brokenWriter) Write([]byte) (int, error) { return 0, errors.New("broken pipe") }

// An answer whose body could not be written (the client went away) is not
// followed by an error answer: one header only.
func TestBrokenAnswerWritesOneHeader(t *testing.T) {
	srv := New(store.NewMemory(), Options{Token: "t"})
	t.Cleanup(srv.Close)
	h := srv.wrap(func(w http.ResponseWriter, r *http.Request) error {
		return writeJSON(w, http.StatusOK, api.Health{Status: "ok"})
	})
	req := httptest.NewRequest("GET", "/studies", nil)
	req.Header.Set("Authorization", "Bearer t")
	w := &brokenWriter{h: http.Header{}}
	h.ServeHTTP(w, req)
	if w.headers != 1 {
		t.Fatalf("%d headers written, want 1", w.headers)
	}
}
