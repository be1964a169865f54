package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"sync"
	"time"

	"modernc.org/sqlite" // the "sqlite" database/sql driver, and its errors
	sqlite3 "modernc.org/sqlite/lib"
)

// SQLite is the embedded Store: one file, owned by one process.
//
// Writes go through one connection (db), reads through a pool of
// read-only connections (rd): in WAL mode readers see the last commit and
// neither wait for the writer nor make it wait (SQLite, "Write-Ahead
// Logging": "readers do not block writers and a writer does not block
// readers"). The file is owned by one process through an advisory lock on
// a lock file beside it (FILE-lock), so that the process's view of each
// log's length is authoritative. The studies table keeps each log's length
// and number of decisions, updated with every append, so that reading a
// study never counts its log.
type SQLite struct {
	db     *sql.DB // the writer: one connection
	rd     *sql.DB // readers
	unlock func()  // releases the process lock
	path   string
	locks  keyedMutex
	lensMu sync.Mutex
	lens   map[string]int64 // log length by study, authoritative (exclusive file)

	appendCh chan *sqliteAppend
	quit     chan struct{}
	done     chan struct{}
	closeMu  sync.Once
}

type sqliteAppend struct {
	id   string
	base int64
	evs  []Event
	err  chan error
}

const sqliteSchema = `
CREATE TABLE IF NOT EXISTS studies (
	id      TEXT PRIMARY KEY,
	name    TEXT NOT NULL UNIQUE,
	spec    BLOB NOT NULL,
	created INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS events (
	study TEXT NOT NULL,
	seq   INTEGER NOT NULL,
	kind  TEXT NOT NULL,
	data  BLOB NOT NULL,
	at    INTEGER NOT NULL,
	PRIMARY KEY (study, seq)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS snapshots (
	study TEXT PRIMARY KEY,
	seq   INTEGER NOT NULL,
	data  BLOB NOT NULL
);
CREATE INDEX IF NOT EXISTS studies_created ON studies (created, id);
CREATE TABLE IF NOT EXISTS health (
	id INTEGER PRIMARY KEY,
	at INTEGER NOT NULL
);
`

// errSQLiteClosed: an append after Close.
var errSQLiteClosed = errors.New("store: closed")

// sqliteReaders is the size of the read pool.
const sqliteReaders = 4

func init() {
	Register("sqlite", func(ctx context.Context, url string) (Store, error) {
		path, ok := strings.CutPrefix(url, "sqlite:")
		if !ok {
			return nil, fmt.Errorf("store: --db %q: want sqlite:FILE", url)
		}
		s, err := OpenSQLite(ctx, path)
		if err != nil {
			return nil, err
		}
		return s, nil
	})
}

// OpenSQLite opens (creating if needed) the database file at path. The
// default synchronous=FULL makes a committed append durable across power
// loss and OS crashes (an fsync of the WAL per commit; SQLite's
// documentation, "PRAGMA synchronous"); a query "?sync=normal" selects
// NORMAL, durable across a crash of the process (kill -9) but which may
// lose the transactions committed since the last checkpoint when the
// machine loses power.
func OpenSQLite(ctx context.Context, path string) (*SQLite, error) {
	syncMode := "FULL"
	if i := strings.IndexByte(path, '?'); i >= 0 {
		q, err := url.ParseQuery(path[i+1:])
		if err != nil {
			return nil, fmt.Errorf("store: sqlite options %q: %v", path[i+1:], err)
		}
		path = path[:i]
		for k, v := range q {
			switch {
			case k == "sync" && (v[0] == "full" || v[0] == "normal"):
				syncMode = strings.ToUpper(v[0])
			default:
				return nil, fmt.Errorf("store: sqlite option %s=%s: accepted is sync=full|normal", k, v[0])
			}
		}
	}
	if path == "" {
		return nil, fmt.Errorf("store: sqlite: empty file name (want sqlite:FILE)")
	}
	// One process per file: the lock is taken before the database is
	// touched, and held until Close (or the process's end).
	unlock, err := lockFile(path + "-lock")
	if err != nil {
		return nil, fmt.Errorf("store: sqlite %s is in use by another process (one `cbandit serve` per file; use PostgreSQL for several replicas): %w", path, err)
	}
	dsn := "file:" + path + "?_pragma=journal_mode(WAL)" +
		"&_pragma=synchronous(" + syncMode + ")&_pragma=busy_timeout(5000)&_pragma=foreign_keys(OFF)"
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		unlock()
		return nil, fmt.Errorf("store: open sqlite %s: %w", path, err)
	}
	// One writer connection: appends are group-committed by one goroutine.
	db.SetMaxOpenConns(1)
	db.SetMaxIdleConns(1)
	db.SetConnMaxLifetime(0)
	db.SetConnMaxIdleTime(0)
	fail := func(err error) (*SQLite, error) {
		db.Close()
		unlock()
		return nil, sqliteOpenErr(path, err)
	}
	if _, err := db.ExecContext(ctx, sqliteSchema); err != nil {
		return fail(err)
	}
	if err := sqliteMigrate(ctx, db); err != nil {
		return fail(err)
	}
	rd, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(5000)&_pragma=query_only(1)")
	if err != nil {
		return fail(err)
	}
	rd.SetMaxOpenConns(sqliteReaders)
	rd.SetMaxIdleConns(sqliteReaders)
	rd.SetConnMaxLifetime(0)
	rd.SetConnMaxIdleTime(0)
	if err := rd.PingContext(ctx); err != nil {
		rd.Close()
		return fail(err)
	}
	s := &SQLite{
		db: db, rd: rd, unlock: unlock, path: path, lens: map[string]int64{},
		appendCh: make(chan *sqliteAppend, 1024),
		quit:     make(chan struct{}),
		done:     make(chan struct{}),
	}
	go s.writer()
	return s, nil
}

func sqliteOpenErr(path string, err error) error {
	if strings.Contains(err.Error(), "locked") || strings.Contains(err.Error(), "busy") {
		return fmt.Errorf("store: sqlite %s is in use by another process (one `cbandit serve` per file; use PostgreSQL for several replicas): %w", path, err)
	}
	return fmt.Errorf("store: sqlite %s: %w", path, err)
}

// Kind implements Store.
func (s *SQLite) Kind() string { return "sqlite" }

// sqliteMigrate adds the log length and decision count columns to a
// database written before them, filled from the log (once).
func sqliteMigrate(ctx context.Context, db *sql.DB) error {
	rows, err := db.QueryContext(ctx, `SELECT name FROM pragma_table_info('studies')`)
	if err != nil {
		return err
	}
	has := map[string]bool{}
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			rows.Close()
			return err
		}
		has[n] = true
	}
	rows.Close()
	if has["log_len"] && has["asks"] {
		return nil
	}
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	for _, q := range []string{
		`ALTER TABLE studies ADD COLUMN log_len INTEGER NOT NULL DEFAULT 0`,
		`ALTER TABLE studies ADD COLUMN asks INTEGER NOT NULL DEFAULT 0`,
		`UPDATE studies SET log_len = (SELECT COALESCE(MAX(seq), 0) FROM events WHERE study = studies.id),
			asks = (SELECT COUNT(*) FROM events WHERE study = studies.id AND kind = 'ask')`,
	} {
		if _, err := tx.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("adding the log counters: %w", err)
		}
	}
	return tx.Commit()
}

// Close stops the writer (after the appends already queued), closes the
// file and releases it.
func (s *SQLite) Close() error {
	s.closeMu.Do(func() { close(s.quit) })
	<-s.done
	err := errors.Join(s.rd.Close(), s.db.Close())
	if s.unlock != nil {
		s.unlock()
		s.unlock = nil
	}
	return err
}

// Create implements Store.
func (s *SQLite) Create(ctx context.Context, st Study) (err error) {
	defer func() { err = sqliteErr(err) }()
	_, err = s.db.ExecContext(ctx, `INSERT INTO studies (id, name, spec, created) VALUES (?, ?, ?, ?)`,
		st.ID, st.Name, st.Spec, st.Created.UnixNano())
	if err != nil {
		if strings.Contains(err.Error(), "UNIQUE") {
			return ErrDuplicate
		}
		return fmt.Errorf("store: create study: %w", err)
	}
	s.lensMu.Lock()
	s.lens[st.ID] = 0
	s.lensMu.Unlock()
	return nil
}

// studySelect reads a study with its log length and number of decisions,
// kept by the appends.
const studySelect = `SELECT s.id, s.name, s.spec, s.created, s.log_len, s.asks FROM studies s`

func scanStudy(sc interface{ Scan(...any) error }) (Study, error) {
	var st Study
	var created int64
	if err := sc.Scan(&st.ID, &st.Name, &st.Spec, &created, &st.Len, &st.Asks); err != nil {
		return Study{}, err
	}
	st.Created = time.Unix(0, created).UTC()
	return st, nil
}

// Get implements Store.
func (s *SQLite) Get(ctx context.Context, id string) (_ Study, err error) {
	defer func() { err = sqliteErr(err) }()
	st, err := scanStudy(s.rd.QueryRowContext(ctx,
		studySelect+` WHERE s.id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return Study{}, ErrNotFound
	}
	if err != nil {
		return Study{}, fmt.Errorf("store: get study: %w", err)
	}
	return st, nil
}

// List implements Store.
func (s *SQLite) List(ctx context.Context) ([]Study, error) {
	return s.ListPage(ctx, ListQuery{})
}

// ListPage implements Store.
func (s *SQLite) ListPage(ctx context.Context, q ListQuery) (_ []Study, err error) {
	defer func() { err = sqliteErr(err) }()
	query, args := studySelect+` WHERE 1`, []any{}
	if q.Name != "" {
		query += ` AND s.name = ?`
		args = append(args, q.Name)
	}
	if !q.After.Created.IsZero() || q.After.ID != "" {
		query += ` AND (s.created, s.id) > (?, ?)`
		args = append(args, q.After.Created.UnixNano(), q.After.ID)
	}
	query += ` ORDER BY s.created, s.id`
	if q.Limit > 0 {
		query += ` LIMIT ?`
		args = append(args, q.Limit)
	}
	rows, err := s.rd.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("store: list studies: %w", err)
	}
	defer rows.Close()
	var out []Study
	for rows.Next() {
		st, err := scanStudy(rows)
		if err != nil {
			return nil, fmt.Errorf("store: list studies: %w", err)
		}
		out = append(out, st)
	}
	return out, rows.Err()
}

// Delete implements Store.
func (s *SQLite) Delete(ctx context.Context, id string) (err error) {
	defer func() { err = sqliteErr(err) }()
	unlock := s.locks.lock(id)
	defer unlock()
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("store: delete study: %w", err)
	}
	defer tx.Rollback()
	res, err := tx.ExecContext(ctx, `DELETE FROM studies WHERE id = ?`, id)
	if err != nil {
		return fmt.Errorf("store: delete study: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return ErrNotFound
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM events WHERE study = ?`, id); err != nil {
		return fmt.Errorf("store: delete study: %w", err)
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM snapshots WHERE study = ?`, id); err != nil {
		return fmt.Errorf("store: delete study: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("store: delete study: %w", err)
	}
	s.lensMu.Lock()
	delete(s.lens, id)
	s.lensMu.Unlock()
	return nil
}

// SetSpec implements Store.
func (s *SQLite) SetSpec(ctx context.Context, id string, old, spec []byte) (err error) {
	defer func() { err = sqliteErr(err) }()
	res, err := s.db.ExecContext(ctx, `UPDATE studies SET spec = ? WHERE id = ? AND spec = ?`, spec, id, old)
	if err != nil {
		return fmt.Errorf("store: update study: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		if _, err := s.Get(ctx, id); err != nil {
			return err
		}
		return ErrConflict
	}
	return nil
}

// PutSnapshot implements Store. It runs under the study's lock, so that it
// cannot resurrect a study deleted meanwhile.
func (s *SQLite) PutSnapshot(ctx context.Context, id string, sn Snapshot) (err error) {
	defer func() { err = sqliteErr(err) }()
	unlock := s.locks.lock(id)
	defer unlock()
	if _, err := s.length(ctx, id); err != nil {
		return err
	}
	_, err = s.db.ExecContext(ctx, `INSERT INTO snapshots (study, seq, data) VALUES (?, ?, ?)
		ON CONFLICT (study) DO UPDATE SET seq = excluded.seq, data = excluded.data WHERE excluded.seq > snapshots.seq`,
		id, sn.Seq, sn.Data)
	if err != nil {
		return fmt.Errorf("store: save snapshot: %w", err)
	}
	return nil
}

// GetSnapshot implements Store.
func (s *SQLite) GetSnapshot(ctx context.Context, id string) (_ Snapshot, err error) {
	defer func() { err = sqliteErr(err) }()
	var sn Snapshot
	err = s.rd.QueryRowContext(ctx, `SELECT seq, data FROM snapshots WHERE study = ?`, id).Scan(&sn.Seq, &sn.Data)
	if errors.Is(err, sql.ErrNoRows) {
		return Snapshot{}, ErrNotFound
	}
	if err != nil {
		return Snapshot{}, fmt.Errorf("store: read snapshot: %w", err)
	}
	return sn, nil
}

// length returns the log length of a study (ErrNotFound).
func (s *SQLite) length(ctx context.Context, id string) (int64, error) {
	s.lensMu.Lock()
	n, ok := s.lens[id]
	s.lensMu.Unlock()
	if ok {
		return n, nil
	}
	err := s.rd.QueryRowContext(ctx, `SELECT log_len FROM studies WHERE id = ?`, id).Scan(&n)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, ErrNotFound
	}
	if err != nil {
		return 0, fmt.Errorf("store: study length: %w", err)
	}
	s.lensMu.Lock()
	s.lens[id] = n
	s.lensMu.Unlock()
	return n, nil
}

// Events implements Store.
func (s *SQLite) Events(ctx context.Context, id string, after int64) ([]Event, error) {
	var out []Event
	err := s.Scan(ctx, id, after, func(e Event) error {
		out = append(out, e)
		return nil
	})
	return out, err
}

// Scan implements Store: the log is read a page at a time, each page by a
// short query of the read pool, and fn runs between queries.
func (s *SQLite) Scan(ctx context.Context, id string, after int64, fn func(Event) error) (err error) {
	defer func() { err = sqliteErr(err) }()
	n, err := s.length(ctx, id)
	if err != nil {
		return err
	}
	return scanPages(after, n, func(after int64, page []Event) ([]Event, error) {
		rows, err := s.rd.QueryContext(ctx,
			`SELECT seq, kind, data, at FROM events WHERE study = ? AND seq > ? AND seq <= ? ORDER BY seq LIMIT ?`, id, after, n, ScanPage)
		if err != nil {
			return nil, err
		}
		defer rows.Close()
		for rows.Next() {
			var e Event
			var at int64
			if err := rows.Scan(&e.Seq, &e.Kind, &e.Data, &at); err != nil {
				return nil, err
			}
			e.Time = time.Unix(0, at).UTC()
			page = append(page, e)
		}
		return page, rows.Err()
	}, fn)
}

// Update implements Store.
func (s *SQLite) Update(ctx context.Context, id string, known int64, fn UpdateFunc) (_ int64, err error) {
	defer func() { err = sqliteErr(err) }()
	unlock := s.locks.lock(id)
	defer unlock()
	n, err := s.length(ctx, id)
	if err != nil {
		return 0, err
	}
	if known > n {
		return n, ErrAhead
	}
	var newer []Event
	if known < n {
		if newer, err = s.Events(ctx, id, known); err != nil {
			return n, err
		}
	}
	evs, err := fn(newer)
	if err != nil || len(evs) == 0 {
		return n, err
	}
	now := AppendTime()
	for i := range evs {
		evs[i].Seq = n + int64(i) + 1
		evs[i].Time = now
	}
	req := &sqliteAppend{id: id, base: n, evs: evs, err: make(chan error, 1)}
	select {
	case s.appendCh <- req:
	case <-s.quit:
		return n, errSQLiteClosed
	}
	// Wait for the commit even if ctx ends: the append may be durable.
	if err := <-req.err; err != nil {
		s.lensMu.Lock()
		delete(s.lens, id) // re-read from the file next time
		s.lensMu.Unlock()
		return n, err
	}
	n += int64(len(evs))
	s.lensMu.Lock()
	s.lens[id] = n
	s.lensMu.Unlock()
	return n, nil
}

// writer group-commits appends: everything queued while the previous
// transaction ran goes into the next one.
func (s *SQLite) writer() {
	defer close(s.done)
	for {
		var first *sqliteAppend
		select {
		case first = <-s.appendCh:
		case <-s.quit:
			// Drain what was queued before Close.
			for {
				select {
				case r := <-s.appendCh:
					r.err <- s.writeBatch([]*sqliteAppend{r})
				default:
					return
				}
			}
		}
		batch := []*sqliteAppend{first}
	drain:
		for len(batch) < 512 {
			select {
			case r := <-s.appendCh:
				batch = append(batch, r)
			default:
				break drain
			}
		}
		if err := s.writeBatch(batch); err != nil && len(batch) > 1 {
			// Find the culprit: retry one by one.
			for _, r := range batch {
				r.err <- s.writeBatch([]*sqliteAppend{r})
			}
			continue
		} else {
			for _, r := range batch {
				r.err <- err
			}
		}
	}
}

func (s *SQLite) writeBatch(batch []*sqliteAppend) error {
	ctx := context.Background()
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("store: append: %w", err)
	}
	defer tx.Rollback()
	// One multi-row INSERT per chunk: the driver parses every statement it
	// runs, so fewer, larger statements are what make group commit cheap.
	const chunk = 200
	var b strings.Builder
	args := make([]any, 0, 5*chunk)
	flush := func() error {
		if len(args) == 0 {
			return nil
		}
		_, err := tx.ExecContext(ctx, b.String(), args...)
		b.Reset()
		args = args[:0]
		return err
	}
	// The log counters of each study, set in the same transaction.
	type counters struct{ n, asks int64 }
	count := map[string]*counters{}
	for _, r := range batch {
		c := count[r.id]
		if c == nil {
			c = &counters{}
			count[r.id] = c
		}
		c.n = r.base + int64(len(r.evs))
		c.asks += countAsks(r.evs)
		for _, e := range r.evs {
			if len(args) == 0 {
				b.WriteString(`INSERT INTO events (study, seq, kind, data, at) VALUES (?, ?, ?, ?, ?)`)
			} else {
				b.WriteString(`, (?, ?, ?, ?, ?)`)
			}
			args = append(args, r.id, e.Seq, e.Kind, e.Data, e.Time.UnixNano())
			if len(args) == 5*chunk {
				if err := flush(); err != nil {
					return fmt.Errorf("store: append: %w", err)
				}
			}
		}
	}
	if err := flush(); err != nil {
		return fmt.Errorf("store: append: %w", err)
	}
	for id, c := range count {
		if _, err := tx.ExecContext(ctx, `UPDATE studies SET log_len = ?, asks = asks + ? WHERE id = ?`, c.n, c.asks, id); err != nil {
			return fmt.Errorf("store: append: %w", err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("store: append: commit: %w", err)
	}
	return nil
}

// Ping implements Pinger: a read of the file through the read pool, and a
// one-row write through the writer, so that a full disk or a read-only
// file, which leave reads working, count as unavailable too.
func (s *SQLite) Ping(ctx context.Context) error {
	var one int
	err := s.rd.QueryRowContext(ctx, `SELECT 1 FROM studies LIMIT 1`).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		err = nil
	}
	if err == nil {
		_, err = s.db.ExecContext(ctx, `INSERT INTO health (id, at) VALUES (1, ?) ON CONFLICT (id) DO UPDATE SET at = excluded.at`,
			time.Now().UnixNano())
	}
	return sqliteErr(err)
}

// sqliteErr classifies an error of the driver: busy or locked past the
// busy timeout, a full disk, a read-only file or file system, an I/O
// error, a file that cannot be opened, a deadline, and the store closing
// are ErrUnavailable; anything else (a constraint, a corrupt file) is left
// as it is.
func sqliteErr(err error) error {
	if err == nil || errors.Is(err, ErrUnavailable) {
		return err
	}
	var se *sqlite.Error
	if errors.As(err, &se) {
		switch se.Code() & 0xff { // the primary code of an extended one
		case sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED, sqlite3.SQLITE_NOMEM, sqlite3.SQLITE_READONLY,
			sqlite3.SQLITE_IOERR, sqlite3.SQLITE_FULL, sqlite3.SQLITE_CANTOPEN, sqlite3.SQLITE_PROTOCOL:
			return unavailable(err)
		}
		return err
	}
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, errSQLiteClosed) {
		return unavailable(err)
	}
	return err
}
