package service

import (
	_ "embed"
	"fmt"
	"log/slog"
	"net/http"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

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
	snapCPU  atomic.Int64 // ns of thread CPU in snapshot work (SnapshotCPU)
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
	m := newMetrics()
	s := &Server{st: observedStore{Store: st, m: m}, opt: opt, cache: newCache(opt.CacheSize, opt.CacheBytes), metrics: m, log: opt.Logger,
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
	handle("GET /livez", s.livez)
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
	handle("GET /studies/{id}/importance", s.importanceHandler)
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

// SnapshotCPU is the CPU time the server's snapshot work has taken so far:
// encoding and hashing, sizing (snap.Size) and writing, each the time of
// the thread it ran on (0 where the platform gives no thread time). The
// suite subtracts it from the process's time to report a decision's CPU.
func (s *Server) SnapshotCPU() time.Duration { return time.Duration(s.snapCPU.Load()) }

// snapWork runs f, the goroutine locked to its thread, and adds the
// thread's CPU time over f to SnapshotCPU.
func (s *Server) snapWork(f func()) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	t0 := threadCPU()
	f()
	s.snapCPU.Add(int64(threadCPU() - t0))
}

// ServeHTTP implements http.Handler.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.mux.ServeHTTP(w, r) }

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
