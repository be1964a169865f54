package storetest

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cbandit/cbandit/store"
)

// Run checks a backend against the Store contract, one subtest per part of
// it. open returns the store to check, a fresh one or one shared by the
// subtests (every study a subtest makes has a new ID and name, so a
// database that other runs use serves); open may call t.Skip when the
// backend is unavailable, and should close what it opens in t.Cleanup.
func Run(t *testing.T, open func(t *testing.T) store.Store) {
	for _, c := range []struct {
		name string
		fn   func(t *testing.T, s store.Store)
	}{
		{"Contract", contract},
		{"ConcurrentAppends", concurrentAppends},
		{"Snapshots", snapshots},
		{"SetSpec", setSpec},
		{"ScanAndPages", scanAndPages},
		{"AppendTimes", appendTimes},
	} {
		t.Run(c.name, func(t *testing.T) { c.fn(t, open(t)) })
	}
}

var idSeq atomic.Int64

func init() { idSeq.Store(time.Now().UnixNano()) }

// newID is an ID no earlier run used (for a database that outlives runs).
func newID(prefix string) string {
	return fmt.Sprintf("%s-%d", prefix, idSeq.Add(1))
}

// contract: create, duplicate names, Update with and without newer events,
// an error appending nothing, ErrAhead, Events, Get's counters, List,
// Delete and what a deleted study answers.
func contract(t *testing.T, s store.Store) {
	ctx := context.Background()
	id := newID("a")
	st := store.Study{ID: id, Name: "name-" + id, Spec: []byte(`{"x":1}`), Created: time.Now().UTC()}
	if err := s.Create(ctx, st); err != nil {
		t.Fatal(err)
	}
	if err := s.Create(ctx, store.Study{ID: newID("b"), Name: st.Name, Spec: []byte(`{}`), Created: time.Now()}); !errors.Is(err, store.ErrDuplicate) {
		t.Fatalf("duplicate name: got %v, want store.ErrDuplicate", err)
	}
	if _, err := s.Get(ctx, "nope"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("get unknown: %v", err)
	}
	n, err := s.Update(ctx, id, 0, func(newer []store.Event) ([]store.Event, error) {
		if len(newer) != 0 {
			t.Errorf("newer = %d events, want 0", len(newer))
		}
		return []store.Event{{Kind: store.KindAsk, Data: []byte("1")}, {Kind: store.KindTell, Data: []byte("2")}}, nil
	})
	if err != nil || n != 2 {
		t.Fatalf("update: n=%d err=%v", n, err)
	}
	// A caller that knows 1 event gets the second one.
	n, err = s.Update(ctx, id, 1, func(newer []store.Event) ([]store.Event, error) {
		if len(newer) != 1 || newer[0].Seq != 2 || string(newer[0].Data) != "2" {
			t.Errorf("newer = %+v, want event 2", newer)
		}
		return []store.Event{{Kind: store.KindAsk, Data: []byte("3")}}, nil
	})
	if err != nil || n != 3 {
		t.Fatalf("update: n=%d err=%v", n, err)
	}
	// An error appends nothing.
	n, err = s.Update(ctx, id, 3, func([]store.Event) ([]store.Event, error) { return nil, errors.New("no") })
	if err == nil || n != 3 {
		t.Fatalf("failing update: n=%d err=%v", n, err)
	}
	if _, err := s.Update(ctx, id, 9, func([]store.Event) ([]store.Event, error) { return nil, nil }); !errors.Is(err, store.ErrAhead) {
		t.Fatalf("ahead: %v", err)
	}
	evs, err := s.Events(ctx, id, 0)
	if err != nil || len(evs) != 3 {
		t.Fatalf("events: %v %v", evs, err)
	}
	for i, e := range evs {
		if e.Seq != int64(i+1) || string(e.Data) != fmt.Sprint(i+1) {
			t.Errorf("event %d = %+v", i, e)
		}
	}
	got, err := s.Get(ctx, id)
	if err != nil || got.Len != 3 || got.Asks != 2 || string(got.Spec) != `{"x":1}` {
		t.Fatalf("get: %+v %v", got, err)
	}
	list, err := s.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, l := range list {
		found = found || l.ID == id
	}
	if !found {
		t.Fatalf("list misses %s", id)
	}
	if err := s.Delete(ctx, id); err != nil {
		t.Fatal(err)
	}
	if err := s.Delete(ctx, id); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("second delete: %v", err)
	}
	if _, err := s.Events(ctx, id, 0); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("events of deleted: %v", err)
	}
	if _, err := s.Update(ctx, id, 0, func([]store.Event) ([]store.Event, error) { return nil, nil }); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("update of deleted: %v", err)
	}
}

// concurrentAppends: many goroutines append to several studies; the logs
// come out complete and gap-free.
func concurrentAppends(t *testing.T, s store.Store) {
	ctx := context.Background()
	const studies, workers, per = 4, 8, 25
	ids := make([]string, studies)
	for i := range ids {
		ids[i] = newID("c")
		if err := s.Create(ctx, store.Study{ID: ids[i], Name: ids[i], Spec: []byte("{}"), Created: time.Now()}); err != nil {
			t.Fatal(err)
		}
	}
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for k := 0; k < per; k++ {
				id := ids[(w+k)%studies]
				// Callers that know nothing: every update hands them the whole log.
				_, err := s.Update(ctx, id, 0, func(newer []store.Event) ([]store.Event, error) {
					return []store.Event{{Kind: store.KindTell, Data: []byte(fmt.Sprint(len(newer) + 1))}}, nil
				})
				if err != nil {
					t.Error(err)
					return
				}
			}
		}(w)
	}
	wg.Wait()
	total := 0
	for _, id := range ids {
		evs, err := s.Events(ctx, id, 0)
		if err != nil {
			t.Fatal(err)
		}
		for i, e := range evs {
			// Data holds the length the writer saw + 1 = its own Seq.
			if e.Seq != int64(i+1) || string(e.Data) != fmt.Sprint(i+1) {
				t.Fatalf("study %s event %d = seq %d data %s: lost update", id, i, e.Seq, e.Data)
			}
		}
		total += len(evs)
	}
	if total != workers*per {
		t.Fatalf("total events %d, want %d", total, workers*per)
	}
}

// snapshots: the latest snapshot by Seq is kept, an older one does not
// replace it, and a deleted study has none.
func snapshots(t *testing.T, s store.Store) {
	ctx := context.Background()
	id := newID("snap")
	if err := s.Create(ctx, store.Study{ID: id, Name: "name-" + id, Spec: []byte(`{}`), Created: time.Now().UTC()}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.GetSnapshot(ctx, id); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("no snapshot yet: %v", err)
	}
	if err := s.PutSnapshot(ctx, id, store.Snapshot{Seq: 5, Data: []byte("five")}); err != nil {
		t.Fatal(err)
	}
	// An older snapshot does not replace a newer one.
	if err := s.PutSnapshot(ctx, id, store.Snapshot{Seq: 3, Data: []byte("three")}); err != nil {
		t.Fatal(err)
	}
	sn, err := s.GetSnapshot(ctx, id)
	if err != nil || sn.Seq != 5 || string(sn.Data) != "five" {
		t.Fatalf("snapshot %d %q %v, want 5 five", sn.Seq, sn.Data, err)
	}
	if err := s.PutSnapshot(ctx, id, store.Snapshot{Seq: 9, Data: []byte("nine")}); err != nil {
		t.Fatal(err)
	}
	if sn, _ := s.GetSnapshot(ctx, id); sn.Seq != 9 || string(sn.Data) != "nine" {
		t.Fatalf("snapshot %d %q, want 9 nine", sn.Seq, sn.Data)
	}
	if err := s.Delete(ctx, id); err != nil {
		t.Fatal(err)
	}
	if _, err := s.GetSnapshot(ctx, id); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("snapshot of a deleted study: %v", err)
	}
	if err := s.PutSnapshot(ctx, id, store.Snapshot{Seq: 10, Data: []byte("x")}); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("snapshot of a deleted study saved: %v", err)
	}
}

// setSpec: a definition replaces the one the caller read, not another.
func setSpec(t *testing.T, s store.Store) {
	ctx := context.Background()
	id := newID("spec")
	if err := s.Create(ctx, store.Study{ID: id, Name: "name-" + id, Spec: []byte(`{"h":1}`), Created: time.Now().UTC()}); err != nil {
		t.Fatal(err)
	}
	if err := s.SetSpec(ctx, id, []byte(`{"h":0}`), []byte(`{"h":2}`)); !errors.Is(err, store.ErrConflict) {
		t.Fatalf("stale definition accepted: %v", err)
	}
	if err := s.SetSpec(ctx, id, []byte(`{"h":1}`), []byte(`{"h":2}`)); err != nil {
		t.Fatal(err)
	}
	if st, _ := s.Get(ctx, id); string(st.Spec) != `{"h":2}` {
		t.Fatalf("definition %s", st.Spec)
	}
	if err := s.SetSpec(ctx, "nope-"+id, nil, nil); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("unknown study: %v", err)
	}
}

// scanAndPages: Scan streams the log in order, stops at the length it
// started with and on fn's error; ListPage pages the studies by
// (created, id) and filters by name.
func scanAndPages(t *testing.T, s store.Store) {
	ctx := context.Background()
	base := time.Now().UTC().Truncate(time.Microsecond)
	prefix := newID("p")
	var ids []string
	for i := 0; i < 7; i++ {
		id := fmt.Sprintf("%s-%d", prefix, i)
		// Two studies share a creation time: the ID orders them.
		if err := s.Create(ctx, store.Study{ID: id, Name: "n-" + id, Spec: []byte(`{}`), Created: base.Add(time.Duration(i/2) * time.Second)}); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	id := ids[0]
	const n = 2*store.ScanPage + 17
	for done := 0; done < n; {
		k := min(300, n-done)
		if _, err := s.Update(ctx, id, int64(done), func([]store.Event) ([]store.Event, error) {
			evs := make([]store.Event, k)
			for i := range evs {
				evs[i] = store.Event{Kind: store.KindAsk, Data: []byte(fmt.Sprint(done + i + 1))}
				if (done+i)%3 == 2 {
					evs[i].Kind = store.KindTell
				}
			}
			return evs, nil
		}); err != nil {
			t.Fatal(err)
		}
		done += k
	}
	got, err := s.Get(ctx, id)
	if err != nil || got.Len != n || got.Asks != n-n/3 {
		t.Fatalf("get: len %d asks %d, want %d %d (%v)", got.Len, got.Asks, n, n-n/3, err)
	}
	next := int64(5)
	err = s.Scan(ctx, id, 5, func(e store.Event) error {
		next++
		if e.Seq != next || string(e.Data) != fmt.Sprint(next) {
			return fmt.Errorf("event %+v, want %d", e, next)
		}
		if next == 1500 { // appends during the scan are not chased
			if _, err := s.Update(ctx, id, n, func([]store.Event) ([]store.Event, error) {
				return []store.Event{{Kind: store.KindTell, Data: []byte("late")}}, nil
			}); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil || next != n {
		t.Fatalf("scan: up to %d of %d: %v", next, n, err)
	}
	stop := errors.New("stop")
	calls := 0
	if err := s.Scan(ctx, id, 0, func(store.Event) error { calls++; return stop }); !errors.Is(err, stop) || calls != 1 {
		t.Fatalf("scan stopped by fn: %v after %d calls", err, calls)
	}
	if err := s.Scan(ctx, "nope", 0, func(store.Event) error { return nil }); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("scan of no study: %v", err)
	}
	// Pages of 3 over this test's studies.
	var seen []string
	var after store.Cursor
	for {
		page, err := s.ListPage(ctx, store.ListQuery{After: after, Limit: 3})
		if err != nil {
			t.Fatal(err)
		}
		for _, st := range page {
			if strings.HasPrefix(st.ID, prefix+"-") {
				seen = append(seen, st.ID)
			}
		}
		if len(page) < 3 {
			break
		}
		last := page[len(page)-1]
		after = store.Cursor{Created: last.Created, ID: last.ID}
	}
	if fmt.Sprint(seen) != fmt.Sprint(ids) {
		t.Fatalf("pages gave %v, want %v", seen, ids)
	}
	byName, err := s.ListPage(ctx, store.ListQuery{Name: "n-" + ids[3]})
	if err != nil || len(byName) != 1 || byName[0].ID != ids[3] {
		t.Fatalf("by name: %+v %v", byName, err)
	}
	for _, id := range ids {
		s.Delete(ctx, id)
	}
}

// appendTimes: the time a store gives the events it appends is the one
// every reader of the log gets back, in whole microseconds (PostgreSQL's
// precision): the writer's copy and a reread agree.
func appendTimes(t *testing.T, s store.Store) {
	ctx := context.Background()
	id := newID("t")
	if err := s.Create(ctx, store.Study{ID: id, Name: "name-" + id, Spec: []byte(`{}`), Created: time.Now().UTC()}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Delete(ctx, id) })
	var written []store.Event
	for k := 0; k < 3; k++ {
		if _, err := s.Update(ctx, id, int64(len(written)), func([]store.Event) ([]store.Event, error) {
			evs := []store.Event{{Kind: store.KindAsk, Data: []byte("{}")}, {Kind: store.KindTell, Data: []byte("{}")}}
			written = append(written, evs...) // the store sets Time in place
			return written[len(written)-2:], nil
		}); err != nil {
			t.Fatal(err)
		}
	}
	read, err := s.Events(ctx, id, 0)
	if err != nil || len(read) != len(written) {
		t.Fatalf("events: %d, %v; want %d", len(read), err, len(written))
	}
	for i, w := range written {
		if w.Time.IsZero() || !w.Time.Equal(w.Time.Truncate(time.Microsecond)) {
			t.Errorf("event %d: appended at %s, not in whole microseconds", i+1, w.Time.Format(time.RFC3339Nano))
		}
		if !read[i].Time.Equal(w.Time) {
			t.Errorf("event %d: the writer has %s, a reader %s", i+1, w.Time.Format(time.RFC3339Nano), read[i].Time.Format(time.RFC3339Nano))
		}
	}
}
