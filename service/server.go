package service

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	_ "embed"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/cbandit/cbandit/agent"
	"github.com/cbandit/cbandit/bandit"
	"github.com/cbandit/cbandit/service/api"
	"github.com/cbandit/cbandit/service/ui"
	"github.com/cbandit/cbandit/store"
)

//go:embed openapi.json
var openapiDoc []byte

// Defaults of Options.
const (
	DefaultMaxBodyBytes = 1 << 20
	DefaultCacheSize    = 256
	DefaultCacheBytes   = 2 << 30
	MaxSuggestions      = 100
	MaxPageSize         = 1000
	// DefaultSnapshotEvery is the number of log events between snapshots
	// of a study's agent: a restart replays at most this many events with
	// the agent (the prefix is read back without it). Measured with
	// cbandit-load (100 ckb-ucb studies of 256 candidates, 300 rounds
	// each): snapshots every 200 events cost 0.60 ms of CPU per round
	// against 0.37–0.44 ms without, every 1000 events 0.41 ms; the time
	// trigger (DefaultSnapshotCost) bounds the restore of expensive agents.
	DefaultSnapshotEvery = 1000
	// DefaultSnapshotCost is the agent time between snapshots: with it a
	// restore repeats at most about this much agent work.
	DefaultSnapshotCost = 250 * time.Millisecond
	// MaxIdempotencyKey is the longest Idempotency-Key accepted (bytes).
	MaxIdempotencyKey = 255
	// DefaultMaxDecisions is the default limit on a study's decisions
	// (Options.MaxDecisions): a study at the limit holds about 30 MB in
	// memory (its decisions and their bookkeeping) and restarts from its
	// snapshot in well under a second; see TestStudyLimits.
	DefaultMaxDecisions = 100_000
	// DefaultMaxStudyBytes is the default memory limit of one study
	// (Options.MaxStudyBytes): a quarter of the default cache, so four
	// studies at the limit stay live. A GP over a 2-D native box with one
	// constraint reaches it near 6,900 points in one run (about 10.7·t²
	// bytes; 70 ms per round there).
	DefaultMaxStudyBytes = 512 << 20
	// DefaultSnapshotQueueBytes is the default bound of the snapshots
	// waiting to be written (Options.SnapshotQueueBytes).
	DefaultSnapshotQueueBytes = 256 << 20
	// DefaultMaxAskTime is the default agent time an ask may take
	// (Options.MaxAskTime): below the 60 s write timeout of cbandit serve,
	// after which no answer reaches the client anyway.
	DefaultMaxAskTime = 30 * time.Second
)

// Options configure a Server.
type Options struct {
	// Token, when set, is the bearer token every endpoint but /healthz
	// requires (Authorization: Bearer TOKEN).
	Token string
	// MaxBodyBytes limits request bodies (default 1 MiB).
	MaxBodyBytes int64
	// CacheSize is the number of studies kept live in memory (default 256);
	// others are rebuilt from their log on use.
	CacheSize int
	// CacheBytes bounds the estimated memory of the live studies (default
	// 2 GiB; a study over N points with m constraints counts 16·(m+1)·N²
	// bytes).
	CacheBytes int64
	// SnapshotEvery is the number of log events between snapshots of a
	// study's agent (default DefaultSnapshotEvery; negative: no snapshots,
	// every restore replays the whole log).
	SnapshotEvery int
	// SnapshotCost also takes a snapshot once the agent has spent that
	// much time deciding and observing since the last one (default
	// DefaultSnapshotCost; negative: only SnapshotEvery counts): it bounds
	// the agent work a restore repeats when each round is expensive.
	SnapshotCost time.Duration
	// PendingTTL, when positive, abandons a decision that has waited that
	// long for its observations: at the next ask of the study, an abandon
	// event is logged for it (default 0: decisions wait forever, or until
	// DELETE /studies/{id}/decisions/{did}).
	PendingTTL time.Duration
	// MaxDecisions limits the decisions of a study, all epochs and horizons
	// together (default DefaultMaxDecisions; negative: no limit). An ask
	// beyond it is a 409 with code "decision_limit".
	MaxDecisions int
	// MaxStudyBytes limits the memory a study holds — its agent's state
	// as measured (snap.Size, at each snapshot or every SnapshotEvery
	// events or SnapshotCost of agent time) and its decisions — (default
	// DefaultMaxStudyBytes; negative: no limit). Asks to a study beyond it
	// are refused (409, code "model_limit"): a model that grows with its
	// data (a GP over a native box: memory and time per round ∝ t²) cannot
	// take the process's memory.
	MaxStudyBytes int64
	// SnapshotQueueBytes bounds the snapshots waiting to be written
	// (default DefaultSnapshotQueueBytes; one snapshot of any size is
	// always let in): a newer snapshot of a study replaces its queued one,
	// one that does not fit is skipped (cbandit_snapshots_skipped_total).
	SnapshotQueueBytes int64
	// MaxAskCount limits the count of an ask (default MaxSuggestions).
	MaxAskCount int
	// MaxAskTime limits the agent time of one ask (default
	// DefaultMaxAskTime; negative: no limit): an ask for several decisions
	// that is still deciding after it stops before its next decision and
	// is refused (422, code "ask_time_limit"); its decisions are not
	// committed. One decision is always completed (an agent's Decide is
	// not interrupted).
	MaxAskTime time.Duration
	// AllowedHosts extends, for a server without a token, the Host names
	// it answers beyond the loopback ones (localhost, 127.0.0.0/8, [::1]):
	// a name or IP ("cbandit.internal"), ".example.com" for a domain and
	// its subdomains, or "*" for any (ports are not compared). Requests to
	// other names are refused (403, field "Host"): DNS rebinding.
	AllowedHosts []string
	// AllowedOrigins lists the browser origins ("https://app.example.com")
	// besides the server's own whose requests are taken, and answered with
	// CORS headers ("*": any). Without a token, a request with another
	// Origin is refused (403, field "Origin").
	AllowedOrigins []string
	// Version names the build in snapshot metas and logs (cbandit serve
	// sets its version); snapshots are not tied to it.
	Version string
	// Logger receives server errors (default: slog.Default()).
	Logger *slog.Logger
}

// Server is the ask/tell HTTP API over a Store. It is an http.Handler.
type Server struct {
	st      store.Store
	opt     Options
	cache   *cache
	metrics *metrics
	mux     *http.ServeMux
	log     *slog.Logger
	hosts   hostPolicy
	origins originPolicy

	flightMu sync.Mutex
	flights  map[string]*flight // restores under way, by study

	snapQ    *snapQueue
	snapDone chan struct{}
}

// flight is one restore of a study that concurrent requests wait for.
type flight struct {
	done chan struct{}
	l    *live
	err  error
}

// New returns a server over st.
func New(st store.Store, opt Options) *Server {
	if opt.MaxBodyBytes <= 0 {
		opt.MaxBodyBytes = DefaultMaxBodyBytes
	}
	if opt.CacheSize <= 0 {
		opt.CacheSize = DefaultCacheSize
	}
	if opt.CacheBytes <= 0 {
		opt.CacheBytes = DefaultCacheBytes
	}
	if opt.SnapshotEvery == 0 {
		opt.SnapshotEvery = DefaultSnapshotEvery
	}
	if opt.SnapshotCost == 0 {
		opt.SnapshotCost = DefaultSnapshotCost
	}
	if opt.SnapshotQueueBytes <= 0 {
		opt.SnapshotQueueBytes = DefaultSnapshotQueueBytes
	}
	if opt.MaxStudyBytes == 0 {
		opt.MaxStudyBytes = DefaultMaxStudyBytes
	}
	if opt.MaxDecisions == 0 {
		opt.MaxDecisions = DefaultMaxDecisions
	}
	if opt.MaxAskCount <= 0 {
		opt.MaxAskCount = MaxSuggestions
	}
	if opt.MaxAskTime == 0 {
		opt.MaxAskTime = DefaultMaxAskTime
	}
	s := &Server{st: st, opt: opt, cache: newCache(opt.CacheSize, opt.CacheBytes), metrics: newMetrics(), log: opt.Logger,
		flights: map[string]*flight{}, snapQ: newSnapQueue(opt.SnapshotQueueBytes), snapDone: make(chan struct{})}
	if s.log == nil {
		s.log = slog.Default()
	}
	s.hosts, s.origins = newHostPolicy(opt.AllowedHosts), newOriginPolicy(opt.AllowedOrigins)
	s.metrics.cached = s.cache.len
	s.metrics.cachedBytes = s.cache.size
	s.metrics.snapshotQueued = s.snapQ.size
	go s.snapshotWriter()
	mux := http.NewServeMux()
	handle := func(pattern string, h func(w http.ResponseWriter, r *http.Request) error) {
		mux.Handle(pattern, s.wrap(h))
	}
	handle("GET /healthz", s.healthz)
	handle("GET /openapi.json", s.openapi)
	handle("GET /metrics", s.metricsHandler)
	handle("POST /studies", s.createStudy)
	handle("GET /studies", s.listStudies)
	handle("GET /studies/{id}", s.getStudy)
	handle("PATCH /studies/{id}", s.patchStudy)
	handle("DELETE /studies/{id}", s.deleteStudy)
	handle("DELETE /studies/{id}/decisions/{did}", s.abandonDecision)
	handle("POST /studies/{id}/suggestions", s.suggest)
	handle("POST /studies/{id}/observations", s.observe)
	handle("POST /studies/{id}/enqueue", s.enqueue)
	handle("POST /studies/{id}/trials", s.addTrial)
	handle("GET /studies/{id}/decisions", s.decisions)
	handle("GET /studies/{id}/decisions.csv", s.decisionsCSV)
	handle("GET /studies/{id}/summary", s.summary)
	// The dashboard's assets hold no data and need no token: its page asks
	// for the token and sends it with each API call (package ui).
	assets := ui.Handler()
	handle("GET /ui/", func(w http.ResponseWriter, r *http.Request) error {
		assets.ServeHTTP(w, r)
		return nil
	})
	handle("GET /ui", func(w http.ResponseWriter, r *http.Request) error {
		http.Redirect(w, r, ui.Prefix, http.StatusMovedPermanently)
		return nil
	})
	handle("GET /{$}", func(w http.ResponseWriter, r *http.Request) error {
		http.Redirect(w, r, ui.Prefix, http.StatusFound)
		return nil
	})
	mux.Handle("/", s.wrap(func(w http.ResponseWriter, r *http.Request) error {
		return &apiError{status: http.StatusNotFound, code: "not_found", field: "path",
			msg: fmt.Sprintf("no endpoint %s %s (see /openapi.json)", clip(r.Method, 32), clip(r.URL.Path, 200))}
	}))
	s.mux = mux
	return s
}

// Close waits for the snapshots queued so far to be written; the server
// must not serve requests afterwards.
func (s *Server) Close() {
	s.snapQ.close()
	<-s.snapDone
}

// ServeHTTP implements http.Handler.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.mux.ServeHTTP(w, r) }

type statusWriter struct {
	http.ResponseWriter
	code int
}

func (w *statusWriter) WriteHeader(code int) {
	if w.code == 0 {
		w.code = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.code == 0 {
		w.code = http.StatusOK
	}
	return w.ResponseWriter.Write(b)
}

// wrap adds authentication, the body limit, error answers, panic recovery
// and metrics to a handler.
func (s *Server) wrap(h func(w http.ResponseWriter, r *http.Request) error) http.Handler {
	return http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		start := time.Now()
		w := &statusWriter{ResponseWriter: rw}
		route := r.Pattern
		if route == "/" || route == "" {
			route = "other"
		}
		defer func() {
			p := recover()
			if p == http.ErrAbortHandler { // an answer cut short on purpose
				s.metrics.request(route, r.Method, w.code, time.Since(start).Seconds())
				panic(p)
			}
			if p != nil {
				s.log.Error("panic in handler", "route", route, "panic", p)
				if w.code == 0 {
					writeError(w, internal(fmt.Errorf("internal error")))
				}
			}
			code := w.code
			if code == 0 {
				code = http.StatusOK
			}
			s.metrics.request(route, r.Method, code, time.Since(start).Seconds())
		}()
		if s.cors(w, r) {
			return // a preflight from an allowed origin
		}
		if s.opt.Token == "" {
			if e := s.guard(r); e != nil {
				s.metrics.refused(e.code)
				writeError(w, e)
				return
			}
		}
		if s.opt.Token != "" && !public(r.URL.Path) && !s.authorized(r) {
			w.Header().Set("WWW-Authenticate", `Bearer realm="cbandit"`)
			writeError(w, &apiError{status: http.StatusUnauthorized, code: "unauthenticated", field: "Authorization",
				msg: "missing or wrong bearer token"})
			return
		}
		r.Body = http.MaxBytesReader(w, r.Body, s.opt.MaxBodyBytes)
		if err := h(w, r); err != nil {
			if answerBegun(s, w, route, err) {
				return
			}
			var ae *apiError
			switch {
			case errors.As(err, &ae):
			case r.Context().Err() != nil && (errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)):
				// The client went away while the store worked for it.
				ae = &apiError{status: 499, code: "client_gone", field: "body", msg: "the client closed the request"}
			default:
				ae = internal(err)
			}
			if ae.status >= 500 {
				s.log.Error("request failed", "route", route, "err", err)
			}
			writeError(w, ae)
		}
	})
}

// public reports whether a path is served without a token: /healthz, the
// dashboard's assets and the redirects to them.
func public(path string) bool {
	return path == "/healthz" || path == "/" || path == "/ui" || strings.HasPrefix(path, ui.Prefix)
}

// authorized checks the bearer token. The scheme is matched without regard
// to case and may be followed by several spaces (RFC 7235 §2.1, RFC 6750
// §2.1); the token itself is compared in constant time.
func (s *Server) authorized(r *http.Request) bool {
	scheme, tok, ok := strings.Cut(strings.TrimSpace(r.Header.Get("Authorization")), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return false
	}
	tok = strings.TrimLeft(tok, " ")
	return subtle.ConstantTimeCompare([]byte(tok), []byte(s.opt.Token)) == 1
}

// writeJSON encodes v before it writes the status, so that a value that
// cannot be encoded is an error answer, never a 2xx with a broken body.
func writeJSON(w http.ResponseWriter, status int, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("encoding the answer: %w", err)
	}
	jsonHeaders(w.Header())
	w.WriteHeader(status)
	_, err = w.Write(append(b, '\n'))
	return err
}

// jsonHeaders marks an answer as JSON that no browser may sniff as
// something else and no cache may keep (OWASP REST Security Cheat Sheet,
// "Security headers": the API answers carry data, which may be private).
func jsonHeaders(h http.Header) {
	h.Set("Content-Type", "application/json")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Cache-Control", "no-store")
}

func writeError(w http.ResponseWriter, e *apiError) {
	jsonHeaders(w.Header())
	w.WriteHeader(e.status)
	json.NewEncoder(w).Encode(e.body())
}

func (s *Server) healthz(w http.ResponseWriter, r *http.Request) error {
	return writeJSON(w, http.StatusOK, api.Health{Status: "ok", Store: s.st.Kind()})
}

func (s *Server) openapi(w http.ResponseWriter, r *http.Request) error {
	jsonHeaders(w.Header())
	_, err := w.Write(openapiDoc)
	return err
}

func (s *Server) metricsHandler(w http.ResponseWriter, r *http.Request) error {
	w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.Header().Set("Cache-Control", "no-store")
	s.metrics.write(w)
	return nil
}

func newStudyID() string {
	var b [8]byte
	rand.Read(b[:])
	return "s-" + hex.EncodeToString(b[:])
}

// decodeStudy decodes and validates a study definition (also the fuzz
// target's entry point).
func decodeStudy(body []byte) (api.StudySpec, *built, *apiError) {
	var spec api.StudySpec
	if body == nil {
		return spec, nil, invalid("body", "a study definition is required")
	}
	if e := decodeJSON(body, &spec); e != nil {
		return spec, nil, e
	}
	if spec.Defaults == 0 {
		spec.Defaults = api.DefaultsPractical
	}
	if spec.Defaults < 1 || spec.Defaults > api.DefaultsPractical {
		return spec, nil, invalid("defaults", "= %d: must be from 1 (the papers' settings) to %d (the current practical defaults), or absent", spec.Defaults, api.DefaultsPractical)
	}
	if e := resolveAlgorithm(&spec); e != nil {
		return spec, nil, e
	}
	// A box with neither native nor candidates given is optimised as a box
	// by an algorithm whose declaration takes one (nativeByDefault); the
	// others get the candidate set.
	if as, err := agent.Lookup(spec.Algorithm); err == nil && as.Can.Takes(agent.DomainBox) &&
		!spec.Space.Native && nativeByDefault(&spec) && (len(spec.Parameters) == 0 || spec.Space.Type == "") {
		spec.Space.Native = true
	}
	if e := normalize(&spec); e != nil {
		return spec, nil, e
	}
	migrateSpec(&spec) // an earlier generation asked for: its choices explicit
	b, e := build(&spec)
	if e != nil {
		return spec, nil, e
	}
	if _, e := b.newAgent(&spec, firstEpoch(&spec), spec.Seed); e != nil {
		return spec, nil, e
	}
	return spec, b, nil
}

func (s *Server) createStudy(w http.ResponseWriter, r *http.Request) error {
	resume, e := wantsResume(r)
	if e != nil {
		return e
	}
	body, e := readBody(r)
	if e != nil {
		return e
	}
	spec, _, e := decodeStudy(body)
	if e != nil {
		return e
	}
	raw, err := json.Marshal(spec)
	if err != nil {
		return err
	}
	rec := store.Study{ID: newStudyID(), Name: spec.Name, Spec: raw, Created: time.Now().UTC().Truncate(time.Microsecond)}
	if err := s.st.Create(r.Context(), rec); err != nil {
		if errors.Is(err, store.ErrDuplicate) && resume {
			return s.resumeStudy(w, r, spec)
		}
		if errors.Is(err, store.ErrDuplicate) {
			return conflict("duplicate_name", "name", "a study named %q exists", spec.Name)
		}
		return err
	}
	w.Header().Set("Location", "/studies/"+rec.ID)
	return writeJSON(w, http.StatusCreated, api.Study{ID: rec.ID, Created: rec.Created, Spec: spec})
}

func studyOf(rec store.Study) (api.Study, error) {
	st := api.Study{ID: rec.ID, Created: rec.Created, Rounds: int(rec.Asks)}
	if err := json.Unmarshal(rec.Spec, &st.Spec); err != nil {
		return st, fmt.Errorf("study %s: stored definition: %w", rec.ID, err)
	}
	return st, nil
}

// DefaultStudyPage is the default page size of GET /studies.
const DefaultStudyPage = 50

// listStudies answers GET /studies a page at a time (?limit=, default
// DefaultStudyPage, at most MaxPageSize; ?after= the "next" of the previous
// page), oldest first; "next" and a Link header (RFC 8288, rel="next") name
// the following page.
func (s *Server) listStudies(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	name, byName := q.Get("name"), q.Has("name")
	if byName {
		if e := checkName("name", name); e != nil {
			return e
		}
	}
	limit := DefaultStudyPage
	if v := q.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > MaxPageSize {
			return invalid("limit", "= %q: must be an integer in [1, %d]", clip(v, 40), MaxPageSize)
		}
		limit = n
	}
	var after store.Cursor
	if v := q.Get("after"); v != "" {
		c, ok := parseCursor(v)
		if !ok {
			return invalid("after", "= %q: not a cursor of this API (use the \"next\" of the previous page)", clip(v, 80))
		}
		after = c
	}
	// One more than the page: whether there is a next page.
	recs, err := s.st.ListPage(r.Context(), store.ListQuery{After: after, Limit: limit + 1, Name: name})
	if err != nil {
		return err
	}
	out := api.StudyList{Studies: make([]api.Study, 0, min(len(recs), limit))}
	for i, rec := range recs {
		if i == limit {
			last := recs[limit-1]
			out.Next = formatCursor(store.Cursor{Created: last.Created, ID: last.ID})
			break
		}
		st, err := studyOf(rec)
		if err != nil {
			return err
		}
		out.Studies = append(out.Studies, st)
	}
	if out.Next != "" {
		nq := url.Values{"limit": {strconv.Itoa(limit)}, "after": {out.Next}}
		if byName {
			nq.Set("name", name)
		}
		w.Header().Set("Link", "</studies?"+nq.Encode()+`>; rel="next"`)
	}
	return writeJSON(w, http.StatusOK, out)
}

// formatCursor encodes a position in the list of studies: opaque to
// clients.
func formatCursor(c store.Cursor) string {
	return base64.RawURLEncoding.EncodeToString([]byte(strconv.FormatInt(c.Created.UnixNano(), 10) + "." + c.ID))
}

func parseCursor(v string) (store.Cursor, bool) {
	b, err := base64.RawURLEncoding.DecodeString(v)
	if err != nil {
		return store.Cursor{}, false
	}
	ns, id, ok := strings.Cut(string(b), ".")
	n, err := strconv.ParseInt(ns, 10, 64)
	if !ok || err != nil || id == "" {
		return store.Cursor{}, false
	}
	return store.Cursor{Created: time.Unix(0, n).UTC(), ID: id}, true
}

func studyNotFound(id string) *apiError {
	return notFound("id", "no study %q", id)
}

func (s *Server) getStudy(w http.ResponseWriter, r *http.Request) error {
	id := r.PathValue("id")
	rec, err := s.st.Get(r.Context(), id)
	if errors.Is(err, store.ErrNotFound) {
		return studyNotFound(id)
	}
	if err != nil {
		return err
	}
	if rec, err = s.migrated(r.Context(), rec); err != nil {
		return err
	}
	st, err := studyOf(rec)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, st)
}

func (s *Server) deleteStudy(w http.ResponseWriter, r *http.Request) error {
	id := r.PathValue("id")
	if l := s.cache.get(id); l != nil {
		l.mu.Lock()
		defer l.mu.Unlock()
		l.stale = true
		s.cache.remove(l)
	}
	err := s.st.Delete(r.Context(), id)
	if errors.Is(err, store.ErrNotFound) {
		return studyNotFound(id)
	}
	if err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

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
	err = s.st.Scan(ctx, id, 0, func(ev store.Event) error { return l.applyEvent(ev, false) })
	if errors.Is(err, store.ErrNotFound) {
		return nil, studyNotFound(id)
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
		var ae *apiError
		if moved || !errors.As(err, &ae) {
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

// idempotencyKey reads the Idempotency-Key header (draft-ietf-httpapi-
// idempotency-key-header: a structured-field string, quoted; a bare token
// is accepted too).
func idempotencyKey(r *http.Request) (string, *apiError) {
	vs := r.Header.Values("Idempotency-Key")
	if len(vs) == 0 {
		return "", nil
	}
	if len(vs) > 1 {
		return "", invalid("Idempotency-Key", "is given %d times, at most once allowed", len(vs))
	}
	k := strings.TrimSpace(vs[0])
	if len(k) >= 2 && k[0] == '"' && k[len(k)-1] == '"' {
		k = k[1 : len(k)-1]
	}
	if k == "" || len(k) > MaxIdempotencyKey {
		return "", invalid("Idempotency-Key", "is %d bytes long: want 1 to %d", len(k), MaxIdempotencyKey)
	}
	for _, c := range []byte(k) {
		if c < 0x20 || c > 0x7e || c == '"' || c == '\\' {
			return "", invalid("Idempotency-Key", "%q: only printable ASCII without quotes or backslashes is accepted", k)
		}
	}
	return k, nil
}

// requestHash fingerprints a decoded request: the same key with another
// request is refused.
func requestHash(op string, v any) string {
	b, _ := json.Marshal(v)
	h := sha256.Sum256(append([]byte(op+"\n"), b...))
	return hex.EncodeToString(h[:16])
}

func keyReused(key string) *apiError {
	return &apiError{status: http.StatusUnprocessableEntity, code: "idempotency_key_reused", field: "Idempotency-Key",
		msg: fmt.Sprintf("%q was used for another request to this study (same key, different body or endpoint)", key)}
}

// algorithmFailed is the answer when the study's algorithm refuses its own
// data: a fault of the study, not of the server.
func algorithmFailed(id string, err error) *apiError {
	return &apiError{status: http.StatusUnprocessableEntity, code: "algorithm_failed", field: "algorithm",
		msg: fmt.Sprintf("study %s: %v", id, err)}
}

// refreshSpec re-reads the study's definition when it may have been raised
// by PATCH on another replica.
func (s *Server) refreshSpec(ctx context.Context, l *live) error {
	rec, err := s.st.Get(ctx, l.id)
	if err != nil {
		return err
	}
	var sp api.StudySpec
	if err := json.Unmarshal(rec.Spec, &sp); err != nil {
		return fmt.Errorf("study %s: stored definition: %w", l.id, err)
	}
	if sp.Horizon > l.spec.Horizon {
		l.spec.Horizon, l.spec.RaisedFrom = sp.Horizon, sp.RaisedFrom
	}
	return nil
}

// expire returns the abandon events of the decisions pending for longer
// than the TTL.
func (s *Server) expire(l *live, now time.Time) ([]store.Event, error) {
	if s.opt.PendingTTL <= 0 {
		return nil, nil
	}
	cut := now.Add(-s.opt.PendingTTL)
	var evs []store.Event
	for i := range l.decs {
		d := &l.decs[i]
		if !d.created.Before(cut) {
			break // decisions are in creation order
		}
		if d.abandoned || l.complete(d) {
			continue
		}
		ev, err := newEvent(store.KindAbandon, abandonEvent{ID: int64(i + 1), Reason: "ttl"})
		if err != nil {
			return nil, err
		}
		evs = append(evs, ev)
	}
	return evs, nil
}

// ask is a parsed POST /studies/{id}/suggestions.
type ask struct {
	study string
	key   string // the Idempotency-Key, if any
	hash  string // the request's fingerprint, for the key
	req   api.SuggestRequest
}

// asked is what an ask made under the study's lock.
type asked struct {
	sugg     []api.Suggestion
	ids      []int64 // the decisions made, in order
	replayed bool    // answered from the log by the idempotency key
}

// suggest answers POST /studies/{id}/suggestions in steps: parse the
// request; under the study's lock, check the round's input, answer a known
// idempotency key from the log, check the horizon and the server's limits,
// abandon expired decisions, decide, commit the decisions to the log; then
// answer.
func (s *Server) suggest(w http.ResponseWriter, r *http.Request) error {
	a, e := parseAsk(r, s.opt.MaxAskCount)
	if e != nil {
		return e
	}
	var out asked
	err := s.withStudy(r.Context(), a.study, false, func(l *live) error {
		var err error
		out, err = s.askStudy(r.Context(), l, a)
		return err
	})
	if err != nil {
		return err
	}
	if out.replayed {
		w.Header().Set("Idempotent-Replayed", "true")
	}
	return writeJSON(w, http.StatusOK, api.SuggestResponse{Suggestions: out.sugg})
}

// parseAsk reads the ask's study, idempotency key and body.
func parseAsk(r *http.Request, maxCount int) (ask, *apiError) {
	a := ask{study: r.PathValue("id")}
	var e *apiError
	if a.key, e = idempotencyKey(r); e != nil {
		return a, e
	}
	body, e := readBody(r)
	if e != nil {
		return a, e
	}
	if a.req, e = decodeSuggest(body, maxCount); e != nil {
		return a, e
	}
	a.hash = requestHash("ask", a.req)
	return a, nil
}

// askStudy runs an ask on the live study l, under its lock, and commits
// the decisions: the log's time of each becomes its creation time.
func (s *Server) askStudy(ctx context.Context, l *live, a ask) (asked, error) {
	if e := l.checkRound(a.req); e != nil {
		return asked{}, e
	}
	if h := l.horizon(); h > 0 && len(l.decs)+a.req.Count > h {
		if err := s.refreshSpec(ctx, l); err != nil {
			return asked{}, err
		}
	}
	var out asked
	evs, err := s.update(ctx, l, func() ([]store.Event, error) {
		var evs []store.Event // a store may run this again: out starts afresh
		var err error
		out, evs, err = s.decideAsk(ctx, l, a)
		return evs, err
	})
	if err != nil {
		return asked{}, err
	}
	k := 0
	for _, ev := range evs { // the log's time of each decision, in the order asked
		if ev.Kind == store.KindAsk && k < len(out.ids) {
			l.decs[out.ids[k]-1].created = ev.Time
			k++
		}
	}
	return out, nil
}

// decideAsk is an ask's work under the store's lock, with l up to date with
// the log: the answer to a known idempotency key, else the events to
// append — expired decisions abandoned, then the decisions. Events returned
// with an error changed the live study, which the error drops (update).
func (s *Server) decideAsk(ctx context.Context, l *live, a ask) (asked, []store.Event, error) {
	out, replayed, e := l.replayAsk(a)
	if e != nil {
		return asked{}, nil, e
	}
	if replayed {
		return out, nil, nil
	}
	if e := s.admitAsk(l, a.req.Count); e != nil {
		return asked{}, nil, e
	}
	now := time.Now().UTC()
	evs, err := s.abandonExpired(l, now)
	if err != nil {
		return asked{}, evs, err
	}
	return s.decideLoop(ctx, l, a, now, evs)
}

// replayAsk answers an ask whose idempotency key the study knows with the
// decisions it made then (ok); a key used for another request is refused.
func (l *live) replayAsk(a ask) (asked, bool, *apiError) {
	if a.key == "" {
		return asked{}, false, nil
	}
	rec, ok := l.keys[a.key]
	if !ok {
		return asked{}, false, nil
	}
	if rec.op != "ask" || rec.req != a.hash {
		return asked{}, false, keyReused(a.key)
	}
	out := asked{replayed: true}
	for i := rec.first - 1; i < rec.first-1+int64(rec.count) && i < int64(len(l.decs)); i++ {
		out.sugg = append(out.sugg, l.suggestion(int(i)))
	}
	return out, true, nil
}

// admitAsk refuses an ask of count decisions beyond the study's horizon or
// the server's limits.
func (s *Server) admitAsk(l *live, count int) *apiError {
	if h := l.horizon(); h > 0 && len(l.decs)+count > h {
		return conflict("horizon_reached", "count",
			"the study has made %d of its %d decisions (horizon): %d more requested; PATCH /studies/%s raises the horizon",
			len(l.decs), h, count, l.id)
	}
	return s.checkLimits(l, count)
}

// abandonExpired abandons the decisions pending beyond the TTL and returns
// their events.
func (s *Server) abandonExpired(l *live, now time.Time) ([]store.Event, error) {
	evs, err := s.expire(l, now)
	if err != nil {
		return nil, err
	}
	for _, ev := range evs {
		var a abandonEvent
		if err := json.Unmarshal(ev.Data, &a); err != nil {
			return evs, internal(fmt.Errorf("study %s: an expired decision's event: %w", l.id, err))
		}
		if err := l.abandon(a.ID, false); err != nil {
			return evs, algorithmFailed(l.id, fmt.Errorf("abandon: %w", err))
		}
	}
	return evs, nil
}

// decideLoop makes the ask's decisions — a point a person enqueued first,
// else the agent's — and appends their events to evs. Before each it
// checks that the client still waits and that the ask is within its time;
// if not, nothing is committed: the error drops the live study (its
// events moved it), which is rebuilt from the log as it was.
func (s *Server) decideLoop(ctx context.Context, l *live, a ask, now time.Time, evs []store.Event) (asked, []store.Event, error) {
	var out asked
	count := a.req.Count
	begin := time.Now()
	for k := 0; k < count; k++ {
		if err := ctx.Err(); err != nil {
			s.metrics.refused("client_gone")
			s.log.Info("ask stopped: the client went away", "study", l.id, "count", count, "decided", k,
				"seconds", time.Since(begin).Seconds())
			return out, evs, &apiError{status: 499, code: "client_gone", field: "count",
				msg: fmt.Sprintf("the client closed the request after %d of %d decisions; none was committed", k, count)}
		}
		if el := time.Since(begin); k > 0 && s.opt.MaxAskTime > 0 && el > s.opt.MaxAskTime {
			s.metrics.refused("ask_time_limit")
			s.log.Warn("ask stopped at the time limit", "study", l.id, "count", count, "decided", k,
				"seconds", el.Seconds(), "limit", s.opt.MaxAskTime)
			return out, evs, &apiError{status: http.StatusUnprocessableEntity, code: "ask_time_limit", field: "count",
				msg: fmt.Sprintf("= %d: the ask had made %d decision(s) in %.1f s, beyond this server's limit of %v per ask (--max-ask-time); none was committed: ask for fewer at a time (count ≤ %d)",
					count, k, el.Seconds(), s.opt.MaxAskTime, max(k-1, 1))}
		}
		var d askEvent
		var err error
		if len(l.queue) > 0 { // a point a person enqueued comes first
			d, err = l.impose(now, l.queue[0], imposedQueued)
		} else {
			d, err = l.decide(now, roundInput{arms: a.req.Arms, sample: a.req.ConstraintSample})
		}
		if err != nil {
			return out, evs, algorithmFailed(l.id, fmt.Errorf("decide: %w", err))
		}
		if k == 0 && a.key != "" {
			d.Key, d.Req, d.Of = a.key, a.hash, count
			l.setKey(a.key, idemRecord{op: "ask", req: a.hash, first: d.ID, count: count})
		}
		ev, err := newEvent(store.KindAsk, d)
		if err != nil {
			return out, evs, err
		}
		evs = append(evs, ev)
		out.sugg = append(out.sugg, l.suggestion(int(d.ID-1)))
		out.ids = append(out.ids, d.ID)
	}
	return out, evs, nil
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

// checkLimits refuses an ask of count decisions that would take the study
// beyond a limit of the server; the first refusal of each study is logged.
func (s *Server) checkLimits(l *live, count int) *apiError {
	var e *apiError
	if m := s.opt.MaxDecisions; m > 0 && len(l.decs)+count > m {
		e = conflict("decision_limit", "count",
			"= %d: the study has made %d decisions, this server keeps at most %d per study (--max-decisions): %d more can be asked; an operator can raise the limit, or continue in a new study",
			count, len(l.decs), m, max(m-len(l.decs), 0))
	}
	if m := s.opt.MaxStudyBytes; e == nil && m > 0 && l.weight() > m {
		e = conflict("model_limit", "count",
			"the study holds %.0f MiB in memory (its algorithm's state after %d decisions of its current run, and its decisions), beyond this server's limit of %.0f MiB per study (--max-study-mib); an operator can raise the limit; or continue in a new study (fewer points or dimensions, or a horizon: each run of the algorithm starts empty)",
			float64(l.weight())/(1<<20), len(l.decs)-l.epochStart, float64(m)/(1<<20))
	}
	if e == nil {
		return nil
	}
	s.metrics.refused(e.code)
	if !l.limitLogged {
		l.limitLogged = true
		s.log.Warn("study at a limit: asks refused", "study", l.id, "code", e.code, "err", e.msg)
	}
	return e
}

// decodeSuggest reads an ask. A count left out means one decision, as
// Optuna's study.ask() and Ax's get_next_trial() hand out one trial; an
// explicit 0 is refused (400, field count) like any count below 1, never
// answered with one: asking for none is a caller's bug (a free-worker count
// gone to 0) to surface, and an ask that decides nothing has no use.
func decodeSuggest(body []byte, maxCount int) (api.SuggestRequest, *apiError) {
	// The request with its count as a pointer: absent or null is nil.
	var in struct {
		api.SuggestRequest
		Count *int `json:"count"`
	}
	if body != nil {
		if e := decodeJSON(body, &in); e != nil {
			return in.SuggestRequest, e
		}
	}
	req := in.SuggestRequest
	req.Count = 1
	if in.Count != nil {
		req.Count = *in.Count
	}
	if req.Count < 1 || req.Count > maxCount {
		return req, invalid("count", "= %d: must be in [1, %d] (this server's limit per ask, --max-ask-count)", req.Count, maxCount)
	}
	for _, m := range []struct {
		field string
		v     [][]float64
	}{{"arms", req.Arms}, {"constraint_sample", req.ConstraintSample}} {
		if m.v == nil {
			continue
		}
		if req.Count != 1 {
			return req, invalid("count", "= %d: an ask with %s is for one round (count 1)", req.Count, m.field)
		}
		if len(m.v) == 0 || len(m.v) > MaxPoints {
			return req, invalid(m.field, "has %d rows: want 1 to %d", len(m.v), MaxPoints)
		}
		for i, row := range m.v {
			if e := checkVector(fmt.Sprintf("%s[%d]", m.field, i), row); e != nil {
				return req, e
			}
		}
	}
	return req, nil
}

// checkRound checks an ask's round input against the study: a contextual
// study needs the round's arms (prior.safe among them), a full-information
// study the constraint sample at every point; other studies take neither.
func (l *live) checkRound(req api.SuggestRequest) *apiError {
	sp := &l.spec
	if sp.Space.Type == api.SpaceContextual {
		if req.Arms == nil {
			return invalid("arms", "is required: a contextual study of dimension %d needs the round's actions as feature vectors of %d coordinates, prior.safe %v among them", sp.Space.Dim, sp.Space.Dim, sp.Prior.Safe)
		}
		L := l.b.info.Stage.L
		for i, a := range req.Arms {
			if len(a) != sp.Space.Dim {
				return invalid(fmt.Sprintf("arms[%d]", i), "has %d coordinates, the study's actions have %d (space.dim)", len(a), sp.Space.Dim)
			}
			n := 0.0
			for _, v := range a {
				n += v * v
			}
			if math.Sqrt(n) > L*(1+1e-12) {
				return invalid(fmt.Sprintf("arms[%d]", i), "has norm %v above prior.L = %v (Pacchiano et al. Ass. 3)", math.Sqrt(n), L)
			}
		}
		if pointIndex(req.Arms, sp.Prior.Safe) < 0 {
			return invalid("arms", "must contain the safe action prior.safe = %v (Pacchiano et al. Ass. 5: x₀ is in every round's action set)", sp.Prior.Safe)
		}
	} else if req.Arms != nil {
		return invalid("arms", "applies to contextual studies only (this one has a %s space)", sp.Space.Type)
	}
	if sp.FullInfo {
		n, m := len(l.b.points), len(sp.Constraints)
		if req.ConstraintSample == nil {
			return invalid("constraint_sample", "is required: a full-information study needs this round's %d constraint metrics at each of its %d points", m, n)
		}
		if len(req.ConstraintSample) != n {
			return invalid("constraint_sample", "has %d rows, the study has %d points (one row of %d constraint metrics per point)", len(req.ConstraintSample), n, m)
		}
		for i, row := range req.ConstraintSample {
			if len(row) != m {
				return invalid(fmt.Sprintf("constraint_sample[%d]", i), "has %d values, the study has %d constraints", len(row), m)
			}
		}
	} else if req.ConstraintSample != nil {
		return invalid("constraint_sample", "applies to full-information studies only (full_info)")
	}
	return nil
}

// decodeObservation decodes an observation and checks what can be checked
// without the study: finite values.
func decodeObservation(body []byte) (api.Observation, *apiError) {
	var o api.Observation
	if body == nil {
		return o, invalid("body", "an observation is required")
	}
	if e := decodeJSON(body, &o); e != nil {
		return o, e
	}
	if e := checkDecisionID(body, o.DecisionID); e != nil {
		return o, e
	}
	if o.DecisionID < 1 {
		return o, invalid("decision_id", "= %d: must be a decision ID (≥ 1)", o.DecisionID)
	}
	if o.Reward != nil {
		if e := checkMagnitude("reward", *o.Reward); e != nil {
			return o, e
		}
	}
	if e := checkVector("costs", o.Costs); e != nil {
		return o, e
	}
	if e := checkVector("x", o.X); e != nil {
		return o, e
	}
	if len(o.Costs) == 0 {
		o.Costs = nil
	}
	if o.Failed {
		switch {
		case o.Reward != nil || o.Costs != nil:
			return o, invalid("failed", "a failed evaluation carries no reward and no costs")
		case len(o.Reason) > bandit.MaxReasonLen:
			return o, invalid("reason", "has %d bytes: at most %d", len(o.Reason), bandit.MaxReasonLen)
		case !utf8.ValidString(o.Reason):
			return o, invalid("reason", "must be UTF-8 text")
		}
		return o, nil
	}
	if o.Reason != "" {
		return o, invalid("reason", "= %q: given only with \"failed\": true", o.Reason)
	}
	if o.Reward == nil && o.Costs == nil {
		return o, invalid("reward", "an observation carries a reward, costs, or both; this one has neither")
	}
	return o, nil
}

func (s *Server) observe(w http.ResponseWriter, r *http.Request) error {
	id := r.PathValue("id")
	key, e := idempotencyKey(r)
	if e != nil {
		return e
	}
	body, e := readBody(r)
	if e != nil {
		return e
	}
	o, e := decodeObservation(body)
	if e != nil {
		return e
	}
	hash := requestHash("tell", o)
	var resp api.ObserveResponse
	replayed := false
	err := s.withStudy(r.Context(), id, false, func(l *live) error {
		if m := len(l.spec.Constraints); o.Costs != nil && len(o.Costs) != m {
			return invalid("costs", "has %d values, the study has %d constraints", len(o.Costs), m)
		}
		_, err := s.update(r.Context(), l, func() ([]store.Event, error) {
			if key != "" {
				if rec, ok := l.keys[key]; ok {
					if rec.op != "tell" || rec.req != hash || rec.resp == nil {
						return nil, keyReused(key)
					}
					resp, replayed = *rec.resp, true
					return nil, nil
				}
			}
			resp = api.ObserveResponse{DecisionID: o.DecisionID, Applied: []string{}}
			if o.DecisionID > int64(len(l.decs)) {
				return nil, notFound("decision_id", "= %d: no such decision (decisions so far: 1..%d)", o.DecisionID, len(l.decs))
			}
			d := &l.decs[o.DecisionID-1]
			if d.abandoned {
				return nil, conflict("abandoned", "decision_id", "= %d: the decision was abandoned and takes no observation", o.DecisionID)
			}
			if o.X != nil && !equalVec(o.X, d.x) {
				return nil, invalid("x", "= %v differs from the point of decision %d, %v", o.X, o.DecisionID, d.x)
			}
			t := tellEvent{ID: o.DecisionID}
			switch {
			case o.Failed && d.failed && o.Reason != d.reason:
				return nil, conflictingReason(o, d.reason)
			case o.Failed && d.failed:
				resp.Duplicate = append(resp.Duplicate, "failed")
			case o.Failed && (d.reward != nil || d.costs != nil):
				return nil, conflict("observed", "failed", "decision %d already has observed values: a failure replaces them, it does not follow them", o.DecisionID)
			case o.Failed:
				t.Failed, t.Reason = true, o.Reason
				resp.Applied = append(resp.Applied, "failed")
			case d.failed:
				return nil, conflict("failed", "decision_id", "= %d: the evaluation was reported failed and takes no values", o.DecisionID)
			}
			if o.Reward != nil {
				switch {
				case d.reward == nil:
					t.Reward = o.Reward
					resp.Applied = append(resp.Applied, "reward")
				case *d.reward == *o.Reward:
					resp.Duplicate = append(resp.Duplicate, "reward")
				default:
					return nil, conflict("conflicting_observation", "reward",
						"= %v: decision %d already has reward %v", *o.Reward, o.DecisionID, *d.reward)
				}
			}
			if o.Costs != nil {
				switch {
				case d.costs == nil:
					t.Costs = o.Costs
					resp.Applied = append(resp.Applied, "costs")
				case equalVec(d.costs, o.Costs):
					resp.Duplicate = append(resp.Duplicate, "costs")
				default:
					return nil, conflict("conflicting_observation", "costs",
						"= %v: decision %d already has costs %v", o.Costs, o.DecisionID, d.costs)
				}
			}
			if key != "" {
				r := resp
				t.Key, t.Req, t.Resp = key, hash, &r
			} else if t.Reward == nil && t.Costs == nil && !t.Failed {
				return nil, nil // an idempotent re-send: nothing to record
			}
			if err := l.observe(t, false); err != nil {
				return nil, algorithmFailed(l.id, fmt.Errorf("observe: %w", err))
			}
			if key != "" {
				l.setKey(key, idemRecord{op: "tell", req: hash, resp: t.Resp})
			}
			ev, err := newEvent(store.KindTell, t)
			if err != nil {
				return nil, err
			}
			return []store.Event{ev}, nil
		})
		return err
	})
	if err != nil {
		return err
	}
	if replayed {
		w.Header().Set("Idempotent-Replayed", "true")
	}
	return writeJSON(w, http.StatusOK, resp)
}

// abandonDecision answers DELETE /studies/{id}/decisions/{did}: a pending
// decision is abandoned (it takes no observation and counts as abandoned in
// the summary). Repeating it answers the same.
func (s *Server) abandonDecision(w http.ResponseWriter, r *http.Request) error {
	id := r.PathValue("id")
	v := r.PathValue("did")
	did, err := strconv.ParseInt(v, 10, 64)
	if err != nil || did < 1 {
		return invalid("decision_id", "= %q: must be a decision ID (≥ 1)", v)
	}
	err = s.withStudy(r.Context(), id, false, func(l *live) error {
		_, err := s.update(r.Context(), l, func() ([]store.Event, error) {
			if did > int64(len(l.decs)) {
				return nil, notFound("decision_id", "= %d: no such decision (decisions so far: 1..%d)", did, len(l.decs))
			}
			d := &l.decs[did-1]
			if d.abandoned {
				return nil, nil
			}
			if l.complete(d) {
				return nil, conflict("observed", "decision_id", "= %d: the decision has all its observations: nothing to abandon", did)
			}
			if err := l.abandon(did, false); err != nil {
				return nil, algorithmFailed(l.id, fmt.Errorf("abandon: %w", err))
			}
			ev, err := newEvent(store.KindAbandon, abandonEvent{ID: did, Reason: "deleted"})
			if err != nil {
				return nil, err
			}
			return []store.Event{ev}, nil
		})
		return err
	})
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, api.AbandonResponse{DecisionID: did, Abandoned: true})
}

// patchStudy answers PATCH /studies/{id}: it raises the horizon of a study
// that has one. The algorithm's run up to the old horizon is untouched; the
// rounds after it are served by a new run planned for the difference (its
// schedules see that horizon).
func (s *Server) patchStudy(w http.ResponseWriter, r *http.Request) error {
	id := r.PathValue("id")
	body, e := readBody(r)
	if e != nil {
		return e
	}
	if body == nil {
		return invalid("body", "a patch {\"horizon\": N} is required")
	}
	var p api.StudyPatch
	if e := decodeJSON(body, &p); e != nil {
		return e
	}
	var out api.Study
	err := s.withStudy(r.Context(), id, true, func(l *live) error {
		rec, err := s.st.Get(r.Context(), id)
		if errors.Is(err, store.ErrNotFound) {
			return studyNotFound(id)
		}
		if err != nil {
			return err
		}
		var sp api.StudySpec
		if err := json.Unmarshal(rec.Spec, &sp); err != nil {
			return fmt.Errorf("study %s: stored definition: %w", id, err)
		}
		switch {
		case sp.Horizon == 0:
			return conflict("open_ended", "horizon", "the study is open-ended (no horizon): there is nothing to raise")
		case p.Horizon <= sp.Horizon || p.Horizon > MaxHorizon:
			return invalid("horizon", "= %d: must be above the current horizon %d and at most %d", p.Horizon, sp.Horizon, MaxHorizon)
		}
		sp.RaisedFrom = append(sp.RaisedFrom, sp.Horizon)
		sp.Horizon = p.Horizon
		raw, err := json.Marshal(sp)
		if err != nil {
			return err
		}
		if err := s.st.SetSpec(r.Context(), id, rec.Spec, raw); err != nil {
			if errors.Is(err, store.ErrConflict) {
				return conflict("concurrent_update", "horizon", "the study's definition changed meanwhile: read it again and retry")
			}
			if errors.Is(err, store.ErrNotFound) {
				return studyNotFound(id)
			}
			return err
		}
		l.spec.Horizon, l.spec.RaisedFrom = sp.Horizon, sp.RaisedFrom
		out = api.Study{ID: id, Created: rec.Created, Spec: sp, Rounds: len(l.decs)}
		return nil
	})
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, out)
}

func (s *Server) decisions(w http.ResponseWriter, r *http.Request) error {
	id := r.PathValue("id")
	q := r.URL.Query()
	after, limit := int64(0), 100
	if v := q.Get("after"); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 0 {
			return invalid("after", "= %q: must be a decision ID ≥ 0", v)
		}
		after = n
	}
	if v := q.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > MaxPageSize {
			return invalid("limit", "= %q: must be an integer in [1, %d]", v, MaxPageSize)
		}
		limit = n
	}
	var out api.DecisionList
	err := s.withStudy(r.Context(), id, true, func(l *live) error {
		out.Decisions = []api.DecisionRecord{}
		for i := after; i < int64(len(l.decs)) && len(out.Decisions) < limit; i++ {
			out.Decisions = append(out.Decisions, l.recordOf(int(i)))
		}
		if n := len(out.Decisions); n > 0 && out.Decisions[n-1].DecisionID < int64(len(l.decs)) {
			out.Next = out.Decisions[n-1].DecisionID
		}
		return nil
	})
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, out)
}

func (s *Server) summary(w http.ResponseWriter, r *http.Request) error {
	id := r.PathValue("id")
	var out api.Summary
	err := s.withStudy(r.Context(), id, true, func(l *live) error {
		out = l.summary()
		return nil
	})
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, out)
}
