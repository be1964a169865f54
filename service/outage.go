// Outages of the store: the store's errors counted as they arise, /healthz (does the store answer?) and /livez (does the process run?).

package service

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/cbandit/cbandit/service/api"
	"github.com/cbandit/cbandit/store"
)

// HealthTimeout bounds the query /healthz sends the store.
const HealthTimeout = time.Second

// observedStore counts the errors of a store classified unavailable
// (cbandit_store_unavailable_total) as the service meets them.
type observedStore struct {
	store.Store
	m *metrics
}

func (o observedStore) seen(err error) error {
	if errors.Is(err, store.ErrUnavailable) {
		o.m.storeUnavailable.Add(1)
	}
	return err
}

func (o observedStore) Create(ctx context.Context, st store.Study) error {
	return o.seen(o.Store.Create(ctx, st))
}

func (o observedStore) Get(ctx context.Context, id string) (store.Study, error) {
	st, err := o.Store.Get(ctx, id)
	return st, o.seen(err)
}

func (o observedStore) List(ctx context.Context) ([]store.Study, error) {
	l, err := o.Store.List(ctx)
	return l, o.seen(err)
}

func (o observedStore) ListPage(ctx context.Context, q store.ListQuery) ([]store.Study, error) {
	l, err := o.Store.ListPage(ctx, q)
	return l, o.seen(err)
}

func (o observedStore) Delete(ctx context.Context, id string) error {
	return o.seen(o.Store.Delete(ctx, id))
}

func (o observedStore) Events(ctx context.Context, id string, after int64) ([]store.Event, error) {
	evs, err := o.Store.Events(ctx, id, after)
	return evs, o.seen(err)
}

func (o observedStore) Scan(ctx context.Context, id string, after int64, fn func(store.Event) error) error {
	return o.seen(o.Store.Scan(ctx, id, after, fn))
}

func (o observedStore) Update(ctx context.Context, id string, known int64, fn store.UpdateFunc) (int64, error) {
	n, err := o.Store.Update(ctx, id, known, fn)
	return n, o.seen(err)
}

func (o observedStore) SetSpec(ctx context.Context, id string, old, spec []byte) error {
	return o.seen(o.Store.SetSpec(ctx, id, old, spec))
}

func (o observedStore) PutSnapshot(ctx context.Context, id string, sn store.Snapshot) error {
	return o.seen(o.Store.PutSnapshot(ctx, id, sn))
}

func (o observedStore) GetSnapshot(ctx context.Context, id string) (store.Snapshot, error) {
	sn, err := o.Store.GetSnapshot(ctx, id)
	return sn, o.seen(err)
}

// Ping implements store.Pinger.
func (o observedStore) Ping(ctx context.Context) error { return o.seen(store.Ping(ctx, o.Store)) }

// healthz answers whether the store answers a cheap query within
// HealthTimeout: 200, or 503 with a reason (the cause is in the log, the
// answer names none of the store's details) and Retry-After.
func (s *Server) healthz(w http.ResponseWriter, r *http.Request) error {
	ctx, cancel := context.WithTimeout(r.Context(), HealthTimeout)
	defer cancel()
	err := store.Ping(ctx, s.st)
	if err == nil {
		return writeJSON(w, http.StatusOK, api.Health{Status: "ok", Store: s.st.Kind()})
	}
	if r.Context().Err() != nil {
		return r.Context().Err() // the probe went away
	}
	var reason string
	switch {
	case ctx.Err() != nil:
		reason = "the store did not answer within " + HealthTimeout.String()
	case errors.Is(err, store.ErrUnavailable):
		reason = "the store is unavailable (unreachable, restarting, or out of space)"
	default:
		reason = "the store answered with an error"
	}
	s.log.Warn("health check: the store does not answer", "store", s.st.Kind(), "err", err)
	s.metrics.unavailableAnswers.Add(1)
	w.Header().Set("Retry-After", retryAfter)
	return writeJSON(w, http.StatusServiceUnavailable, api.Health{Status: "unavailable", Store: s.st.Kind(), Reason: reason})
}

// livez answers 200 while the process serves HTTP, whatever the store's
// state: a supervisor restarts the process on its failure, a load balancer
// routes by /healthz.
func (s *Server) livez(w http.ResponseWriter, r *http.Request) error {
	return writeJSON(w, http.StatusOK, api.Health{Status: "ok", Store: s.st.Kind()})
}
