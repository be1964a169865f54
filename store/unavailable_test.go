package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"net"
	"path/filepath"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// TestPostgresClassification: the driver's errors of an outage are
// ErrUnavailable, wrapping the cause; the query's or the data's are not.
func TestPostgresClassification(t *testing.T) {
	for _, c := range []struct {
		err  error
		want bool
	}{
		{&pgconn.PgError{Code: "57P01"}, true}, // admin shutdown
		{&pgconn.PgError{Code: "57P02"}, true}, // crash shutdown
		{&pgconn.PgError{Code: "57P03"}, true}, // cannot connect now: recovery
		{&pgconn.PgError{Code: "08006"}, true}, // connection failure
		{&pgconn.PgError{Code: "40001"}, true}, // serialization failure
		{&pgconn.PgError{Code: "40P01"}, true}, // deadlock
		{&pgconn.PgError{Code: "53100"}, true}, // disk full
		{&pgconn.PgError{Code: "58030"}, true}, // I/O error
		{&pgconn.PgError{Code: "25006"}, true}, // read-only: a standby
		{&pgconn.PgError{Code: "57014"}, true}, // statement timeout
		{fmt.Errorf("read: %w", io.ErrUnexpectedEOF), true},
		{fmt.Errorf("begin: %w", pgconn.ErrConnClosed), true},
		{&net.OpError{Op: "dial", Net: "tcp", Err: errors.New("connection refused")}, true},
		{context.DeadlineExceeded, true},
		{&pgconn.PgError{Code: "23505"}, false}, // unique violation
		{&pgconn.PgError{Code: "42601"}, false}, // syntax error
		{&pgconn.PgError{Code: "XX001"}, false}, // data corrupted
		{pgx.ErrNoRows, false},
		{context.Canceled, false},
		{errors.New("cannot scan"), false},
	} {
		err := fmt.Errorf("store: get study: %w", pgErr(c.err))
		if got := errors.Is(err, ErrUnavailable); got != c.want {
			t.Errorf("%v: unavailable %v, want %v", c.err, got, c.want)
		}
		if !errors.Is(err, c.err) {
			t.Errorf("%v: the cause is lost: %v", c.err, err)
		}
	}
}

// TestSQLiteClassification: SQLite's refusal to write a read-only
// database (SQLITE_READONLY, as a file the process may not write gives) is
// ErrUnavailable; a constraint violation is not.
func TestSQLiteClassification(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ro.db")
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`CREATE TABLE t (k INTEGER PRIMARY KEY)`); err != nil {
		t.Fatal(err)
	}
	_, err = db.Exec(`INSERT INTO t VALUES (1), (1)`)
	if err == nil || errors.Is(sqliteErr(err), ErrUnavailable) {
		t.Errorf("a constraint violation %v: classified unavailable", err)
	}
	ro, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	_, err = ro.Exec(`INSERT INTO t VALUES (2)`)
	if err == nil || !errors.Is(sqliteErr(err), ErrUnavailable) {
		t.Errorf("a write to a read-only database (%v): not classified unavailable", err)
	}
	if !errors.Is(sqliteErr(errSQLiteClosed), ErrUnavailable) {
		t.Errorf("an append after Close: not classified unavailable")
	}
}

// TestMemoryFault: the memory store's injected fault fails every
// operation as unavailable, and nothing is applied while it lasts.
func TestMemoryFault(t *testing.T) {
	ctx := context.Background()
	m := NewMemory()
	if err := m.Create(ctx, Study{ID: "a", Name: "a"}); err != nil {
		t.Fatal(err)
	}
	cause := errors.New("injected")
	m.SetFault(cause)
	_, err := m.Update(ctx, "a", 0, func([]Event) ([]Event, error) { return []Event{{Kind: KindAsk}}, nil })
	if !errors.Is(err, ErrUnavailable) || !errors.Is(err, cause) {
		t.Errorf("Update during the fault: %v", err)
	}
	if err := Ping(ctx, m); !errors.Is(err, ErrUnavailable) {
		t.Errorf("Ping during the fault: %v", err)
	}
	m.SetFault(nil)
	if s, err := m.Get(ctx, "a"); err != nil || s.Len != 0 {
		t.Errorf("after the fault: %+v, %v; want an empty log", s, err)
	}
	if err := Ping(ctx, m); err != nil {
		t.Errorf("Ping after the fault: %v", err)
	}
}
