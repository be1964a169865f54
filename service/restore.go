// A study's live state: the cache with single-flight restore from the store (snapshot or log replay), the study's lock, and commits to its log.

package service

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/cbandit/cbandit/store"
)

// load returns the live study, restoring it on a cache miss: one restore per
// study at a time (single flight); concurrent requests wait for it.
func (s *Server) load(ctx context.Context, id string) (*live, error) {
	if l := s.cache.get(id); l != nil {
		return l, nil
	}
	s.flightMu.Lock()
	if l := s.cache.get(id); l != nil {
		s.flightMu.Unlock()
		return l, nil
	}
	f := s.flights[id]
	if f == nil {
		f = &flight{done: make(chan struct{})}
		s.flights[id] = f
		s.flightMu.Unlock()
		func() {
			defer func() {
				if p := recover(); p != nil { // waiters must not hang
					f.l, f.err = nil, internal(fmt.Errorf("study %s: restore failed: %v", id, p))
				}
				s.flightMu.Lock()
				delete(s.flights, id)
				s.flightMu.Unlock()
				close(f.done)
			}()
			// The restore is not tied to the request that started it: the
			// others wait for it too.
			f.l, f.err = s.restore(context.WithoutCancel(ctx), id)
			if f.err == nil {
				f.l.measureN = -measureEvery // measure it now
				s.maybeMeasure(f.l)
				f.l = s.cache.put(f.l, f.l.weight())
			}
		}()
		return f.l, f.err
	}
	s.flightMu.Unlock()
	s.metrics.restoreWaits.Add(1)
	select {
	case <-f.done:
		return f.l, f.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// restore rebuilds a study from the store: from its latest snapshot and the
// log after it when the snapshot is valid, else by replaying the whole log.
func (s *Server) restore(ctx context.Context, id string) (*live, error) {
	start := time.Now()
	rec, err := s.st.Get(ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		return nil, studyNotFound(id)
	}
	if err != nil {
		return nil, err
	}
	if rec, err = s.migrated(ctx, rec); err != nil {
		return nil, err
	}
	// The log is read a page at a time (store.Scan): a restore holds the
	// study's state, not its log.
	if rec.Len > 0 && s.opt.SnapshotEvery >= 0 {
		l, err := s.fromSnapshot(ctx, rec)
		if err == nil {
			s.metrics.snapshotRestores.Add(1)
			s.metrics.replayed.Add(uint64(l.n - l.snapN))
			s.metrics.restore.observe(time.Since(start).Seconds())
			return l, nil
		}
		if errors.Is(err, store.ErrNotFound) {
			return nil, studyNotFound(id)
		}
		if !errors.Is(err, errNoSnapshot) {
			s.metrics.snapshotRejected.Add(1)
			s.log.Warn("snapshot ignored: replaying the whole log", "study", id, "err", err)
		}
	}
	l, err := newLive(rec, s.metrics)
	if err != nil {
		return nil, err
	}
	err = s.replayAll(ctx, l, false)
	var dv *divergedError
	if errors.As(err, &dv) {
		return s.restoreReadOnly(ctx, rec, dv, err)
	}
	if err != nil {
		return nil, err
	}
	if err := l.ensureAgent(); err != nil {
		return nil, err
	}
	s.metrics.replays.Add(1)
	s.metrics.replayed.Add(uint64(l.n))
	s.metrics.restore.observe(time.Since(start).Seconds())
	// A study replayed at length gets a snapshot now rather than at its
	// next multiple of SnapshotEvery.
	l.mu.Lock()
	s.maybeSnapshot(l)
	l.mu.Unlock()
	return l, nil
}

// restoreReadOnly rebuilds a study whose log this build's algorithm does not
// replay (cause): its decisions, observations and keys, without an agent.
// It stays readable and takes observations; asks and imposed points are
// refused with the reason, for the operator to serve it with the release
// that wrote it. Nothing of the log is lost or rewritten.
func (s *Server) restoreReadOnly(ctx context.Context, rec store.Study, dv *divergedError, cause error) (*live, error) {
	s.log.Error("study served read-only: this build does not replay its log", "study", rec.ID, "err", cause)
	l, err := newLive(rec, s.metrics)
	if err != nil {
		return nil, err
	}
	l.readOnly = conflict("study_read_only", "algorithm",
		"study %s was written by another release of algorithm %q: replaying its log, this server's build decides otherwise at decision %d. Its decisions and observations are kept, can be read and take observations, but it makes no new decision here: serve it with the release that wrote it",
		rec.ID, l.spec.Algorithm, dv.id)
	if err := s.replayAll(ctx, l, true); err != nil {
		return nil, err
	}
	s.metrics.replays.Add(1)
	s.metrics.replayed.Add(uint64(l.n))
	return l, nil
}

// replayAll applies the study's whole log to l, a page at a time
// (store.Scan); light: without running the agent (applyAll).
func (s *Server) replayAll(ctx context.Context, l *live, light bool) error {
	err := s.st.Scan(ctx, l.id, 0, func(ev store.Event) error { return l.applyEvent(ev, light) })
	if errors.Is(err, store.ErrNotFound) {
		return studyNotFound(l.id)
	}
	return err
}

// withStudy runs fn on the live study under its lock. When sync is set the
// study first catches up on events appended by other replicas.
func (s *Server) withStudy(ctx context.Context, id string, sync bool, fn func(l *live) error) error {
	for attempt := 0; ; attempt++ {
		l, err := s.load(ctx, id)
		if err != nil {
			return err
		}
		l.mu.Lock()
		if l.stale {
			l.mu.Unlock()
			s.cache.remove(l)
			if attempt < 3 {
				continue
			}
			return internal(fmt.Errorf("study %s: could not be rebuilt", id))
		}
		if sync {
			evs, err := s.st.Events(ctx, id, l.n)
			if errors.Is(err, store.ErrUnavailable) {
				l.mu.Unlock() // nothing applied: the live study stays as it was
				return err
			}
			if err == nil {
				s.metrics.replayed.Add(uint64(len(evs)))
				err = l.applyAll(evs, false)
			}
			if err != nil {
				l.stale = true
				s.cache.remove(l)
				l.mu.Unlock()
				if errors.Is(err, store.ErrNotFound) {
					return studyNotFound(id)
				}
				return err
			}
		}
		err = fn(l)
		l.mu.Unlock()
		return err
	}
}

// update runs act under the store's study lock after catching up; act
// returns the events to append. On any failure after the agent may have
// moved, the live study is dropped (rebuilt from the log next time).
func (s *Server) update(ctx context.Context, l *live, act func() ([]store.Event, error)) ([]store.Event, error) {
	moved := false
	var out []store.Event
	_, err := s.st.Update(ctx, l.id, l.n, func(newer []store.Event) ([]store.Event, error) {
		if len(newer) > 0 {
			s.metrics.replayed.Add(uint64(len(newer)))
			if err := l.applyAll(newer, false); err != nil {
				moved = true
				return nil, err
			}
		}
		evs, err := act()
		moved = moved || len(evs) > 0
		out = evs
		return evs, err
	})
	if err != nil {
		// The live study is dropped when the agent moved, or on an
		// unexpected error; an outage before fn ran left it as it was.
		var ae *apiError
		if moved || !(errors.As(err, &ae) || errors.Is(err, store.ErrUnavailable)) {
			l.stale = true
			s.cache.remove(l)
		}
		if errors.Is(err, store.ErrNotFound) {
			return nil, studyNotFound(l.id)
		}
		return nil, err
	}
	for _, ev := range out {
		l.appended(ev)
	}
	s.maybeSnapshot(l)
	s.maybeMeasure(l)
	if len(out) > 0 {
		s.cache.reweigh(l, l.weight())
	}
	return out, nil
}

// newEvent encodes v as a log event of the given kind. A value JSON cannot
// hold (a NaN) is the server's fault: the error is not an *apiError, so
// update drops the live study it changed, nothing is appended, and the
// answer is a 500.
func newEvent(kind string, v any) (store.Event, error) {
	data, err := json.Marshal(v)
	if err != nil {
		return store.Event{}, fmt.Errorf("encode a %s event: %w", kind, err)
	}
	return store.Event{Kind: kind, Data: data}, nil
}
