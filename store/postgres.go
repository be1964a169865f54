package store

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Postgres is the Store for several service replicas on one database. The
// study's row lock (SELECT … FOR UPDATE) makes one writer per study at a time
// across replicas; Update hands the caller the events other replicas
// appended since its known length before it acts.
type Postgres struct {
	pool  *pgxpool.Pool
	locks keyedMutex // per-study, in-process: spares the pool waiting connections
}

const pgSchema = `
CREATE TABLE IF NOT EXISTS cbandit_studies (
	id      TEXT PRIMARY KEY,
	name    TEXT NOT NULL UNIQUE,
	spec    BYTEA NOT NULL,
	created TIMESTAMPTZ NOT NULL,
	log_len BIGINT NOT NULL DEFAULT 0,
	asks    BIGINT NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS cbandit_events (
	study TEXT NOT NULL REFERENCES cbandit_studies(id) ON DELETE CASCADE,
	seq   BIGINT NOT NULL,
	kind  TEXT NOT NULL,
	data  BYTEA NOT NULL,
	at    TIMESTAMPTZ NOT NULL,
	PRIMARY KEY (study, seq)
);
CREATE TABLE IF NOT EXISTS cbandit_snapshots (
	study TEXT PRIMARY KEY REFERENCES cbandit_studies(id) ON DELETE CASCADE,
	seq   BIGINT NOT NULL,
	data  BYTEA NOT NULL
);
CREATE INDEX IF NOT EXISTS cbandit_studies_created ON cbandit_studies (created, id);
`

func init() {
	open := func(ctx context.Context, url string) (Store, error) {
		if _, rest, _ := strings.Cut(url, ":"); !strings.HasPrefix(rest, "//") {
			return nil, fmt.Errorf("store: --db %q: want postgres://…", url)
		}
		p, err := OpenPostgres(ctx, url)
		if err != nil {
			return nil, err
		}
		return p, nil
	}
	Register("postgres", open)
	Register("postgresql", open)
}

// OpenPostgres connects to the database at dsn and creates the tables if
// they are missing (under an advisory lock, so replicas starting together
// do not race).
func OpenPostgres(ctx context.Context, dsn string) (*Postgres, error) {
	pool, err := pgxpool.New(ctx, dsn)
	if err != nil {
		return nil, fmt.Errorf("store: postgres: %w", err)
	}
	tx, err := pool.Begin(ctx)
	if err != nil {
		pool.Close()
		return nil, fmt.Errorf("store: postgres: connect: %w", err)
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(7276157317)`); err != nil {
		pool.Close()
		return nil, fmt.Errorf("store: postgres: schema lock: %w", err)
	}
	if _, err := tx.Exec(ctx, pgSchema); err != nil {
		pool.Close()
		return nil, fmt.Errorf("store: postgres: schema: %w", err)
	}
	if err := tx.Commit(ctx); err != nil {
		pool.Close()
		return nil, fmt.Errorf("store: postgres: schema: %w", err)
	}
	return &Postgres{pool: pool}, nil
}

// Kind implements Store.
func (p *Postgres) Kind() string { return "postgres" }

// Close implements Store.
func (p *Postgres) Close() error { p.pool.Close(); return nil }

// Create implements Store.
func (p *Postgres) Create(ctx context.Context, s Study) error {
	err := pgRetry(ctx, pgNotSent, func() error {
		_, err := p.pool.Exec(ctx, `INSERT INTO cbandit_studies (id, name, spec, created) VALUES ($1, $2, $3, $4)`,
			s.ID, s.Name, s.Spec, s.Created)
		return err
	})
	var pe *pgconn.PgError
	if errors.As(err, &pe) && pe.Code == "23505" {
		return ErrDuplicate
	}
	if err != nil {
		return fmt.Errorf("store: create study: %w", pgErr(err))
	}
	return nil
}

func pgScanStudy(row pgx.Row) (Study, error) {
	var s Study
	if err := row.Scan(&s.ID, &s.Name, &s.Spec, &s.Created, &s.Len, &s.Asks); err != nil {
		return Study{}, err
	}
	s.Created = s.Created.UTC()
	return s, nil
}

// Get implements Store.
func (p *Postgres) Get(ctx context.Context, id string) (Study, error) {
	var s Study
	err := pgRetry(ctx, pgUnavailable, func() (err error) {
		s, err = pgScanStudy(p.pool.QueryRow(ctx,
			`SELECT id, name, spec, created, log_len, asks FROM cbandit_studies WHERE id = $1`, id))
		return err
	})
	if errors.Is(err, pgx.ErrNoRows) {
		return Study{}, ErrNotFound
	}
	if err != nil {
		return Study{}, fmt.Errorf("store: get study: %w", pgErr(err))
	}
	return s, nil
}

// List implements Store.
func (p *Postgres) List(ctx context.Context) ([]Study, error) {
	return p.ListPage(ctx, ListQuery{})
}

// ListPage implements Store.
func (p *Postgres) ListPage(ctx context.Context, q ListQuery) ([]Study, error) {
	query, args := `SELECT id, name, spec, created, log_len, asks FROM cbandit_studies WHERE true`, []any{}
	if q.Name != "" {
		args = append(args, q.Name)
		query += fmt.Sprintf(` AND name = $%d`, len(args))
	}
	if !q.After.Created.IsZero() || q.After.ID != "" {
		args = append(args, q.After.Created, q.After.ID)
		query += fmt.Sprintf(` AND (created, id) > ($%d, $%d)`, len(args)-1, len(args))
	}
	query += ` ORDER BY created, id`
	if q.Limit > 0 {
		args = append(args, q.Limit)
		query += fmt.Sprintf(` LIMIT $%d`, len(args))
	}
	var out []Study
	err := pgRetry(ctx, pgUnavailable, func() error {
		out = out[:0]
		rows, err := p.pool.Query(ctx, query, args...)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			s, err := pgScanStudy(rows)
			if err != nil {
				return err
			}
			out = append(out, s)
		}
		return rows.Err()
	})
	if err != nil {
		return nil, fmt.Errorf("store: list studies: %w", pgErr(err))
	}
	return out, nil
}

// Delete implements Store.
func (p *Postgres) Delete(ctx context.Context, id string) error {
	var tag pgconn.CommandTag
	err := pgRetry(ctx, pgNotSent, func() (err error) {
		tag, err = p.pool.Exec(ctx, `DELETE FROM cbandit_studies WHERE id = $1`, id)
		return err
	})
	if err != nil {
		return fmt.Errorf("store: delete study: %w", pgErr(err))
	}
	if tag.RowsAffected() == 0 {
		return ErrNotFound
	}
	return nil
}

// SetSpec implements Store.
func (p *Postgres) SetSpec(ctx context.Context, id string, old, spec []byte) error {
	var tag pgconn.CommandTag
	err := pgRetry(ctx, pgNotSent, func() (err error) {
		tag, err = p.pool.Exec(ctx, `UPDATE cbandit_studies SET spec = $1 WHERE id = $2 AND spec = $3`, spec, id, old)
		return err
	})
	if err != nil {
		return fmt.Errorf("store: update study: %w", pgErr(err))
	}
	if tag.RowsAffected() == 0 {
		if _, err := p.Get(ctx, id); err != nil {
			return err
		}
		return ErrConflict
	}
	return nil
}

// PutSnapshot implements Store.
func (p *Postgres) PutSnapshot(ctx context.Context, id string, sn Snapshot) error {
	// Writing a snapshot twice is harmless (the newer Seq wins): any
	// transient failure is retried.
	err := pgRetry(ctx, pgUnavailable, func() error {
		_, err := p.pool.Exec(ctx, `INSERT INTO cbandit_snapshots (study, seq, data) VALUES ($1, $2, $3)
		ON CONFLICT (study) DO UPDATE SET seq = excluded.seq, data = excluded.data WHERE excluded.seq > cbandit_snapshots.seq`,
			id, sn.Seq, sn.Data)
		return err
	})
	var pe *pgconn.PgError
	if errors.As(err, &pe) && pe.Code == "23503" { // foreign key: the study is gone
		return ErrNotFound
	}
	if err != nil {
		return fmt.Errorf("store: save snapshot: %w", pgErr(err))
	}
	return nil
}

// GetSnapshot implements Store.
func (p *Postgres) GetSnapshot(ctx context.Context, id string) (Snapshot, error) {
	var sn Snapshot
	err := pgRetry(ctx, pgUnavailable, func() error {
		return p.pool.QueryRow(ctx, `SELECT seq, data FROM cbandit_snapshots WHERE study = $1`, id).Scan(&sn.Seq, &sn.Data)
	})
	if errors.Is(err, pgx.ErrNoRows) {
		return Snapshot{}, ErrNotFound
	}
	if err != nil {
		return Snapshot{}, fmt.Errorf("store: read snapshot: %w", pgErr(err))
	}
	return sn, nil
}

type pgQuerier interface {
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

func pgEvents(ctx context.Context, q pgQuerier, id string, after int64) ([]Event, error) {
	rows, err := q.Query(ctx, `SELECT seq, kind, data, at FROM cbandit_events WHERE study = $1 AND seq > $2 ORDER BY seq`, id, after)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Event
	for rows.Next() {
		var e Event
		if err := rows.Scan(&e.Seq, &e.Kind, &e.Data, &e.Time); err != nil {
			return nil, err
		}
		e.Time = e.Time.UTC()
		out = append(out, e)
	}
	return out, rows.Err()
}

// Events implements Store.
func (p *Postgres) Events(ctx context.Context, id string, after int64) ([]Event, error) {
	var out []Event
	err := pgRetry(ctx, pgUnavailable, func() error {
		var n int64
		if err := p.pool.QueryRow(ctx, `SELECT log_len FROM cbandit_studies WHERE id = $1`, id).Scan(&n); err != nil {
			return err
		}
		if after >= n {
			out = nil
			return nil
		}
		var err error
		out, err = pgEvents(ctx, p.pool, id, after)
		return err
	})
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, ErrNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("store: read log: %w", pgErr(err))
	}
	return out, nil
}

// Scan implements Store: a page of the log per query, so that no
// connection is held while fn runs.
func (p *Postgres) Scan(ctx context.Context, id string, after int64, fn func(Event) error) error {
	var n int64
	err := pgRetry(ctx, pgUnavailable, func() error {
		return p.pool.QueryRow(ctx, `SELECT log_len FROM cbandit_studies WHERE id = $1`, id).Scan(&n)
	})
	if errors.Is(err, pgx.ErrNoRows) {
		return ErrNotFound
	}
	if err != nil {
		return fmt.Errorf("store: read log: %w", pgErr(err))
	}
	return scanPages(after, n, func(after int64, page []Event) ([]Event, error) {
		start := len(page)
		err := pgRetry(ctx, pgUnavailable, func() error {
			page = page[:start]
			rows, err := p.pool.Query(ctx, `SELECT seq, kind, data, at FROM cbandit_events WHERE study = $1 AND seq > $2 AND seq <= $3 ORDER BY seq LIMIT $4`,
				id, after, n, ScanPage)
			if err != nil {
				return err
			}
			defer rows.Close()
			for rows.Next() {
				var e Event
				if err := rows.Scan(&e.Seq, &e.Kind, &e.Data, &e.Time); err != nil {
					return err
				}
				e.Time = e.Time.UTC()
				page = append(page, e)
			}
			return rows.Err()
		})
		return page, pgErr(err)
	}, fn)
}

// Update implements Store. An attempt that meets an outage before its
// COMMIT is sent is tried again, a few times within about a second (the
// study's lock held): before fn has run, from the start; after, with the
// events fn returned, when the log still has the length fn saw (the
// sequence numbers were given for it: the primary key (study, seq) and the
// row lock refuse any other append). fn runs at most once. An attempt lost
// during its COMMIT may have been applied and is not tried again: the
// error is ErrUnavailable, and a client's retry with its idempotency key
// finds the answer in the log if it was.
func (p *Postgres) Update(ctx context.Context, id string, known int64, fn UpdateFunc) (int64, error) {
	unlock := p.locks.lock(id)
	defer unlock()
	u := pgUpdate{id: id, known: known, fn: fn}
	for i := 0; ; i++ {
		n, retry, err := p.updateOnce(ctx, &u)
		if err == nil || !retry || i == len(retryDelays) || sleepCtx(ctx, retryDelays[i]) != nil {
			return n, err
		}
	}
}

// pgUpdate is one Update across its attempts: once fn has run (ran), the
// events it returned (evs) follow a log of base events.
type pgUpdate struct {
	id    string
	known int64
	fn    UpdateFunc
	ran   bool
	base  int64
	evs   []Event
}

// updateOnce is one attempt of an Update; retry says that nothing was
// committed and that another attempt may succeed.
func (p *Postgres) updateOnce(ctx context.Context, u *pgUpdate) (n int64, retry bool, err error) {
	fail := func(what string, err error) (int64, bool, error) {
		return n, pgUnavailable(err), fmt.Errorf("store: %s: %w", what, pgErr(err))
	}
	tx, err := p.pool.Begin(ctx)
	if err != nil {
		return fail("begin", err)
	}
	defer tx.Rollback(ctx)
	err = tx.QueryRow(ctx, `SELECT log_len FROM cbandit_studies WHERE id = $1 FOR UPDATE`, u.id).Scan(&n)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, false, ErrNotFound
	}
	if err != nil {
		return fail("lock study", err)
	}
	if !u.ran {
		if u.known > n {
			return n, false, ErrAhead
		}
		var newer []Event
		if u.known < n {
			if newer, err = pgEvents(ctx, tx, u.id, u.known); err != nil {
				return fail("read log", err)
			}
		}
		u.ran, u.base = true, n
		evs, err := u.fn(newer)
		if err != nil || len(evs) == 0 {
			return n, false, err
		}
		now := AppendTime()
		for i := range evs {
			evs[i].Seq = n + int64(i) + 1
			evs[i].Time = now
		}
		u.evs = evs
	} else if n != u.base {
		// Another replica appended while the connection was lost: the
		// events made for a log of base events do not follow this one.
		return n, false, unavailable(fmt.Errorf("store: append: the log grew from %d to %d events while the connection was lost", u.base, n))
	}
	rows := make([][]any, len(u.evs))
	for i, e := range u.evs {
		rows[i] = []any{u.id, e.Seq, e.Kind, e.Data, e.Time}
	}
	if len(rows) == 1 {
		_, err = tx.Exec(ctx, `INSERT INTO cbandit_events (study, seq, kind, data, at) VALUES ($1, $2, $3, $4, $5)`, rows[0]...)
	} else {
		_, err = tx.CopyFrom(ctx, pgx.Identifier{"cbandit_events"}, []string{"study", "seq", "kind", "data", "at"}, pgx.CopyFromRows(rows))
	}
	if err != nil {
		return fail("append", err)
	}
	if _, err := tx.Exec(ctx, `UPDATE cbandit_studies SET log_len = $1, asks = asks + $2 WHERE id = $3`,
		n+int64(len(u.evs)), countAsks(u.evs), u.id); err != nil {
		return fail("append", err)
	}
	if err := tx.Commit(ctx); err != nil {
		// Lost during COMMIT, the transaction may have been applied: no
		// retry. A COMMIT never sent (the connection found closed before)
		// or refused by the server (a serialization failure) was not.
		var pe *pgconn.PgError
		retry := pgconn.SafeToRetry(err) || errors.As(err, &pe) && pgUnavailable(err)
		return n, retry, fmt.Errorf("store: append: commit: %w", pgErr(err))
	}
	return n + int64(len(u.evs)), false, nil
}

// Ping implements Pinger: an empty query on a connection of the pool.
func (p *Postgres) Ping(ctx context.Context) error {
	return pgErr(pgRetry(ctx, pgUnavailable, func() error { return p.pool.Ping(ctx) }))
}

// pgUnavailable reports whether err says that the server cannot take the
// operation now (PostgreSQL, Appendix A "Error Codes"): the connection
// refused, lost or timed out; the server shutting down (57P01, 57P02),
// starting or in crash recovery (57P03); a statement timeout (57014); a
// serialization failure or deadlock (40001, 40P01); a standby after a
// failover (25006); no disk, memory or connections left (class 53); an
// I/O error (class 58). Anything else is the query's or the data's fault.
func pgUnavailable(err error) bool {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		switch pe.Code {
		case "57P01", "57P02", "57P03", "57014", "40001", "40P01", "25006":
			return true
		}
		return strings.HasPrefix(pe.Code, "08") || strings.HasPrefix(pe.Code, "53") || strings.HasPrefix(pe.Code, "58")
	}
	var ce *pgconn.ConnectError
	var ne net.Error
	return errors.As(err, &ce) || errors.As(err, &ne) || errors.Is(err, pgconn.ErrConnClosed) ||
		errors.Is(err, pgx.ErrTxClosed) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, context.DeadlineExceeded) || pgconn.Timeout(err) || pgconn.SafeToRetry(err)
}

// pgNotSent reports whether a statement sent alone (committed by itself)
// certainly had no effect and met an outage: the driver sent nothing, or
// the server refused it.
func pgNotSent(err error) bool {
	var pe *pgconn.PgError
	var ce *pgconn.ConnectError
	return pgUnavailable(err) && (pgconn.SafeToRetry(err) || errors.As(err, &ce) || errors.As(err, &pe))
}

// pgErr classifies a driver's error: ErrUnavailable wrapping it when the
// server cannot take the operation now, else the error as it is.
func pgErr(err error) error {
	if err != nil && pgUnavailable(err) {
		return unavailable(err)
	}
	return err
}

// pgRetry runs op, again after the waits of retryDelays while its error is
// one retryable accepts and ctx lasts.
func pgRetry(ctx context.Context, retryable func(error) bool, op func() error) error {
	for i := 0; ; i++ {
		err := op()
		if err == nil || i == len(retryDelays) || !retryable(err) || sleepCtx(ctx, retryDelays[i]) != nil {
			return err
		}
	}
}
