package service

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"strings"
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

// TestAskStopsWhenClientGoes: a count:100 ckb-ts ask on 1,448 points,
// dropped by its client once the server has made its first decision, stops
// before deciding all it was asked (it checks before each decision whether
// its client is still there). Its decisions are not committed: the log holds
// none, and the next ask makes the decision an uninterrupted server makes
// first. The time limit per ask stops an ask the same way, with a 422: with
// a limit of 1 ns, right after its first decision. Behaviour, not wall time:
// how long a decision takes depends on the machine and its load.
func TestAskStopsWhenClientGoes(t *testing.T) {
	mem := store.NewMemory()
	srv := New(mem, Options{})
	defer srv.Close()
	s := startServer(t, srv, mem)
	st := s.create(bigTS("cancel"))
	decided := func(srv *Server) uint64 {
		h := srv.metrics.decide
		h.mu.Lock()
		defer h.mu.Unlock()
		return h.n
	}
	// waitFor polls cond; the bound only keeps a broken server from hanging
	// the test, it is no claim about speed.
	waitFor := func(what string, cond func() bool) {
		t.Helper()
		for begin := time.Now(); !cond(); time.Sleep(time.Millisecond) {
			if time.Since(begin) > 2*time.Minute {
				t.Fatalf("gave up waiting for %s", what)
			}
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "POST", s.url+"/studies/"+st.ID+"/suggestions", bytes.NewReader([]byte(`{"count":100}`)))
	req.Header.Set("Content-Type", "application/json")
	answered := make(chan error, 1)
	go func() {
		resp, err := http.DefaultClient.Do(req)
		if err == nil {
			resp.Body.Close()
		}
		answered <- err
	}()
	waitFor("the ask's first decision", func() bool { return decided(srv) >= 1 })
	atCancel := decided(srv)
	cancel()
	if err := <-answered; !errors.Is(err, context.Canceled) {
		t.Fatalf("the dropped ask: %v, want the client's cancellation", err)
	}
	waitFor("the server to see the client go", func() bool {
		return metricValue(t, s.url, `cbandit_refused_total{reason="client_gone"}`) == 1
	})
	n := decided(srv)
	t.Logf("client gone after %d decisions; the ask stopped after %d of 100", atCancel, n)
	if n < atCancel || n >= 100 {
		t.Fatalf("%d decisions made before stopping (%d when the client went): want fewer than the 100 asked", n, atCancel)
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

	// The time limit per ask: a 422 naming count after the first decision
	// (the limit is checked before each decision after the first), nothing
	// committed.
	limMem := store.NewMemory()
	limSrv := New(limMem, Options{MaxAskTime: time.Nanosecond})
	defer limSrv.Close()
	lim := startServer(t, limSrv, limMem)
	lst := lim.create(bigTS("limited"))
	code, raw := lim.do("POST", "/studies/"+lst.ID+"/suggestions", api.SuggestRequest{Count: 100}, nil)
	wantError(t, code, raw, 422, "count")
	if n := decided(limSrv); n != 1 || !strings.Contains(string(raw), "had made 1 decision(s)") {
		t.Fatalf("the limited ask made %d decisions (%s): want 1, then the limit", n, raw)
	}
	if sum := lim.do2(t, "GET", "/studies/"+lst.ID+"/summary"); sum.Rounds != 0 {
		t.Fatalf("summary after the limited ask: %+v", sum)
	}
	if sg := lim.ask(lst.ID, 1); !equalVec(sg[0].X, want[0].X) {
		t.Fatalf("after the limited ask: %v, want %v", sg[0].X, want[0].X)
	}
}
