package service

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/cbandit/cbandit/service/api"
	"github.com/cbandit/cbandit/store"
)

func postgresDSN(t *testing.T) string {
	dsn := os.Getenv("CBANDIT_TEST_POSTGRES")
	if dsn == "" {
		t.Skip("CBANDIT_TEST_POSTGRES is not set: no PostgreSQL server to test replicas against (.ci/postgres.sh starts one)")
	}
	return dsn
}

func openPG(t *testing.T, dsn string) store.Store {
	st, err := store.OpenPostgres(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// TestPostgresReplicasSequential: rounds whose ask and tell go to different
// replicas make exactly the decisions of a single server.
func TestPostgresReplicasSequential(t *testing.T) {
	dsn := postgresDSN(t)
	a := newTestServer(t, openPG(t, dsn), Options{})
	b := newTestServer(t, openPG(t, dsn), Options{})
	ref := newTestServer(t, store.NewMemory(), Options{})
	spec := toySpec(fmt.Sprintf("pg-seq-%d", time.Now().UnixNano()))
	st := a.create(spec)
	rs := ref.create(spec)
	reps := []*tserver{a, b}
	for i := 0; i < 30; i++ {
		sg := reps[i%2].ask(st.ID, 1)[0]
		want := ref.ask(rs.ID, 1)[0]
		if !equalVec(sg.X, want.X) || sg.DecisionID != want.DecisionID {
			t.Fatalf("round %d: replicas chose %v, a single server %v", i+1, sg.X, want.X)
		}
		o := api.Observation{DecisionID: sg.DecisionID, Reward: f64(toyF(sg.X)), Costs: []float64{toyG(sg.X)}}
		reps[(i+1)%2].tell(st.ID, o)
		ref.tell(rs.ID, o)
		if i%3 == 0 { // an idempotent re-send through the other replica
			if r := reps[i%2].tell(st.ID, o); len(r.Duplicate) != 2 {
				t.Fatalf("re-send: %+v", r)
			}
		}
	}
	var sa, sb api.Summary
	a.do("GET", "/studies/"+st.ID+"/summary", nil, &sa)
	b.do("GET", "/studies/"+st.ID+"/summary", nil, &sb)
	if sa.Rounds != 30 || sa.RewardSum != sb.RewardSum || sa.RewardObserved != 30 || sb.CostsObserved != 30 {
		t.Fatalf("summaries differ: %+v / %+v", sa, sb)
	}
	// Deleted through one replica: gone on the other.
	if code, _ := b.do("DELETE", "/studies/"+st.ID, nil, nil); code != 204 {
		t.Fatal("delete")
	}
	code, raw := a.do("POST", "/studies/"+st.ID+"/suggestions", nil, nil)
	wantError(t, code, raw, 404, "id")
}

// TestPostgresReplicasConcurrent: three replicas, many clients, one study:
// the log stays consistent (a fresh server replays it without divergence)
// and no acknowledged observation is missing.
func TestPostgresReplicasConcurrent(t *testing.T) {
	dsn := postgresDSN(t)
	reps := []*tserver{
		newTestServer(t, openPG(t, dsn), Options{}),
		newTestServer(t, openPG(t, dsn), Options{}),
		newTestServer(t, openPG(t, dsn), Options{CacheSize: 1}),
	}
	spec := toySpec(fmt.Sprintf("pg-conc-%d", time.Now().UnixNano()))
	st := reps[0].create(spec)
	var wg sync.WaitGroup
	const workers, rounds = 6, 10
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for k := 0; k < rounds; k++ {
				sg := reps[(w+k)%3].ask(st.ID, 1)[0]
				reps[(w+k+1)%3].tell(st.ID, api.Observation{DecisionID: sg.DecisionID, Reward: f64(toyF(sg.X)), Costs: []float64{toyG(sg.X)}})
			}
		}(w)
	}
	wg.Wait()
	// A fresh replica rebuilds the study from the log (replay checks every
	// decision against the logged one).
	fresh := newTestServer(t, openPG(t, dsn), Options{})
	var sum api.Summary
	if code, raw := fresh.do("GET", "/studies/"+st.ID+"/summary", nil, &sum); code != 200 {
		t.Fatalf("fresh replica: %d %s", code, raw)
	}
	if sum.Rounds != workers*rounds || sum.Pending != 0 || sum.RewardObserved != workers*rounds {
		t.Fatalf("summary %+v", sum)
	}
	// And a single server fed the log in order makes the same decisions.
	pg := openPG(t, dsn)
	evs, err := pg.Events(context.Background(), st.ID, 0)
	if err != nil {
		t.Fatal(err)
	}
	ref := newTestServer(t, store.NewMemory(), Options{})
	rs := ref.create(spec)
	for _, ev := range evs {
		if ev.Kind == store.KindAsk {
			var a askEvent
			json.Unmarshal(ev.Data, &a)
			if sg := ref.ask(rs.ID, 1)[0]; !equalVec(sg.X, a.X) {
				t.Fatalf("decision %d: single server %v, replicas %v", a.ID, sg.X, a.X)
			}
		} else {
			var o tellEvent
			json.Unmarshal(ev.Data, &o)
			ref.tell(rs.ID, api.Observation{DecisionID: o.ID, Reward: o.Reward, Costs: o.Costs})
		}
	}
	reps[0].do("DELETE", "/studies/"+st.ID, nil, nil)
}

// TestPostgresSnapshots: replicas that take turns snapshot the study; a
// fresh replica restores it from the latest snapshot plus the log after it
// and decides as a single server without snapshots; an idempotent ask
// retried on the other replica returns the same decision.
func TestPostgresSnapshots(t *testing.T) {
	dsn := postgresDSN(t)
	pa, pb := openPG(t, dsn), openPG(t, dsn)
	srvA, srvB := New(pa, Options{SnapshotEvery: 5}), New(pb, Options{SnapshotEvery: 5})
	a, b := startServer(t, srvA, pa), startServer(t, srvB, pb)
	ref := newTestServer(t, store.NewMemory(), Options{SnapshotEvery: -1})
	spec := toySpec(fmt.Sprintf("pg-snap-%d", time.Now().UnixNano()))
	st := a.create(spec)
	rs := ref.create(spec)
	var got []api.Suggestion
	for i := 0; i < 12; i++ {
		got = append(got, play([]*tserver{a, b}[i%2], st.ID, 1)...)
	}
	srvA.Close()
	srvB.Close()
	pc := openPG(t, dsn)
	sn, err := pc.GetSnapshot(context.Background(), st.ID)
	if err != nil || sn.Seq < 20 {
		t.Fatalf("snapshot at %d (%v), want ≥ 20", sn.Seq, err)
	}
	srvC := New(pc, Options{})
	c := startServer(t, srvC, pc)
	got = append(got, play(c, st.ID, 5)...)
	if srvC.metrics.snapshotRestores.Load() != 1 {
		t.Fatalf("fresh replica: %d restores from a snapshot (rejected %d)", srvC.metrics.snapshotRestores.Load(), srvC.metrics.snapshotRejected.Load())
	}
	want := play(ref, rs.ID, 17)
	for i := range want {
		if !equalVec(got[i].X, want[i].X) {
			t.Fatalf("decision %d: replicas %v, a single server %v", i+1, got[i].X, want[i].X)
		}
	}
	var r1, r2 api.SuggestResponse
	c.doKey("POST", "/studies/"+st.ID+"/suggestions", "pg-key", api.SuggestRequest{}, &r1)
	d := newTestServer(t, openPG(t, dsn), Options{})
	if code, _, raw := d.doKey("POST", "/studies/"+st.ID+"/suggestions", "pg-key", api.SuggestRequest{}, &r2); code != 200 ||
		r1.Suggestions[0].DecisionID != r2.Suggestions[0].DecisionID {
		t.Fatalf("retry on another replica: %d %s, first %+v", code, raw, r1)
	}
	c.do("DELETE", "/studies/"+st.ID, nil, nil)
}

// TestPostgresPagesLimitsAndBuilds: on PostgreSQL, a study is
// restored from a snapshot another build took (streaming the log), the
// decision limit holds across replicas, and GET /studies pages.
func TestPostgresPagesLimitsAndBuilds(t *testing.T) {
	dsn := postgresDSN(t)
	stA := openPG(t, dsn)
	srvA := New(stA, Options{SnapshotEvery: 5, MaxDecisions: 12, Version: "v1"})
	a := startServer(t, srvA, stA)
	prefix := fmt.Sprintf("pg-i26-%d", time.Now().UnixNano())
	spec := toySpec(prefix + "-study")
	st := a.create(spec)
	first := play(a, st.ID, 8)
	srvA.Close()
	old := buildID
	buildID = func() string { return "another executable" }
	defer func() { buildID = old }()
	stB := openPG(t, dsn)
	srvB := New(stB, Options{MaxDecisions: 12, Version: "v2"})
	b := startServer(t, srvB, stB)
	second := play(b, st.ID, 4)
	if m := srvB.metrics; m.snapshotRestores.Load() != 1 || m.replays.Load() != 0 {
		t.Fatalf("restores from snapshot %d, replays %d: want 1, 0", m.snapshotRestores.Load(), m.replays.Load())
	}
	ref := newTestServer(t, store.NewMemory(), Options{SnapshotEvery: -1})
	want := play(ref, ref.create(spec).ID, 12)
	for i, sg := range append(first, second...) {
		if !equalVec(sg.X, want[i].X) {
			t.Fatalf("decision %d: %v, want %v", i+1, sg.X, want[i].X)
		}
	}
	code, raw := a.do("POST", "/studies/"+st.ID+"/suggestions", nil, nil)
	wantError(t, code, raw, 409, "count")
	// Pages: this test's studies among whatever the database holds.
	for i := 0; i < 4; i++ {
		a.create(toySpec(fmt.Sprintf("%s-%d", prefix, i)))
	}
	seen, after := 0, ""
	for pages := 0; pages < 10000; pages++ {
		var l api.StudyList
		path := "/studies?limit=2"
		if after != "" {
			path += "&after=" + after
		}
		if code, raw := b.do("GET", path, nil, &l); code != 200 {
			t.Fatalf("%s: %d %s", path, code, raw)
		}
		for _, s := range l.Studies {
			if len(s.Spec.Name) > len(prefix) && s.Spec.Name[:len(prefix)] == prefix {
				seen++
			}
		}
		if after = l.Next; after == "" {
			break
		}
	}
	if seen != 5 {
		t.Fatalf("pages listed %d of this test's 5 studies", seen)
	}
}
