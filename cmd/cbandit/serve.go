package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/cbandit/cbandit/service"
	"github.com/cbandit/cbandit/store"
)

func init() {
	register(command{
		name:    "serve",
		usage:   "[--db sqlite:FILE | --db postgres://...] [--addr 127.0.0.1:8080] [--allowed-hosts H,...] [--max-decisions N] ...",
		summary: "serve the algorithms through the ask/tell HTTP API (OpenAPI at /openapi.json) and a dashboard at /ui/",
		run:     runServe,
	})
}

const serveHelp = `
Studies take a space ("box", "points", "contextual") or named, typed
"parameters" (float with optional "log", int, categorical); suggestions then
carry "params" with each value in its type. GET /studies?name=N finds a
study by name; GET /studies/{id}/decisions.csv exports its decisions (or,
with the server stopped: cbandit export --db ... --study N --format csv|json).

Dashboard: http://ADDR/ui/ lists the studies; a study's page shows the
objective per round with the best feasible value so far, each constraint per
round with its threshold, the cumulative violation and the decisions, and
refreshes itself. Its assets are embedded (no CDN, works offline) and need no
token; with --token the page asks for the token, keeps it in the tab's
sessionStorage and sends it as "Authorization: Bearer" on each API call.

Without a token, the server answers only requests to a loopback Host
(localhost, 127.0.0.1, [::1]) or one of --allowed-hosts, with an Origin, if
any, of its own or of --allowed-origins, and takes bodies only as
Content-Type: application/json (curl -H 'Content-Type: application/json').

Limits (--max-decisions, --max-study-mib, --max-ask-count, --max-ask-time)
are refused with a JSON error naming the limit; /metrics counts refusals in
cbandit_refused_total{reason}. GET /studies is paginated (?limit=&after=).

Python client: clients/python (PYTHONPATH=clients/python; import cbandit).
`

// version names this build (go build -ldflags "-X main.version=v1.2.3");
// snapshots record it for the operator's information, and stay valid
// across versions whose agent state has the same shape.
var version = ""

func runServe(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	c := commands["serve"]
	fs := newFlagSet(c, stderr)
	flagsUsage := fs.Usage
	fs.Usage = func() {
		flagsUsage()
		fmt.Fprint(stderr, serveHelp)
	}
	db := fs.String("db", "sqlite:cbandit.db", "store: sqlite:FILE[?sync=normal] (one process per file; synchronous=FULL unless sync=normal), postgres://… (several replicas), or memory: (nothing kept)")
	addr := fs.String("addr", "127.0.0.1:8080", "listen address (loopback by default; port 0 picks a free port)")
	token := fs.String("token", "", "bearer token required on every endpoint but /healthz, /livez and the dashboard's assets (default $CBANDIT_TOKEN; empty: no authentication)")
	maxBody := fs.Int64("max-body", service.DefaultMaxBodyBytes, "request body limit in bytes")
	cacheSize := fs.Int("cache", service.DefaultCacheSize, "studies kept live in memory (others are replayed from their log on use)")
	cacheMiB := fs.Int64("cache-mib", service.DefaultCacheBytes>>20, "estimated memory bound of the live studies, MiB")
	snapEvery := fs.Int("snapshot-every", service.DefaultSnapshotEvery, "log events between snapshots of a study's agent (0 or less: no snapshots, restores replay the whole log)")
	snapCost := fs.Duration("snapshot-cost", service.DefaultSnapshotCost, "also snapshot a study once its agent has worked this long since the last snapshot (bounds the work a restore repeats)")
	pendingTTL := fs.Duration("pending-ttl", 0, "abandon decisions still waiting for observations after this long (0: never)")
	maxDecisions := fs.Int("max-decisions", service.DefaultMaxDecisions, "decisions a study may make, all epochs together (0: no limit); asks beyond it are refused (409 decision_limit)")
	maxStudyMiB := fs.Int64("max-study-mib", service.DefaultMaxStudyBytes>>20, "memory a study may hold, MiB: its algorithm's state as measured and its decisions (0: no limit); asks beyond it are refused (409 model_limit)")
	maxAskCount := fs.Int("max-ask-count", service.MaxSuggestions, "decisions one ask may request (count)")
	maxAskTime := fs.Duration("max-ask-time", service.DefaultMaxAskTime, "agent time one ask may take before it stops, uncommitted (422 ask_time_limit; 0: no limit)")
	snapQueueMiB := fs.Int64("snapshot-queue-mib", service.DefaultSnapshotQueueBytes>>20, "snapshots waiting to be written, MiB (one of any size always fits)")
	allowedHosts := fs.String("allowed-hosts", "", "without a token: Host names answered besides the loopback ones (comma list: name or IP, .example.com for a domain and its subdomains, * for any)")
	allowedOrigins := fs.String("allowed-origins", "", "browser origins whose requests are taken besides the server's own pages, with CORS (comma list such as https://app.example.com, * for any)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "cbandit serve: unexpected argument %q\n", fs.Arg(0))
		fs.Usage()
		return errUsage
	}
	if *token == "" {
		*token = os.Getenv("CBANDIT_TOKEN")
	}
	if *maxBody < 1024 {
		return fmt.Errorf("serve: --max-body = %d: must be at least 1024 bytes", *maxBody)
	}
	if *cacheMiB < 1 {
		return fmt.Errorf("serve: --cache-mib = %d: must be at least 1", *cacheMiB)
	}
	if *pendingTTL < 0 {
		return fmt.Errorf("serve: --pending-ttl = %v: must be ≥ 0", *pendingTTL)
	}
	if *snapEvery <= 0 {
		*snapEvery = -1
	}
	if *cacheSize < 1 {
		return fmt.Errorf("serve: --cache = %d: must be at least 1", *cacheSize)
	}
	if *maxDecisions < 0 || *maxStudyMiB < 0 || *maxAskTime < 0 || *maxAskCount < 1 || *snapQueueMiB < 1 {
		return fmt.Errorf("serve: --max-decisions, --max-study-mib and --max-ask-time must be ≥ 0 (0: no limit), --max-ask-count and --snapshot-queue-mib ≥ 1")
	}
	noLimit := func(v int64) int64 {
		if v == 0 {
			return -1
		}
		return v
	}
	hosts, origins := splitList(*allowedHosts), splitList(*allowedOrigins)
	for _, o := range origins {
		if err := service.CheckOrigin(o); err != nil {
			return fmt.Errorf("serve: --allowed-origins: %w", err)
		}
	}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	st, err := store.Open(ctx, *db)
	if err != nil {
		return err
	}
	defer st.Close()
	logger := slog.New(slog.NewTextHandler(stderr, nil))
	h := service.New(st, service.Options{Token: *token, MaxBodyBytes: *maxBody, CacheSize: *cacheSize, CacheBytes: *cacheMiB << 20,
		SnapshotEvery: *snapEvery, SnapshotCost: *snapCost, PendingTTL: *pendingTTL, Logger: logger,
		AllowedHosts: hosts, AllowedOrigins: origins, Version: version,
		MaxDecisions: int(noLimit(int64(*maxDecisions))), MaxStudyBytes: noLimit(*maxStudyMiB << 20), MaxAskCount: *maxAskCount,
		MaxAskTime: time.Duration(noLimit(int64(*maxAskTime))), SnapshotQueueBytes: *snapQueueMiB << 20})
	defer h.Close() // before st.Close: the queued snapshots are written
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return fmt.Errorf("serve: --addr %s: %w", *addr, err)
	}
	if tcp, ok := ln.Addr().(*net.TCPAddr); ok && !tcp.IP.IsLoopback() && *token == "" {
		logger.Warn("listening beyond loopback without a token: anyone who reaches the port can use the API (requests must still name a loopback Host or one of --allowed-hosts)", "addr", ln.Addr())
	}
	fs.Visit(func(f *flag.Flag) {
		if f.Name == "token" {
			logger.Warn("--token shows in the process list (ps): prefer the environment variable CBANDIT_TOKEN")
		}
	})
	srv := &http.Server{
		Handler:           h,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       60 * time.Second,
		WriteTimeout:      60 * time.Second,
		IdleTimeout:       120 * time.Second,
		MaxHeaderBytes:    64 << 10,
	}
	fmt.Fprintf(stdout, "cbandit serve: listening on http://%s (store %s); dashboard at http://%s/ui/\n", ln.Addr(), st.Kind(), ln.Addr())
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	shutdown, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := srv.Shutdown(shutdown); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// splitList splits a comma list, dropping empty entries.
func splitList(v string) []string {
	var out []string
	for _, e := range strings.Split(v, ",") {
		if e = strings.TrimSpace(e); e != "" {
			out = append(out, e)
		}
	}
	return out
}
