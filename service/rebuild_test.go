package service

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/cbandit/cbandit/client"
	"github.com/cbandit/cbandit/store"
)

// buildVersion builds cmd/cbandit with main.version set: the same source,
// another executable.
func buildVersion(t *testing.T, v string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "cbandit-"+v)
	out, err := exec.Command("go", "build", "-ldflags", "-X main.version="+v, "-o", path, "../cmd/cbandit").CombinedOutput()
	if err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return path
}

// TestRestartAfterRebuild: an open-ended rpol-ucb study on a native box has
// 4,000 rounds — played by this test's own build (the test binary), which
// writes the log and its latest snapshot, taken 40 rounds before the end, to
// a SQLite file. A `cbandit serve` built from the same source with a version
// string of its own (another executable) restores the study from that
// snapshot for its first ask — one restore, no snapshot rejected, no full
// replay: only the 80 events after the snapshot run through the agent, not
// the 8,000 of the log — and its decision is the one the uninterrupted agent
// makes. (A snapshot whose state has another shape is replayed in full:
// TestSnapshotMismatchIgnored.) The counters, not the wall time, show the
// restore skipped the replay: time depends on the machine and its load.
func TestRestartAfterRebuild(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a server and plays 4,000 rounds")
	}
	if raceEnabled {
		t.Skip("plays 4,000 rounds: too slow under the race detector (the plain go test run checks it)")
	}
	rounds := 4000
	if v := os.Getenv("CBANDIT_REBUILD_ROUNDS"); v != "" {
		fmt.Sscan(v, &rounds)
	}
	built := make(chan string, 1)
	go func() { built <- buildVersion(t, "test-b") }()
	ctx := context.Background()
	db := filepath.Join(t.TempDir(), "rebuild.db")
	st, err := store.OpenSQLite(ctx, db+"?sync=normal")
	if err != nil {
		t.Fatal(err)
	}
	spec := toySpec("rebuild")
	spec.Algorithm, spec.Space.Native, spec.Horizon = "rpol-ucb", true, 0
	spec, _, e := decodeStudy(mustJSON(t, spec))
	if e != nil {
		t.Fatal(e)
	}
	rec := store.Study{ID: "s-rebuild", Name: spec.Name, Spec: mustJSON(t, spec), Created: time.Now().UTC().Truncate(time.Microsecond)}
	if err := st.Create(ctx, rec); err != nil {
		t.Fatal(err)
	}
	l, err := newLive(rec, newMetrics())
	if err != nil {
		t.Fatal(err)
	}
	// The rounds, as the server plays them: each event appended to the log
	// and applied to the live study.
	start := time.Now()
	var pending []store.Event
	flush := func() {
		if _, err := st.Update(ctx, rec.ID, l.n-int64(len(pending)), func([]store.Event) ([]store.Event, error) { return pending, nil }); err != nil {
			t.Fatal(err)
		}
		pending = nil
	}
	appendEv := func(kind string, v any) {
		ev := store.Event{Seq: l.n + 1, Kind: kind, Data: mustJSON(t, v), Time: time.Now().UTC()}
		l.appended(ev)
		pending = append(pending, ev)
	}
	var snapshot []byte
	for i := 1; i <= rounds; i++ {
		a, err := l.decide(time.Now(), roundInput{})
		if err != nil {
			t.Fatal(err)
		}
		appendEv(store.KindAsk, a)
		tell := tellEvent{ID: a.ID, Reward: f64(toyF(a.X)), Costs: []float64{toyG(a.X)}}
		if err := l.observe(tell, false); err != nil {
			t.Fatal(err)
		}
		appendEv(store.KindTell, tell)
		if i == rounds-40 {
			if snapshot, err = l.takeSnapshot("the test binary"); err != nil {
				t.Fatal(err)
			}
			flush()
			if err := st.PutSnapshot(ctx, rec.ID, store.Snapshot{Seq: l.n, Data: snapshot}); err != nil {
				t.Fatal(err)
			}
		}
	}
	flush()
	st.Close()
	want, err := l.decide(time.Now(), roundInput{}) // the uninterrupted agent's next decision
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d rounds played in %v; snapshot of %.1f MB at round %d", rounds, time.Since(start).Round(time.Millisecond), float64(len(snapshot))/1e6, rounds-40)

	binB := <-built
	restart := time.Now()
	p := startServe(t, binB, "--db", "sqlite:"+db)
	sg, err := client.New(p.url).Suggest(ctx, rec.ID, 1)
	took := time.Since(restart)
	if err != nil {
		t.Fatal(err)
	}
	restored, rejected := metricValue(t, p.url, "cbandit_snapshot_restores_total"), metricValue(t, p.url, "cbandit_snapshot_rejected_total")
	replays, replayed := metricValue(t, p.url, "cbandit_replays_total"), metricValue(t, p.url, "cbandit_replayed_events_total")
	t.Logf("cbandit serve version test-b: first ask answered %v after its start; restores from a snapshot %d, snapshots rejected %d, full replays %d, events replayed %d",
		took.Round(time.Millisecond), restored, rejected, replays, replayed)
	if restored != 1 || rejected != 0 || replays != 0 {
		t.Fatalf("restored from a snapshot %d times, rejected %d, replayed in full %d: want 1, 0 and 0", restored, rejected, replays)
	}
	if replayed != 80 {
		t.Fatalf("%d events replayed through the agent, want the 80 after the snapshot", replayed)
	}
	if sg[0].DecisionID != want.ID || !equalVec(sg[0].X, want.X) {
		t.Fatalf("decision %d: the rebuilt server chose %v, the uninterrupted agent %v", sg[0].DecisionID, sg[0].X, want.X)
	}
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
