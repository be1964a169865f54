package service

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/cbandit/cbandit/service/api"
	"github.com/cbandit/cbandit/store"
)

// bigTS is a ckb-ts study over 1,448 points of the plane with one
// constraint, the largest finite study (MaxModelEntries): each decision
// draws a joint Thompson sample over every point.
func bigTS(name string) api.StudySpec {
	pts := make([][]float64, 1448)
	for i := range pts {
		pts[i] = []float64{float64(i%38) / 37, float64(i/38) / 38}
	}
	return api.StudySpec{Name: name, Space: api.Space{Type: api.SpacePoints, Points: pts}, Objective: api.Objective{Name: "y"},
		Constraints: []api.Constraint{{Name: "c", Threshold: 0.5}}, Algorithm: "ckb-ts", Seed: 3, Horizon: 1000}
}

// TestAskStopsWhenClientGoes (issue 26, 5): a count:100 ckb-ts ask on
// 1,448 points, dropped by its client after 1 s, stops within 1 s (it stops
// before its next decision). Its decisions are not committed: the log holds
// none, and the next ask makes the decision an uninterrupted server makes
// first. The time limit per ask stops an ask the same way, with a 422.
func TestAskStopsWhenClientGoes(t *testing.T) {
	if raceEnabled {
		t.Skip("a timing bound: not under the race detector (the plain go test run checks it)")
	}
	mem := store.NewMemory()
	srv := New(mem, Options{})
	defer srv.Close()
	s := startServer(t, srv, mem)
	st := s.create(bigTS("cancel"))
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "POST", s.url+"/studies/"+st.ID+"/suggestions", bytes.NewReader([]byte(`{"count":100}`)))
	req.Header.Set("Content-Type", "application/json")
	start := time.Now()
	_, err := http.DefaultClient.Do(req)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("the ask answered within 1 s (%v): the test needs a longer ask", err)
	}
	gone := time.Now()
	for metricValue(t, s.url, `cbandit_refused_total{reason="client_gone"}`) == 0 {
		if time.Since(gone) > 10*time.Second {
			t.Fatal("the ask did not stop within 10 s of its client's going")
		}
		time.Sleep(10 * time.Millisecond)
	}
	stopped := time.Since(gone)
	decided := srv.metrics.decide
	decided.mu.Lock()
	n := decided.n
	decided.mu.Unlock()
	t.Logf("client gone %v after sending; the ask stopped %v later, after %d decisions", gone.Sub(start).Round(time.Millisecond), stopped.Round(time.Millisecond), n)
	if stopped > time.Second {
		t.Errorf("the ask stopped %v after its client went, want ≤ 1 s", stopped)
	}
	if n == 0 || n >= 100 {
		t.Fatalf("%d decisions made before stopping: want some, not all", n)
	}
	// Not committed.
	if evs, _ := mem.Events(context.Background(), st.ID, 0); len(evs) != 0 {
		t.Fatalf("the log holds %d events after the dropped ask, want 0", len(evs))
	}
	if sum := s.do2(t, "GET", "/studies/"+st.ID+"/summary"); sum.Rounds != 0 {
		t.Fatalf("summary after the dropped ask: %+v", sum)
	}
	// The next ask is the first decision of an uninterrupted server.
	next := s.ask(st.ID, 1)
	ref := newTestServer(t, store.NewMemory(), Options{})
	want := ref.ask(ref.create(bigTS("reference")).ID, 1)
	if next[0].DecisionID != 1 || !equalVec(next[0].X, want[0].X) {
		t.Fatalf("after the dropped ask: decision %d at %v, an uninterrupted server's first %v", next[0].DecisionID, next[0].X, want[0].X)
	}

	// The time limit per ask: a 422 naming count, nothing committed.
	lim := newTestServer(t, store.NewMemory(), Options{MaxAskTime: 300 * time.Millisecond})
	lst := lim.create(bigTS("limited"))
	t0 := time.Now()
	code, raw := lim.do("POST", "/studies/"+lst.ID+"/suggestions", api.SuggestRequest{Count: 100}, nil)
	took := time.Since(t0)
	wantError(t, code, raw, 422, "count")
	t.Logf("limited ask answered in %v: %s", took.Round(time.Millisecond), raw)
	if took > 2*time.Second {
		t.Errorf("the limited ask took %v", took)
	}
	if sum := lim.do2(t, "GET", "/studies/"+lst.ID+"/summary"); sum.Rounds != 0 {
		t.Fatalf("summary after the limited ask: %+v", sum)
	}
	if sg := lim.ask(lst.ID, 1); !equalVec(sg[0].X, want[0].X) {
		t.Fatalf("after the limited ask: %v, want %v", sg[0].X, want[0].X)
	}
}
