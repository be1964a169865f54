package store

import (
	"bytes"
	"context"
	"fmt"
	"sort"
	"sync"
)

// Memory is an in-process Store for tests; nothing survives the process.
type Memory struct {
	mu      sync.Mutex
	studies map[string]*memStudy
	locks   keyedMutex
	fault   error // an injected outage (SetFault)
}

type memStudy struct {
	Study
	events []Event
	snap   *Snapshot
}

func init() {
	Register("memory", func(_ context.Context, url string) (Store, error) {
		if url != "memory" && url != "memory:" {
			return nil, fmt.Errorf("store: --db %q: a memory store takes no options (memory:)", url)
		}
		return NewMemory(), nil
	})
}

// NewMemory returns an empty in-memory store.
func NewMemory() *Memory { return &Memory{studies: map[string]*memStudy{}} }

// Kind implements Store.
func (m *Memory) Kind() string { return "memory" }

// Close implements Store.
func (m *Memory) Close() error { return nil }

// Create implements Store.
func (m *Memory) Create(_ context.Context, s Study) error {
	if err := m.failing(); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, o := range m.studies {
		if o.Name == s.Name || o.ID == s.ID {
			return ErrDuplicate
		}
	}
	s.Len, s.Asks = 0, 0
	s.Spec = append([]byte(nil), s.Spec...)
	m.studies[s.ID] = &memStudy{Study: s}
	return nil
}

// Get implements Store.
func (m *Memory) Get(_ context.Context, id string) (Study, error) {
	if err := m.failing(); err != nil {
		return Study{}, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	s, ok := m.studies[id]
	if !ok {
		return Study{}, ErrNotFound
	}
	return s.Study, nil
}

// List implements Store.
func (m *Memory) List(context.Context) ([]Study, error) {
	if err := m.failing(); err != nil {
		return nil, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]Study, 0, len(m.studies))
	for _, s := range m.studies {
		out = append(out, s.Study)
	}
	sort.Slice(out, func(i, j int) bool {
		if !out[i].Created.Equal(out[j].Created) {
			return out[i].Created.Before(out[j].Created)
		}
		return out[i].ID < out[j].ID
	})
	return out, nil
}

// ListPage implements Store.
func (m *Memory) ListPage(ctx context.Context, q ListQuery) ([]Study, error) {
	all, err := m.List(ctx)
	if err != nil {
		return nil, err
	}
	out := []Study{}
	for _, s := range all {
		if (q.Name == "" || s.Name == q.Name) && q.After.Before(s) {
			out = append(out, s)
			if q.Limit > 0 && len(out) == q.Limit {
				break
			}
		}
	}
	return out, nil
}

// Scan implements Store, a page of events at a time under the lock.
func (m *Memory) Scan(ctx context.Context, id string, after int64, fn func(Event) error) error {
	if err := m.failing(); err != nil {
		return err
	}
	m.mu.Lock()
	s, ok := m.studies[id]
	var n int64
	if ok {
		n = int64(len(s.events))
	}
	m.mu.Unlock()
	if !ok {
		return ErrNotFound
	}
	after = max(after, 0)
	for after < n {
		m.mu.Lock()
		end := min(after+ScanPage, n, int64(len(s.events)))
		page := append([]Event(nil), s.events[after:end]...)
		m.mu.Unlock()
		if len(page) == 0 {
			return nil
		}
		for _, e := range page {
			if err := fn(e); err != nil {
				return err
			}
		}
		after = end
	}
	return ctx.Err()
}

// Delete implements Store.
func (m *Memory) Delete(_ context.Context, id string) error {
	if err := m.failing(); err != nil {
		return err
	}
	unlock := m.locks.lock(id)
	defer unlock()
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.studies[id]; !ok {
		return ErrNotFound
	}
	delete(m.studies, id)
	return nil
}

// Events implements Store.
func (m *Memory) Events(_ context.Context, id string, after int64) ([]Event, error) {
	if err := m.failing(); err != nil {
		return nil, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	s, ok := m.studies[id]
	if !ok {
		return nil, ErrNotFound
	}
	if after < 0 {
		after = 0
	}
	if after >= int64(len(s.events)) {
		return nil, nil
	}
	return append([]Event(nil), s.events[after:]...), nil
}

// Update implements Store.
func (m *Memory) Update(ctx context.Context, id string, known int64, fn UpdateFunc) (int64, error) {
	if err := m.failing(); err != nil {
		return 0, err
	}
	unlock := m.locks.lock(id)
	defer unlock()
	m.mu.Lock()
	s, ok := m.studies[id]
	if !ok {
		m.mu.Unlock()
		return 0, ErrNotFound
	}
	n := s.Len
	m.mu.Unlock()
	if known > n {
		return n, ErrAhead
	}
	newer, err := m.Events(ctx, id, known)
	if err != nil {
		return n, err
	}
	evs, err := fn(newer)
	if err != nil || len(evs) == 0 {
		return n, err
	}
	now := AppendTime()
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.fault != nil { // an outage that began while fn ran: nothing appended
		return n, unavailable(m.fault)
	}
	for i := range evs {
		evs[i].Seq = n + int64(i) + 1
		evs[i].Time = now
		evs[i].Data = append([]byte(nil), evs[i].Data...)
	}
	s.events = append(s.events, evs...)
	s.Len += int64(len(evs))
	s.Asks += countAsks(evs)
	return s.Len, nil
}

// SetSpec implements Store.
func (m *Memory) SetSpec(_ context.Context, id string, old, spec []byte) error {
	if err := m.failing(); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	s, ok := m.studies[id]
	if !ok {
		return ErrNotFound
	}
	if !bytes.Equal(s.Spec, old) {
		return ErrConflict
	}
	s.Spec = append([]byte(nil), spec...)
	return nil
}

// PutSnapshot implements Store.
func (m *Memory) PutSnapshot(_ context.Context, id string, sn Snapshot) error {
	if err := m.failing(); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	s, ok := m.studies[id]
	if !ok {
		return ErrNotFound
	}
	if s.snap == nil || sn.Seq > s.snap.Seq {
		s.snap = &Snapshot{Seq: sn.Seq, Data: append([]byte(nil), sn.Data...)}
	}
	return nil
}

// GetSnapshot implements Store.
func (m *Memory) GetSnapshot(_ context.Context, id string) (Snapshot, error) {
	if err := m.failing(); err != nil {
		return Snapshot{}, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	s, ok := m.studies[id]
	if !ok || s.snap == nil {
		return Snapshot{}, ErrNotFound
	}
	return Snapshot{Seq: s.snap.Seq, Data: append([]byte(nil), s.snap.Data...)}, nil
}

// keyedMutex is a set of mutexes by key, created on demand and dropped when
// nobody holds or waits for them.
type keyedMutex struct {
	mu sync.Mutex
	m  map[string]*refMutex
}

type refMutex struct {
	sync.Mutex
	refs int
}

func (k *keyedMutex) lock(key string) (unlock func()) {
	k.mu.Lock()
	if k.m == nil {
		k.m = map[string]*refMutex{}
	}
	r := k.m[key]
	if r == nil {
		r = &refMutex{}
		k.m[key] = r
	}
	r.refs++
	k.mu.Unlock()
	r.Lock()
	return func() {
		r.Unlock()
		k.mu.Lock()
		r.refs--
		if r.refs == 0 {
			delete(k.m, key)
		}
		k.mu.Unlock()
	}
}
