package service

import (
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"sync"
	"sync/atomic"
)

// Prometheus text exposition (format 0.0.4), written by hand: a handful of
// counters and histograms do not need a client library.

var latencyBuckets = []float64{0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10}

type histogram struct {
	mu     sync.Mutex
	counts []uint64 // per bucket (non-cumulative), last = +Inf
	sum    float64
	n      uint64
}

func newHistogram() *histogram { return &histogram{counts: make([]uint64, len(latencyBuckets)+1)} }

func (h *histogram) observe(v float64) {
	i := sort.SearchFloat64s(latencyBuckets, v)
	h.mu.Lock()
	h.counts[i]++
	h.sum += v
	h.n++
	h.mu.Unlock()
}

func (h *histogram) write(w io.Writer, name, labels string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	sep := ""
	if labels != "" {
		sep = ","
	}
	cum := uint64(0)
	for i, b := range latencyBuckets {
		cum += h.counts[i]
		fmt.Fprintf(w, "%s_bucket{%s%sle=\"%s\"} %d\n", name, labels, sep, strconv.FormatFloat(b, 'g', -1, 64), cum)
	}
	cum += h.counts[len(latencyBuckets)]
	fmt.Fprintf(w, "%s_bucket{%s%sle=\"+Inf\"} %d\n", name, labels, sep, cum)
	if labels != "" {
		fmt.Fprintf(w, "%s_sum{%s} %s\n%s_count{%s} %d\n", name, labels, fmtFloat(h.sum), name, labels, h.n)
	} else {
		fmt.Fprintf(w, "%s_sum %s\n%s_count %d\n", name, fmtFloat(h.sum), name, h.n)
	}
}

func fmtFloat(v float64) string {
	if math.IsInf(v, 1) {
		return "+Inf"
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}

type reqKey struct{ route, method, code string }

type metrics struct {
	mu       sync.Mutex
	requests map[reqKey]uint64
	latency  map[string]*histogram // by route

	decide, observe *histogram
	replays         atomic.Uint64
	replayed        atomic.Uint64
	cached          func() int
	cachedBytes     func() int64

	restore                       *histogram
	restoreWaits                  atomic.Uint64
	snapshots, snapshotErrors     atomic.Uint64
	snapshotsSkipped              atomic.Uint64
	snapshotQueued                func() int64
	snapshotRestores              atomic.Uint64
	snapshotRejected              atomic.Uint64
	snapshotEncode, snapshotWrite *histogram

	refusals [len(refusalReasons)]atomic.Uint64

	storeUnavailable   atomic.Uint64 // store errors classified unavailable
	unavailableAnswers atomic.Uint64 // 503 answers (requests and /healthz)
}

// refusalReasons are the reasons the server refuses or stops a request for
// (the label of cbandit_refused_total): the browser guards, and the limits
// of a study or an ask.
var refusalReasons = [...]string{"forbidden_host", "forbidden_origin", "unsupported_media_type",
	"decision_limit", "model_limit", "ask_time_limit", "client_gone", "other"}

// refused counts a refusal by its error code (any code not listed counts as
// "other").
func (m *metrics) refused(code string) {
	for i, r := range refusalReasons {
		if r == code || i == len(refusalReasons)-1 {
			m.refusals[i].Add(1)
			return
		}
	}
}

func newMetrics() *metrics {
	return &metrics{requests: map[reqKey]uint64{}, latency: map[string]*histogram{},
		decide: newHistogram(), observe: newHistogram(), restore: newHistogram(),
		snapshotEncode: newHistogram(), snapshotWrite: newHistogram()}
}

// knownMethods are the request methods the metrics name; any other is
// counted as "other", so that the label set stays bounded whatever clients
// send (Prometheus: "do not use labels to store dimensions with high
// cardinality"; the Go client's promhttp maps unknown methods alike).
var knownMethods = map[string]string{"GET": "GET", "HEAD": "HEAD", "POST": "POST", "PUT": "PUT", "PATCH": "PATCH",
	"DELETE": "DELETE", "OPTIONS": "OPTIONS", "CONNECT": "CONNECT", "TRACE": "TRACE"}

// methodLabel is the method's label: itself when known, else "other".
func methodLabel(m string) string {
	if l, ok := knownMethods[m]; ok {
		return l
	}
	return "other"
}

// codeLabel is the status code's label: 100–599 as a number, else "other".
func codeLabel(code int) string {
	if code < 100 || code > 599 {
		return "other"
	}
	return strconv.Itoa(code)
}

// request counts an answer. route must come from a bounded set (the
// server's patterns, or "other"); method and code are bounded here.
func (m *metrics) request(route, method string, code int, seconds float64) {
	m.mu.Lock()
	m.requests[reqKey{route, methodLabel(method), codeLabel(code)}]++
	h := m.latency[route]
	if h == nil {
		h = newHistogram()
		m.latency[route] = h
	}
	m.mu.Unlock()
	h.observe(seconds)
}

func escapeLabel(s string) string { return strconv.Quote(s)[1 : len(strconv.Quote(s))-1] }

func (m *metrics) write(w io.Writer) {
	m.mu.Lock()
	keys := make([]reqKey, 0, len(m.requests))
	for k := range m.requests {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		a, b := keys[i], keys[j]
		if a.route != b.route {
			return a.route < b.route
		}
		if a.method != b.method {
			return a.method < b.method
		}
		return a.code < b.code
	})
	counts := make([]uint64, len(keys))
	for i, k := range keys {
		counts[i] = m.requests[k]
	}
	routes := make([]string, 0, len(m.latency))
	for r := range m.latency {
		routes = append(routes, r)
	}
	sort.Strings(routes)
	hists := make([]*histogram, len(routes))
	for i, r := range routes {
		hists[i] = m.latency[r]
	}
	m.mu.Unlock()

	fmt.Fprintln(w, "# HELP cbandit_http_requests_total HTTP requests by route, method and status code.")
	fmt.Fprintln(w, "# TYPE cbandit_http_requests_total counter")
	for i, k := range keys {
		fmt.Fprintf(w, "cbandit_http_requests_total{route=\"%s\",method=\"%s\",code=\"%s\"} %d\n",
			escapeLabel(k.route), escapeLabel(k.method), k.code, counts[i])
	}
	fmt.Fprintln(w, "# HELP cbandit_http_request_duration_seconds HTTP request latency by route.")
	fmt.Fprintln(w, "# TYPE cbandit_http_request_duration_seconds histogram")
	for i, r := range routes {
		hists[i].write(w, "cbandit_http_request_duration_seconds", "route=\""+escapeLabel(r)+"\"")
	}
	fmt.Fprintln(w, "# HELP cbandit_decide_duration_seconds Time an agent takes to decide (Decide), replays included.")
	fmt.Fprintln(w, "# TYPE cbandit_decide_duration_seconds histogram")
	m.decide.write(w, "cbandit_decide_duration_seconds", "")
	fmt.Fprintln(w, "# HELP cbandit_observe_duration_seconds Time an agent takes to take in feedback (Observe), replays included.")
	fmt.Fprintln(w, "# TYPE cbandit_observe_duration_seconds histogram")
	m.observe.write(w, "cbandit_observe_duration_seconds", "")
	fmt.Fprintln(w, "# HELP cbandit_replays_total Studies rebuilt from their log (cache misses, restarts).")
	fmt.Fprintln(w, "# TYPE cbandit_replays_total counter")
	fmt.Fprintf(w, "cbandit_replays_total %d\n", m.replays.Load())
	fmt.Fprintln(w, "# HELP cbandit_replayed_events_total Log events applied while rebuilding or catching up.")
	fmt.Fprintln(w, "# TYPE cbandit_replayed_events_total counter")
	fmt.Fprintf(w, "cbandit_replayed_events_total %d\n", m.replayed.Load())
	fmt.Fprintln(w, "# HELP cbandit_restore_duration_seconds Time to restore a study (snapshot plus log tail, or whole log).")
	fmt.Fprintln(w, "# TYPE cbandit_restore_duration_seconds histogram")
	m.restore.write(w, "cbandit_restore_duration_seconds", "")
	for _, c := range []struct {
		name, help string
		v          *atomic.Uint64
	}{
		{"cbandit_restore_waits_total", "Requests that waited for a restore another request had started (single flight).", &m.restoreWaits},
		{"cbandit_snapshots_total", "Snapshots of agent state saved.", &m.snapshots},
		{"cbandit_snapshot_errors_total", "Snapshots not taken or not saved (the study is then restored by replay).", &m.snapshotErrors},
		{"cbandit_snapshots_skipped_total", "Snapshots not queued (the queue's byte bound) or replaced in the queue by a newer one of the study.", &m.snapshotsSkipped},
		{"cbandit_snapshot_restores_total", "Studies restored from a snapshot plus the log after it.", &m.snapshotRestores},
		{"cbandit_snapshot_rejected_total", "Snapshots ignored on restore (another build, a mismatch with the log, a decoding error).", &m.snapshotRejected},
		{"cbandit_store_unavailable_total", "Store operations that failed as unavailable (database unreachable or restarting, disk full or read-only, busy past its timeout).", &m.storeUnavailable},
		{"cbandit_unavailable_answers_total", "Answers 503 (the store unavailable), /healthz included.", &m.unavailableAnswers},
	} {
		fmt.Fprintf(w, "# HELP %s %s\n# TYPE %s counter\n%s %d\n", c.name, c.help, c.name, c.name, c.v.Load())
	}
	fmt.Fprintln(w, "# HELP cbandit_snapshot_encode_seconds Time to encode a snapshot (on the request path).")
	fmt.Fprintln(w, "# TYPE cbandit_snapshot_encode_seconds histogram")
	m.snapshotEncode.write(w, "cbandit_snapshot_encode_seconds", "")
	fmt.Fprintln(w, "# HELP cbandit_snapshot_write_seconds Time to save a snapshot in the store (in the background).")
	fmt.Fprintln(w, "# TYPE cbandit_snapshot_write_seconds histogram")
	m.snapshotWrite.write(w, "cbandit_snapshot_write_seconds", "")
	fmt.Fprintln(w, "# HELP cbandit_refused_total Requests refused by a browser guard (no token) or stopped by a limit, by reason.")
	fmt.Fprintln(w, "# TYPE cbandit_refused_total counter")
	for i, r := range refusalReasons {
		fmt.Fprintf(w, "cbandit_refused_total{reason=\"%s\"} %d\n", r, m.refusals[i].Load())
	}
	if m.cachedBytes != nil {
		fmt.Fprintln(w, "# HELP cbandit_cached_bytes Memory held by the studies in memory (measured agent state, or an estimate).")
		fmt.Fprintln(w, "# TYPE cbandit_cached_bytes gauge")
		fmt.Fprintf(w, "cbandit_cached_bytes %d\n", m.cachedBytes())
	}
	if m.snapshotQueued != nil {
		fmt.Fprintln(w, "# HELP cbandit_snapshot_queue_bytes Snapshots waiting to be written.")
		fmt.Fprintln(w, "# TYPE cbandit_snapshot_queue_bytes gauge")
		fmt.Fprintf(w, "cbandit_snapshot_queue_bytes %d\n", m.snapshotQueued())
	}
	if m.cached != nil {
		fmt.Fprintln(w, "# HELP cbandit_cached_studies Studies held in memory.")
		fmt.Fprintln(w, "# TYPE cbandit_cached_studies gauge")
		fmt.Fprintf(w, "cbandit_cached_studies %d\n", m.cached())
	}
}
