package store

import (
	"context"
	"errors"
	"fmt"
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
	_, err := p.pool.Exec(ctx, `INSERT INTO cbandit_studies (id, name, spec, created) VALUES ($1, $2, $3, $4)`,
		s.ID, s.Name, s.Spec, s.Created)
	var pe *pgconn.PgError
	if errors.As(err, &pe) && pe.Code == "23505" {
		return ErrDuplicate
	}
	if err != nil {
		return fmt.Errorf("store: create study: %w", err)
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
	s, err := pgScanStudy(p.pool.QueryRow(ctx,
		`SELECT id, name, spec, created, log_len, asks FROM cbandit_studies WHERE id = $1`, id))
	if errors.Is(err, pgx.ErrNoRows) {
		return Study{}, ErrNotFound
	}
	if err != nil {
		return Study{}, fmt.Errorf("store: get study: %w", err)
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
	rows, err := p.pool.Query(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("store: list studies: %w", err)
	}
	defer rows.Close()
	var out []Study
	for rows.Next() {
		s, err := pgScanStudy(rows)
		if err != nil {
			return nil, fmt.Errorf("store: list studies: %w", err)
		}
		out = append(out, s)
	}
	return out, rows.Err()
}

// Delete implements Store.
func (p *Postgres) Delete(ctx context.Context, id string) error {
	tag, err := p.pool.Exec(ctx, `DELETE FROM cbandit_studies WHERE id = $1`, id)
	if err != nil {
		return fmt.Errorf("store: delete study: %w", err)
	}
	if tag.RowsAffected() == 0 {
		return ErrNotFound
	}
	return nil
}

// SetSpec implements Store.
func (p *Postgres) SetSpec(ctx context.Context, id string, old, spec []byte) error {
	tag, err := p.pool.Exec(ctx, `UPDATE cbandit_studies SET spec = $1 WHERE id = $2 AND spec = $3`, spec, id, old)
	if err != nil {
		return fmt.Errorf("store: update study: %w", err)
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
	_, err := p.pool.Exec(ctx, `INSERT INTO cbandit_snapshots (study, seq, data) VALUES ($1, $2, $3)
		ON CONFLICT (study) DO UPDATE SET seq = excluded.seq, data = excluded.data WHERE excluded.seq > cbandit_snapshots.seq`,
		id, sn.Seq, sn.Data)
	var pe *pgconn.PgError
	if errors.As(err, &pe) && pe.Code == "23503" { // foreign key: the study is gone
		return ErrNotFound
	}
	if err != nil {
		return fmt.Errorf("store: save snapshot: %w", err)
	}
	return nil
}

// GetSnapshot implements Store.
func (p *Postgres) GetSnapshot(ctx context.Context, id string) (Snapshot, error) {
	var sn Snapshot
	err := p.pool.QueryRow(ctx, `SELECT seq, data FROM cbandit_snapshots WHERE study = $1`, id).Scan(&sn.Seq, &sn.Data)
	if errors.Is(err, pgx.ErrNoRows) {
		return Snapshot{}, ErrNotFound
	}
	if err != nil {
		return Snapshot{}, fmt.Errorf("store: read snapshot: %w", err)
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
		return nil, fmt.Errorf("store: read log: %w", err)
	}
	defer rows.Close()
	var out []Event
	for rows.Next() {
		var e Event
		if err := rows.Scan(&e.Seq, &e.Kind, &e.Data, &e.Time); err != nil {
			return nil, fmt.Errorf("store: read log: %w", err)
		}
		e.Time = e.Time.UTC()
		out = append(out, e)
	}
	return out, rows.Err()
}

// Events implements Store.
func (p *Postgres) Events(ctx context.Context, id string, after int64) ([]Event, error) {
	var n int64
	err := p.pool.QueryRow(ctx, `SELECT log_len FROM cbandit_studies WHERE id = $1`, id).Scan(&n)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, ErrNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("store: read log: %w", err)
	}
	if after >= n {
		return nil, nil
	}
	return pgEvents(ctx, p.pool, id, after)
}

// Scan implements Store: a page of the log per query, so that no
// connection is held while fn runs.
func (p *Postgres) Scan(ctx context.Context, id string, after int64, fn func(Event) error) error {
	var n int64
	err := p.pool.QueryRow(ctx, `SELECT log_len FROM cbandit_studies WHERE id = $1`, id).Scan(&n)
	if errors.Is(err, pgx.ErrNoRows) {
		return ErrNotFound
	}
	if err != nil {
		return fmt.Errorf("store: read log: %w", err)
	}
	return scanPages(after, n, func(after int64, page []Event) ([]Event, error) {
		rows, err := p.pool.Query(ctx, `SELECT seq, kind, data, at FROM cbandit_events WHERE study = $1 AND seq > $2 AND seq <= $3 ORDER BY seq LIMIT $4`,
			id, after, n, ScanPage)
		if err != nil {
			return nil, err
		}
		defer rows.Close()
		for rows.Next() {
			var e Event
			if err := rows.Scan(&e.Seq, &e.Kind, &e.Data, &e.Time); err != nil {
				return nil, err
			}
			e.Time = e.Time.UTC()
			page = append(page, e)
		}
		return page, rows.Err()
	}, fn)
}

// Update implements Store.
func (p *Postgres) Update(ctx context.Context, id string, known int64, fn UpdateFunc) (int64, error) {
	unlock := p.locks.lock(id)
	defer unlock()
	tx, err := p.pool.Begin(ctx)
	if err != nil {
		return 0, fmt.Errorf("store: begin: %w", err)
	}
	defer tx.Rollback(ctx)
	var n int64
	err = tx.QueryRow(ctx, `SELECT log_len FROM cbandit_studies WHERE id = $1 FOR UPDATE`, id).Scan(&n)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, ErrNotFound
	}
	if err != nil {
		return 0, fmt.Errorf("store: lock study: %w", err)
	}
	if known > n {
		return n, ErrAhead
	}
	var newer []Event
	if known < n {
		if newer, err = pgEvents(ctx, tx, id, known); err != nil {
			return n, err
		}
	}
	evs, err := fn(newer)
	if err != nil || len(evs) == 0 {
		return n, err
	}
	now := AppendTime()
	rows := make([][]any, len(evs))
	for i := range evs {
		evs[i].Seq = n + int64(i) + 1
		evs[i].Time = now
		rows[i] = []any{id, evs[i].Seq, evs[i].Kind, evs[i].Data, now}
	}
	if len(rows) == 1 {
		_, err = tx.Exec(ctx, `INSERT INTO cbandit_events (study, seq, kind, data, at) VALUES ($1, $2, $3, $4, $5)`, rows[0]...)
	} else {
		_, err = tx.CopyFrom(ctx, pgx.Identifier{"cbandit_events"}, []string{"study", "seq", "kind", "data", "at"}, pgx.CopyFromRows(rows))
	}
	if err != nil {
		return n, fmt.Errorf("store: append: %w", err)
	}
	if _, err := tx.Exec(ctx, `UPDATE cbandit_studies SET log_len = $1, asks = asks + $2 WHERE id = $3`,
		n+int64(len(evs)), countAsks(evs), id); err != nil {
		return n, fmt.Errorf("store: append: %w", err)
	}
	if err := tx.Commit(ctx); err != nil {
		return n, fmt.Errorf("store: append: commit: %w", err)
	}
	return n + int64(len(evs)), nil
}
