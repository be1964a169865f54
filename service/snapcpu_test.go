package service

import (
	"runtime"
	"testing"

	"github.com/cbandit/cbandit/service/api"
	"github.com/cbandit/cbandit/store"
)

// TestSnapshotCPUCountsSnapshots: a snapshot at every event adds its
// encoding's CPU time to SnapshotCPU, which stays put while no snapshot
// or measurement is due (no event since the last one).
func TestSnapshotCPUCountsSnapshots(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the thread's CPU time is Linux's (RUSAGE_THREAD)")
	}
	st := store.NewMemory()
	srv := New(st, Options{SnapshotEvery: 1, SnapshotCost: -1})
	ts := startServer(t, srv, st)
	if got := srv.SnapshotCPU(); got != 0 {
		t.Fatalf("SnapshotCPU = %v before any study", got)
	}
	// A thread's CPU time may be counted in scheduler ticks (4 ms at 250
	// Hz): rounds until some is counted, at most 200 (400 snapshots).
	s := ts.create(toySpec("snapcpu"))
	events := 0
	for events < 400 && srv.SnapshotCPU() == 0 {
		for range 8 {
			for _, sg := range ts.ask(s.ID, 1) {
				ts.tell(s.ID, api.Observation{DecisionID: sg.DecisionID, Reward: f64(toyF(sg.X)), Costs: []float64{toyG(sg.X)}})
			}
			events += 2
		}
	}
	srv.Close() // the queued snapshots written
	got := srv.SnapshotCPU()
	if got <= 0 {
		t.Fatalf("SnapshotCPU = %v after %d events with a snapshot at each", got, events)
	}
	if again := srv.SnapshotCPU(); again != got {
		t.Errorf("SnapshotCPU moved from %v to %v without an event", got, again)
	}
}
