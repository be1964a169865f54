package service

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/cbandit/cbandit/service/api"
	"github.com/cbandit/cbandit/store"
)

// A decision's times read the same from the replica that wrote them and from
// one that replays the log, on every backend, in whole microseconds (what
// PostgreSQL's timestamptz holds): asked, told, and measured (POST trials).
func TestDecisionTimesSameEverywhere(t *testing.T) {
	ctx := context.Background()
	sq, err := store.OpenSQLite(ctx, filepath.Join(t.TempDir(), "times.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer sq.Close()
	mem := store.NewMemory()
	for _, b := range []struct {
		name string
		// the writer's store and another replica's
		stores func(t *testing.T) (store.Store, store.Store)
	}{
		{"memory", func(*testing.T) (store.Store, store.Store) { return mem, mem }},
		{"sqlite", func(*testing.T) (store.Store, store.Store) { return sq, sq }},
		{"postgres", func(t *testing.T) (store.Store, store.Store) {
			dsn := postgresDSN(t)
			return openPG(t, dsn), openPG(t, dsn)
		}},
	} {
		t.Run(b.name, func(t *testing.T) {
			ws, rs := b.stores(t)
			w := newTestServer(t, ws, Options{})
			st := w.create(toySpec(fmt.Sprintf("times-%d", time.Now().UnixNano())))
			sg := w.ask(st.ID, 3)
			w.tell(st.ID, api.Observation{DecisionID: sg[0].DecisionID, Reward: f64(0.5), Costs: []float64{0.1}})
			w.tell(st.ID, api.Observation{DecisionID: sg[1].DecisionID, Reward: f64(0.2)})
			if code, raw := w.do("POST", "/studies/"+st.ID+"/trials", api.TrialRequest{X: []float64{0.3, 0.3}, Reward: f64(0.4), Costs: []float64{0.3}}, nil); code != 201 {
				t.Fatalf("trial: %d %s", code, raw)
			}
			var mine, theirs api.DecisionList
			if code, raw := w.do("GET", "/studies/"+st.ID+"/decisions", nil, &mine); code != 200 {
				t.Fatalf("writer: %d %s", code, raw)
			}
			r := newTestServer(t, rs, Options{}) // another replica: replays the log
			if code, raw := r.do("GET", "/studies/"+st.ID+"/decisions", nil, &theirs); code != 200 {
				t.Fatalf("reader: %d %s", code, raw)
			}
			if len(mine.Decisions) != 4 || len(theirs.Decisions) != 4 {
				t.Fatalf("%d and %d decisions, want 4", len(mine.Decisions), len(theirs.Decisions))
			}
			whole := func(what string, id int64, tm time.Time) {
				if !tm.Equal(tm.Truncate(time.Microsecond)) {
					t.Errorf("decision %d: %s %s is not in whole microseconds (PostgreSQL would read %s)", id, what, tm.Format(time.RFC3339Nano), tm.Truncate(time.Microsecond).Format(time.RFC3339Nano))
				}
			}
			for i, m := range mine.Decisions {
				o := theirs.Decisions[i]
				whole("created", m.DecisionID, m.Created)
				if !m.Created.Equal(o.Created) {
					t.Errorf("decision %d: created %s on the writer, %s on another replica", m.DecisionID, m.Created.Format(time.RFC3339Nano), o.Created.Format(time.RFC3339Nano))
				}
				if (m.Observed == nil) != (o.Observed == nil) {
					t.Fatalf("decision %d: observed %v on the writer, %v on another replica", m.DecisionID, m.Observed, o.Observed)
				}
				if m.Observed != nil {
					whole("observed", m.DecisionID, *m.Observed)
					if !m.Observed.Equal(*o.Observed) {
						t.Errorf("decision %d: observed %s on the writer, %s on another replica", m.DecisionID, m.Observed.Format(time.RFC3339Nano), o.Observed.Format(time.RFC3339Nano))
					}
				}
			}
		})
	}
}
