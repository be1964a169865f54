package store

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"
	"time"
)

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

// TestOpenErrors: a URL whose scheme no backend registered, or that its
// backend refuses, opens nothing (a bare "sqlite" is no file name).
func TestOpenErrors(t *testing.T) {
	for _, u := range []string{"mysql://x", "", "sqlite:", "sqlite", "sqlite:/tmp/x.db?sync=maybe", "memory:x", "postgres:x"} {
		if s, err := Open(context.Background(), u); err == nil {
			s.Close()
			t.Errorf("Open(%q) succeeded", u)
		} else if s != nil {
			t.Errorf("Open(%q) failed (%v) but returned a store", u, err)
		}
	}
	for _, u := range []string{"memory", "memory:"} {
		s, err := Open(context.Background(), u)
		if err != nil || s.Kind() != "memory" {
			t.Errorf("Open(%q) = %v, %v; want a memory store", u, s, err)
		}
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
