package store

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"
)

// Event kinds written by the service.
const (
	// KindAsk records a decision (the answer to an ask).
	KindAsk = "ask"
	// KindTell records an observation (reward and/or costs).
	KindTell = "tell"
	// KindAbandon records that a pending decision was abandoned.
	KindAbandon = "abandon"
	// KindHorizon records a raised horizon.
	KindHorizon = "horizon"
	// KindEnqueue records a point a person asked to be tried next.
	KindEnqueue = "enqueue"
)

var (
	// ErrNotFound: no study with that ID.
	ErrNotFound = errors.New("store: study not found")
	// ErrDuplicate: a study with that name (or ID) exists.
	ErrDuplicate = errors.New("store: a study with that name exists")
	// ErrConflict: the stored definition is not the one the caller read
	// (a concurrent change).
	ErrConflict = errors.New("store: the study's definition changed meanwhile")
	// ErrAhead: the caller claims to know more events than the log holds
	// (its cache belongs to a deleted and re-created study, or is corrupt).
	ErrAhead = errors.New("store: caller is ahead of the log")
)

// Study is a stored study definition.
type Study struct {
	ID      string
	Name    string
	Spec    []byte // JSON, owned by the service
	Created time.Time
	// Len is the number of events in the log; Asks the number of them of
	// kind KindAsk.
	Len  int64
	Asks int64
}

// Event is one entry of a study's log.
type Event struct {
	// Seq is the 1-based position in the log (assigned by the store).
	Seq  int64
	Kind string
	Data []byte
	// Time is when the event was appended (assigned by the store, UTC, in
	// whole microseconds: AppendTime).
	Time time.Time
}

// AppendTime is the time a store gives the events it appends: now, in UTC,
// truncated to whole microseconds, the precision of PostgreSQL's timestamptz
// (PostgreSQL docs, §8.5), so that a decision's times read the same from the
// replica that wrote them, from any other, and from every backend.
func AppendTime() time.Time { return time.Now().UTC().Truncate(time.Microsecond) }

// Snapshot is a saved state of a study's live agent after the first Seq
// events of its log. Data is owned by the service (which versions,
// checksums and validates it against the log); a store keeps the latest
// snapshot of each study, by Seq.
type Snapshot struct {
	Seq  int64
	Data []byte
}

// Cursor is a position in the list of studies, which is ordered by
// creation time, then ID: a page starts after it.
type Cursor struct {
	Created time.Time
	ID      string
}

// ListQuery selects a page of studies.
type ListQuery struct {
	// After: only studies after this position (zero: from the first).
	After Cursor
	// Limit: at most this many studies (≤ 0: all).
	Limit int
	// Name: only the study of that name (empty: every study).
	Name string
}

// Before reports whether cursor c comes before study s in the list order
// (s belongs to the page after c).
func (c Cursor) Before(s Study) bool {
	if c.Created.IsZero() && c.ID == "" {
		return true
	}
	if !s.Created.Equal(c.Created) {
		return s.Created.After(c.Created)
	}
	return s.ID > c.ID
}

// ScanPage is the number of events a store reads from its log at a time
// in Scan: a restore holds one page of the log in memory, not the log.
const ScanPage = 1000

// scanPages calls fn on the events after `after` up to n, a page at a time:
// page appends to its argument at most ScanPage events that follow a
// sequence number (a query closed before it returns, so that no
// connection is held while fn runs); an empty page ends the scan (the
// study was deleted meanwhile).
func scanPages(after, n int64, page func(after int64, dst []Event) ([]Event, error), fn func(Event) error) error {
	buf := make([]Event, 0, min(ScanPage, max(n-after, 0)))
	for after < n {
		var err error
		if buf, err = page(after, buf[:0]); err != nil {
			return fmt.Errorf("store: read log: %w", err)
		}
		if len(buf) == 0 {
			return nil
		}
		for _, e := range buf {
			if err := fn(e); err != nil {
				return err
			}
		}
		after = buf[len(buf)-1].Seq
	}
	return nil
}

// UpdateFunc receives the events appended after the caller's known length,
// applies them, acts, and returns the events to append (Seq and Time are
// filled in by the store). Returning an error appends nothing.
type UpdateFunc func(newer []Event) ([]Event, error)

// Store is the durable log of studies. Implementations are safe for
// concurrent use.
type Store interface {
	// Create stores a new study with an empty log.
	Create(ctx context.Context, s Study) error
	// Get returns a study (ErrNotFound).
	Get(ctx context.Context, id string) (Study, error)
	// List returns every study, oldest first.
	List(ctx context.Context) ([]Study, error)
	// ListPage returns the studies q selects, oldest first.
	ListPage(ctx context.Context, q ListQuery) ([]Study, error)
	// Delete removes a study and its log (ErrNotFound).
	Delete(ctx context.Context, id string) error
	// Events returns the events with Seq > after, in order (ErrNotFound).
	Events(ctx context.Context, id string, after int64) ([]Event, error)
	// Scan calls fn with the events with Seq > after, in order, up to the
	// log's length when Scan starts, reading the log ScanPage events at a
	// time (ErrNotFound). An error of fn stops the scan and is returned.
	// fn runs outside any lock of the store and may take its time.
	Scan(ctx context.Context, id string, after int64, fn func(Event) error) error
	// Update runs fn under the study's writer lock with the events after
	// known, then appends what fn returns atomically. It returns the log
	// length afterwards.
	Update(ctx context.Context, id string, known int64, fn UpdateFunc) (int64, error)
	// SetSpec replaces the study's definition old by spec (ErrConflict
	// when the stored one is not old; ErrNotFound).
	SetSpec(ctx context.Context, id string, old, spec []byte) error
	// PutSnapshot stores s as the study's snapshot unless the stored one is
	// at least as recent (a larger or equal Seq); ErrNotFound for no study.
	PutSnapshot(ctx context.Context, id string, s Snapshot) error
	// GetSnapshot returns the study's latest snapshot (ErrNotFound when it
	// has none).
	GetSnapshot(ctx context.Context, id string) (Snapshot, error)
	// Kind names the backend ("sqlite", "postgres", "memory").
	Kind() string
	Close() error
}

// Opener opens a backend's store from the whole URL given to Open.
type Opener func(ctx context.Context, url string) (Store, error)

var (
	registryMu sync.RWMutex
	registry   = map[string]Opener{}
)

// Register makes a backend available to Open under a URL scheme (the part
// of the URL before its first ':'), as database/sql's drivers register by
// name: a backend is one file whose init calls Register. Register panics
// when the scheme is empty or already taken.
func Register(scheme string, open Opener) {
	registryMu.Lock()
	defer registryMu.Unlock()
	if scheme == "" || open == nil {
		panic("store: Register needs a scheme and an opener")
	}
	if _, dup := registry[scheme]; dup {
		panic("store: Register called twice for scheme " + scheme)
	}
	registry[scheme] = open
}

// Schemes returns the registered URL schemes, sorted.
func Schemes() []string {
	registryMu.RLock()
	defer registryMu.RUnlock()
	return slices.Sorted(maps.Keys(registry))
}

// Open opens a store from a URL, by the backend registered for its scheme:
// "sqlite:FILE[?sync=full]", "postgres://…" (or "postgresql://…"), or
// "memory:".
func Open(ctx context.Context, url string) (Store, error) {
	scheme, _, _ := strings.Cut(url, ":")
	registryMu.RLock()
	open := registry[scheme]
	registryMu.RUnlock()
	if open == nil {
		return nil, fmt.Errorf("store: --db %q: want sqlite:FILE, postgres://… or memory: (the schemes registered: %s)", url, strings.Join(Schemes(), ", "))
	}
	return open(ctx, url)
}

// countAsks counts the events of kind KindAsk.
func countAsks(evs []Event) int64 {
	n := int64(0)
	for _, e := range evs {
		if e.Kind == KindAsk {
			n++
		}
	}
	return n
}
