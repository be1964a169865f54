package service

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/cbandit/cbandit/service/api"
	"github.com/cbandit/cbandit/store"
)

// A log that this build's algorithm does not replay (here a forged fourth
// decision, as a log written by another release would read) leaves the study
// readable and observable, and every request that needs a new decision is
// refused with 409 naming the cause — not a 500, and nothing lost; a
// re-sent ask answers the decisions it was given. The same whether the
// study is restored by replaying its whole log or from a snapshot taken
// before the decision this build does not replay (the snapshot's replay
// diverges, then the whole log's).
func TestStudyReadOnlyWhenTheLogDoesNotReplay(t *testing.T) {
	for _, every := range []int{-1, 2} {
		t.Run(fmt.Sprintf("snapshot-every=%d", every), func(t *testing.T) { studyReadOnly(t, every) })
	}
}

func studyReadOnly(t *testing.T, every int) {
	st := store.NewMemory()
	a := newTestServer(t, st, Options{SnapshotEvery: every, SnapshotCost: -1})
	study := a.create(toySpec("diverged"))
	keyed := func(s *tserver) (int, []byte) { // an ask with an Idempotency-Key
		req, err := http.NewRequest("POST", s.url+"/studies/"+study.ID+"/suggestions", strings.NewReader(`{"count": 3}`))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Idempotency-Key", "first-three")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		raw, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, raw
	}
	code, first := keyed(a)
	var asked api.SuggestResponse
	if code != http.StatusOK || json.Unmarshal(first, &asked) != nil {
		t.Fatalf("ask: %d %s", code, first)
	}
	for _, sg := range asked.Suggestions {
		a.tell(study.ID, api.Observation{DecisionID: sg.DecisionID, Reward: f64(toyF(sg.X)), Costs: []float64{toyG(sg.X)}})
	}
	ctx := context.Background()
	rec, err := st.Get(ctx, study.ID)
	if err != nil {
		t.Fatal(err)
	}
	if sn, err := st.GetSnapshot(ctx, study.ID); every > 0 && (err != nil || sn.Seq < 2) {
		t.Fatalf("no snapshot before the forged decision: %v (seq %d)", err, sn.Seq)
	} else if every < 0 && err == nil {
		t.Fatal("a snapshot with snapshots off")
	}
	ev, err := newEvent(store.KindAsk, askEvent{ID: 4, Round: 4, Arm: 0, X: []float64{-1, -1}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.Update(ctx, study.ID, rec.Len, func([]store.Event) ([]store.Event, error) { return []store.Event{ev}, nil }); err != nil {
		t.Fatal(err)
	}

	b := newTestServer(t, st, Options{SnapshotEvery: every, SnapshotCost: -1})
	var sum api.Summary
	if code, raw := b.do("GET", "/studies/"+study.ID+"/summary", nil, &sum); code != http.StatusOK {
		t.Fatalf("summary: %d %s", code, raw)
	}
	if sum.Rounds != 4 || sum.RewardObserved != 3 || sum.Pending != 1 || sum.Recommendation != nil {
		t.Fatalf("summary of the read-only study: %+v", sum)
	}
	if n := metricValue(t, b.url, "cbandit_snapshot_rejected_total"); every > 0 && n != 1 || every < 0 && n != 0 {
		t.Fatalf("snapshots rejected on restore: %v", n)
	}
	var decs api.DecisionList
	if code, raw := b.do("GET", "/studies/"+study.ID+"/decisions", nil, &decs); code != http.StatusOK || len(decs.Decisions) != 4 {
		t.Fatalf("decisions: %d %s", code, raw)
	}
	for _, req := range []struct{ path, body string }{
		{"/suggestions", `{"count": 1}`},
		{"/enqueue", `{"x": [0.5, 0.5]}`},
		{"/trials", `{"x": [0.5, 0.5], "reward": 0.1, "costs": [0.2]}`},
	} {
		code, raw := b.do("POST", "/studies/"+study.ID+req.path, req.body, nil)
		wantError(t, code, raw, http.StatusConflict, "algorithm")
		var e api.Error
		if json.Unmarshal(raw, &e); e.Err.Code != "study_read_only" {
			t.Fatalf("%s: %s", req.path, raw)
		}
	}
	// Its horizon can still be raised (the study's definition, not a decision).
	if code, raw := b.do("PATCH", "/studies/"+study.ID, `{"horizon": 300}`, nil); code != http.StatusOK {
		t.Fatalf("raise the horizon: %d %s", code, raw)
	}
	// A re-sent ask answers the decisions it was given.
	if code, again := keyed(b); code != http.StatusOK || !bytes.Equal(again, first) {
		t.Fatalf("the keyed ask re-sent: %d %s, first %s", code, again, first)
	}
	// The pending decision's observation is kept, and read back by a fresh
	// server.
	b.tell(study.ID, api.Observation{DecisionID: 4, Reward: f64(0.25), Costs: []float64{0.1}})
	c := newTestServer(t, st, Options{SnapshotEvery: every, SnapshotCost: -1})
	if code, raw := c.do("GET", "/studies/"+study.ID+"/summary", nil, &sum); code != http.StatusOK {
		t.Fatalf("summary: %d %s", code, raw)
	}
	if sum.Rounds != 4 || sum.RewardObserved != 4 || sum.Pending != 0 {
		t.Fatalf("summary after the observation: %+v", sum)
	}
	code, raw := c.do("POST", "/studies/"+study.ID+"/suggestions", `{"count": 1}`, nil)
	wantError(t, code, raw, http.StatusConflict, "algorithm")
}
