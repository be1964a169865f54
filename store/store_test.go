package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// stores returns the backends to test: memory and SQLite always, PostgreSQL
// when CBANDIT_TEST_POSTGRES names a server (.ci/postgres.sh starts one).
func stores(t *testing.T) map[string]func(t *testing.T) Store {
	m := map[string]func(t *testing.T) Store{
		"memory": func(t *testing.T) Store { return NewMemory() },
		"sqlite": func(t *testing.T) Store {
			s, err := Open(context.Background(), "sqlite:"+filepath.Join(t.TempDir(), "s.db"))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { s.Close() })
			return s
		},
	}
	m["postgres"] = func(t *testing.T) Store {
		dsn := os.Getenv("CBANDIT_TEST_POSTGRES")
		if dsn == "" {
			t.Skip("CBANDIT_TEST_POSTGRES is not set: no PostgreSQL server to test against (.ci/postgres.sh starts one)")
		}
		s, err := Open(context.Background(), dsn)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	}
	return m
}

var idSeq = time.Now().UnixNano()

func newID(prefix string) string {
	idSeq++
	return fmt.Sprintf("%s-%d", prefix, idSeq)
}

func TestStoreContract(t *testing.T) {
	for name, open := range stores(t) {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			s := open(t)
			id := newID("a")
			st := Study{ID: id, Name: "name-" + id, Spec: []byte(`{"x":1}`), Created: time.Now().UTC()}
			if err := s.Create(ctx, st); err != nil {
				t.Fatal(err)
			}
			if err := s.Create(ctx, Study{ID: newID("b"), Name: st.Name, Spec: []byte(`{}`), Created: time.Now()}); !errors.Is(err, ErrDuplicate) {
				t.Fatalf("duplicate name: got %v, want ErrDuplicate", err)
			}
			if _, err := s.Get(ctx, "nope"); !errors.Is(err, ErrNotFound) {
				t.Fatalf("get unknown: %v", err)
			}
			n, err := s.Update(ctx, id, 0, func(newer []Event) ([]Event, error) {
				if len(newer) != 0 {
					t.Errorf("newer = %d events, want 0", len(newer))
				}
				return []Event{{Kind: KindAsk, Data: []byte("1")}, {Kind: KindTell, Data: []byte("2")}}, nil
			})
			if err != nil || n != 2 {
				t.Fatalf("update: n=%d err=%v", n, err)
			}
			// A caller that knows 1 event gets the second one.
			n, err = s.Update(ctx, id, 1, func(newer []Event) ([]Event, error) {
				if len(newer) != 1 || newer[0].Seq != 2 || string(newer[0].Data) != "2" {
					t.Errorf("newer = %+v, want event 2", newer)
				}
				return []Event{{Kind: KindAsk, Data: []byte("3")}}, nil
			})
			if err != nil || n != 3 {
				t.Fatalf("update: n=%d err=%v", n, err)
			}
			// An error appends nothing.
			n, err = s.Update(ctx, id, 3, func([]Event) ([]Event, error) { return nil, errors.New("no") })
			if err == nil || n != 3 {
				t.Fatalf("failing update: n=%d err=%v", n, err)
			}
			if _, err := s.Update(ctx, id, 9, func([]Event) ([]Event, error) { return nil, nil }); !errors.Is(err, ErrAhead) {
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
			if err := s.Delete(ctx, id); !errors.Is(err, ErrNotFound) {
				t.Fatalf("second delete: %v", err)
			}
			if _, err := s.Events(ctx, id, 0); !errors.Is(err, ErrNotFound) {
				t.Fatalf("events of deleted: %v", err)
			}
			if _, err := s.Update(ctx, id, 0, func([]Event) ([]Event, error) { return nil, nil }); !errors.Is(err, ErrNotFound) {
				t.Fatalf("update of deleted: %v", err)
			}
		})
	}
}

// TestStoreConcurrentAppends: many goroutines append to several studies; the
// logs come out complete and gap-free.
func TestStoreConcurrentAppends(t *testing.T) {
	for name, open := range stores(t) {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			s := open(t)
			const studies, workers, per = 4, 8, 25
			ids := make([]string, studies)
			for i := range ids {
				ids[i] = newID("c")
				if err := s.Create(ctx, Study{ID: ids[i], Name: ids[i], Spec: []byte("{}"), Created: time.Now()}); err != nil {
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
						_, err := s.Update(ctx, id, 0, func(newer []Event) ([]Event, error) {
							return []Event{{Kind: KindTell, Data: []byte(fmt.Sprint(len(newer) + 1))}}, nil
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
		})
	}
}

// TestSQLiteExclusive: a second opener of the same file is refused, and the
// data survives a close and reopen.
func TestSQLiteExclusive(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "x.db")
	a, err := OpenSQLite(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Create(ctx, Study{ID: "s1", Name: "n1", Spec: []byte("{}"), Created: time.Now()}); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Update(ctx, "s1", 0, func([]Event) ([]Event, error) {
		return []Event{{Kind: KindAsk, Data: []byte("d")}}, nil
	}); err != nil {
		t.Fatal(err)
	}
	if b, err := OpenSQLite(ctx, path); err == nil {
		b.Close()
		t.Fatal("a second open of a file in use succeeded")
	}
	a.Close()
	b, err := OpenSQLite(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	evs, err := b.Events(ctx, "s1", 0)
	if err != nil || len(evs) != 1 || string(evs[0].Data) != "d" {
		t.Fatalf("after reopen: %+v %v", evs, err)
	}
}

func TestOpenErrors(t *testing.T) {
	for _, u := range []string{"mysql://x", "sqlite:", "sqlite:/tmp/x.db?sync=maybe"} {
		if s, err := Open(context.Background(), u); err == nil {
			s.Close()
			t.Errorf("Open(%q) succeeded", u)
		}
	}
}

func TestSnapshots(t *testing.T) {
	for name, open := range stores(t) {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			s := open(t)
			id := newID("snap")
			if err := s.Create(ctx, Study{ID: id, Name: "name-" + id, Spec: []byte(`{}`), Created: time.Now().UTC()}); err != nil {
				t.Fatal(err)
			}
			if _, err := s.GetSnapshot(ctx, id); !errors.Is(err, ErrNotFound) {
				t.Fatalf("no snapshot yet: %v", err)
			}
			if err := s.PutSnapshot(ctx, id, Snapshot{Seq: 5, Data: []byte("five")}); err != nil {
				t.Fatal(err)
			}
			// An older snapshot does not replace a newer one.
			if err := s.PutSnapshot(ctx, id, Snapshot{Seq: 3, Data: []byte("three")}); err != nil {
				t.Fatal(err)
			}
			sn, err := s.GetSnapshot(ctx, id)
			if err != nil || sn.Seq != 5 || string(sn.Data) != "five" {
				t.Fatalf("snapshot %d %q %v, want 5 five", sn.Seq, sn.Data, err)
			}
			if err := s.PutSnapshot(ctx, id, Snapshot{Seq: 9, Data: []byte("nine")}); err != nil {
				t.Fatal(err)
			}
			if sn, _ := s.GetSnapshot(ctx, id); sn.Seq != 9 || string(sn.Data) != "nine" {
				t.Fatalf("snapshot %d %q, want 9 nine", sn.Seq, sn.Data)
			}
			if err := s.Delete(ctx, id); err != nil {
				t.Fatal(err)
			}
			if _, err := s.GetSnapshot(ctx, id); !errors.Is(err, ErrNotFound) {
				t.Fatalf("snapshot of a deleted study: %v", err)
			}
			if err := s.PutSnapshot(ctx, id, Snapshot{Seq: 10, Data: []byte("x")}); !errors.Is(err, ErrNotFound) {
				t.Fatalf("snapshot of a deleted study saved: %v", err)
			}
		})
	}
}

func TestSetSpec(t *testing.T) {
	for name, open := range stores(t) {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			s := open(t)
			id := newID("spec")
			if err := s.Create(ctx, Study{ID: id, Name: "name-" + id, Spec: []byte(`{"h":1}`), Created: time.Now().UTC()}); err != nil {
				t.Fatal(err)
			}
			if err := s.SetSpec(ctx, id, []byte(`{"h":0}`), []byte(`{"h":2}`)); !errors.Is(err, ErrConflict) {
				t.Fatalf("stale definition accepted: %v", err)
			}
			if err := s.SetSpec(ctx, id, []byte(`{"h":1}`), []byte(`{"h":2}`)); err != nil {
				t.Fatal(err)
			}
			if st, _ := s.Get(ctx, id); string(st.Spec) != `{"h":2}` {
				t.Fatalf("definition %s", st.Spec)
			}
			if err := s.SetSpec(ctx, "nope-"+id, nil, nil); !errors.Is(err, ErrNotFound) {
				t.Fatalf("unknown study: %v", err)
			}
		})
	}
}

// TestScanAndPages (issue 26): Scan streams the log in order, stops at the
// length it started with and on fn's error; ListPage pages the studies by
// (created, id) and filters by name.
func TestScanAndPages(t *testing.T) {
	for name, open := range stores(t) {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			s := open(t)
			base := time.Now().UTC().Truncate(time.Microsecond)
			prefix := newID("p")
			var ids []string
			for i := 0; i < 7; i++ {
				id := fmt.Sprintf("%s-%d", prefix, i)
				// Two studies share a creation time: the ID orders them.
				if err := s.Create(ctx, Study{ID: id, Name: "n-" + id, Spec: []byte(`{}`), Created: base.Add(time.Duration(i/2) * time.Second)}); err != nil {
					t.Fatal(err)
				}
				ids = append(ids, id)
			}
			id := ids[0]
			const n = 2*ScanPage + 17
			for done := 0; done < n; {
				k := min(300, n-done)
				if _, err := s.Update(ctx, id, int64(done), func([]Event) ([]Event, error) {
					evs := make([]Event, k)
					for i := range evs {
						evs[i] = Event{Kind: KindAsk, Data: []byte(fmt.Sprint(done + i + 1))}
						if (done+i)%3 == 2 {
							evs[i].Kind = KindTell
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
			err = s.Scan(ctx, id, 5, func(e Event) error {
				next++
				if e.Seq != next || string(e.Data) != fmt.Sprint(next) {
					return fmt.Errorf("event %+v, want %d", e, next)
				}
				if next == 1500 { // appends during the scan are not chased
					if _, err := s.Update(ctx, id, n, func([]Event) ([]Event, error) {
						return []Event{{Kind: KindTell, Data: []byte("late")}}, nil
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
			if err := s.Scan(ctx, id, 0, func(Event) error { calls++; return stop }); !errors.Is(err, stop) || calls != 1 {
				t.Fatalf("scan stopped by fn: %v after %d calls", err, calls)
			}
			if err := s.Scan(ctx, "nope", 0, func(Event) error { return nil }); !errors.Is(err, ErrNotFound) {
				t.Fatalf("scan of no study: %v", err)
			}
			// Pages of 3 over this test's studies.
			var seen []string
			var after Cursor
			for {
				page, err := s.ListPage(ctx, ListQuery{After: after, Limit: 3})
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
				after = Cursor{Created: last.Created, ID: last.ID}
			}
			if fmt.Sprint(seen) != fmt.Sprint(ids) {
				t.Fatalf("pages gave %v, want %v", seen, ids)
			}
			byName, err := s.ListPage(ctx, ListQuery{Name: "n-" + ids[3]})
			if err != nil || len(byName) != 1 || byName[0].ID != ids[3] {
				t.Fatalf("by name: %+v %v", byName, err)
			}
			for _, id := range ids {
				s.Delete(ctx, id)
			}
		})
	}
}

// TestSQLiteMigration: a database written before the log counters gets
// them from its log when opened.
func TestSQLiteMigration(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "old.db")
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`CREATE TABLE studies (id TEXT PRIMARY KEY, name TEXT NOT NULL UNIQUE, spec BLOB NOT NULL, created INTEGER NOT NULL);
CREATE TABLE events (study TEXT NOT NULL, seq INTEGER NOT NULL, kind TEXT NOT NULL, data BLOB NOT NULL, at INTEGER NOT NULL, PRIMARY KEY (study, seq)) WITHOUT ROWID;
INSERT INTO studies VALUES ('s1', 'one', '{}', 1), ('s2', 'two', '{}', 2);
INSERT INTO events VALUES ('s1', 1, 'ask', 'a', 1), ('s1', 2, 'tell', 't', 1), ('s1', 3, 'ask', 'a', 1);`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	s, err := OpenSQLite(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for id, want := range map[string][2]int64{"s1": {3, 2}, "s2": {0, 0}} {
		st, err := s.Get(ctx, id)
		if err != nil || st.Len != want[0] || st.Asks != want[1] {
			t.Fatalf("%s: len %d asks %d, want %v (%v)", id, st.Len, st.Asks, want, err)
		}
	}
	if _, err := s.Update(ctx, "s1", 3, func([]Event) ([]Event, error) { return []Event{{Kind: KindAsk, Data: []byte("a")}}, nil }); err != nil {
		t.Fatal(err)
	}
	if st, _ := s.Get(ctx, "s1"); st.Len != 4 || st.Asks != 3 {
		t.Fatalf("after an append: %+v", st)
	}
}
