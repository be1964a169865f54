package service

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cbandit/cbandit/service/api"
	"github.com/cbandit/cbandit/store"
	"github.com/jackc/pgx/v5/pgconn"
)

// answer is one HTTP answer of an outage test.
type answer struct {
	code int
	hdr  http.Header
	raw  []byte
}

// sendKeyed sends a JSON request with an Idempotency-Key (when key is set).
func sendKeyed(t *testing.T, url, method, path, key string, body any) answer {
	t.Helper()
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			t.Fatal(err)
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, url+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if key != "" {
		req.Header.Set("Idempotency-Key", `"`+key+`"`)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	return answer{resp.StatusCode, resp.Header, raw}
}

// wantUnavailable checks a 503 answer: Retry-After, the error shape with
// code unavailable, a request id, and none of the store's details (secret)
// nor any driver's or store's text.
func wantUnavailable(t *testing.T, what string, a answer, secret []string) {
	t.Helper()
	if a.code != http.StatusServiceUnavailable {
		t.Fatalf("%s during the outage: %d %s, want 503", what, a.code, a.raw)
	}
	if a.hdr.Get("Retry-After") == "" {
		t.Errorf("%s: a 503 without Retry-After", what)
	}
	var e api.Error
	if err := json.Unmarshal(a.raw, &e); err != nil {
		t.Fatalf("%s: %s is not the error shape: %v", what, a.raw, err)
	}
	if e.Err.Status != 503 || e.Err.Code != "unavailable" {
		t.Errorf("%s: error %+v, want status 503, code unavailable", what, e.Err)
	}
	if rid := a.hdr.Get("X-Request-Id"); rid == "" || !strings.Contains(e.Err.Message, rid) {
		t.Errorf("%s: message %q does not name the request id %q", what, e.Err.Message, rid)
	}
	noSecrets(t, what, a.raw, secret)
}

// noSecrets fails when an answer holds a store's detail or text.
func noSecrets(t *testing.T, what string, raw []byte, secret []string) {
	t.Helper()
	for _, s := range append([]string{"store:", "unexpected EOF", "conn closed", "connection refused", "SQLITE", "disk"}, secret...) {
		if s != "" && bytes.Contains(raw, []byte(s)) {
			t.Errorf("%s: the answer %s holds %q", what, raw, s)
		}
	}
}

// outage runs the common scenario against a server (url) whose store
// breakDown makes unavailable and bringUp brings back: during the outage
// asks, tells and /healthz are 503s naming none of secret; afterwards
// everything recovers by itself, and the keyed ask sent during the outage,
// re-sent to the server at other (a replica, or url again), is executed
// once.
func outage(t *testing.T, url, other string, breakDown, bringUp func(), secret []string) {
	t.Helper()
	var st api.Study
	a := sendKeyed(t, url, "POST", "/studies", "", toySpec(fmt.Sprintf("outage-%d", time.Now().UnixNano())))
	if a.code != http.StatusCreated || json.Unmarshal(a.raw, &st) != nil {
		t.Fatalf("create: %d %s", a.code, a.raw)
	}
	var first api.SuggestResponse
	if a = sendKeyed(t, url, "POST", "/studies/"+st.ID+"/suggestions", "warm", api.SuggestRequest{Count: 1}); a.code != 200 || json.Unmarshal(a.raw, &first) != nil {
		t.Fatalf("ask: %d %s", a.code, a.raw)
	}
	before := metricValue(t, url, "cbandit_store_unavailable_total")

	breakDown()
	wantUnavailable(t, "ask", sendKeyed(t, url, "POST", "/studies/"+st.ID+"/suggestions", "during", api.SuggestRequest{Count: 1}), secret)
	wantUnavailable(t, "tell", sendKeyed(t, url, "POST", "/studies/"+st.ID+"/observations", "tell-1",
		api.Observation{DecisionID: first.Suggestions[0].DecisionID, Reward: f64(0.5), Costs: []float64{0.1}}), secret)
	h := sendKeyed(t, url, "GET", "/healthz", "", nil)
	var health api.Health
	if h.code != http.StatusServiceUnavailable || h.hdr.Get("Retry-After") == "" || json.Unmarshal(h.raw, &health) != nil ||
		health.Status != "unavailable" || health.Reason == "" {
		t.Errorf("healthz during the outage: %d %s (Retry-After %q), want 503 unavailable with a reason", h.code, h.raw, h.hdr.Get("Retry-After"))
	}
	noSecrets(t, "healthz", h.raw, secret)
	if l := sendKeyed(t, url, "GET", "/livez", "", nil); l.code != 200 {
		t.Errorf("livez during the outage: %d %s", l.code, l.raw)
	}
	if n := metricValue(t, url, "cbandit_store_unavailable_total"); n <= before {
		t.Errorf("cbandit_store_unavailable_total = %d after the outage's errors, was %d", n, before)
	}
	if n := metricValue(t, url, "cbandit_unavailable_answers_total"); n < 3 {
		t.Errorf("cbandit_unavailable_answers_total = %d, want ≥ 3 (ask, tell, healthz)", n)
	}

	bringUp()
	// Back by itself: /healthz turns 200 (the store's server may take a
	// while to accept connections again: polled, not timed).
	deadline := time.Now().Add(60 * time.Second)
	for {
		if h = sendKeyed(t, url, "GET", "/healthz", "", nil); h.code == 200 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("healthz after the outage: %d %s", h.code, h.raw)
		}
		time.Sleep(100 * time.Millisecond)
	}
	url = other
	var again, replay api.SuggestResponse
	if a = sendKeyed(t, url, "POST", "/studies/"+st.ID+"/suggestions", "during", api.SuggestRequest{Count: 1}); a.code != 200 || json.Unmarshal(a.raw, &again) != nil {
		t.Fatalf("the keyed ask re-sent after the outage: %d %s", a.code, a.raw)
	}
	if a.hdr.Get("Idempotent-Replayed") != "" {
		t.Errorf("the ask refused during the outage was replayed: it was committed then")
	}
	if a = sendKeyed(t, url, "POST", "/studies/"+st.ID+"/suggestions", "during", api.SuggestRequest{Count: 1}); a.code != 200 || json.Unmarshal(a.raw, &replay) != nil {
		t.Fatalf("the keyed ask sent a third time: %d %s", a.code, a.raw)
	}
	if replay.Suggestions[0].DecisionID != again.Suggestions[0].DecisionID || again.Suggestions[0].DecisionID != first.Suggestions[0].DecisionID+1 {
		t.Errorf("decisions %d, then %d and %d for one key: want %d twice", first.Suggestions[0].DecisionID,
			again.Suggestions[0].DecisionID, replay.Suggestions[0].DecisionID, first.Suggestions[0].DecisionID+1)
	}
	if a = sendKeyed(t, url, "POST", "/studies/"+st.ID+"/observations", "tell-1",
		api.Observation{DecisionID: first.Suggestions[0].DecisionID, Reward: f64(0.5), Costs: []float64{0.1}}); a.code != 200 {
		t.Fatalf("the tell re-sent after the outage: %d %s", a.code, a.raw)
	}
	var got api.Study
	if a = sendKeyed(t, url, "GET", "/studies/"+st.ID, "", nil); a.code != 200 || json.Unmarshal(a.raw, &got) != nil {
		t.Fatalf("study: %d %s", a.code, a.raw)
	}
	if got.Rounds != 2 {
		t.Errorf("the study has %d decisions after the outage, want 2 (one before, one for the re-sent key)", got.Rounds)
	}
}

// TestOutageMemory: the memory store with an injected fault.
func TestOutageMemory(t *testing.T) {
	st := store.NewMemory()
	s := newTestServer(t, st, Options{})
	secret := "user=postgres database=cbandit 10.9.8.7:5432"
	outage(t, s.url, s.url, func() { st.SetFault(errors.New("dial " + secret + ": connection refused")) },
		func() { st.SetFault(nil) }, []string{"postgres", "10.9.8.7", "5432"})
}

// lostCommit is a fault-injecting store: while lose is set, an Update is
// applied and then reported as an outage, as a connection lost during
// COMMIT leaves it (applied, the answer lost).
type lostCommit struct {
	store.Store
	lose atomic.Bool
}

func (s *lostCommit) Update(ctx context.Context, id string, known int64, fn store.UpdateFunc) (int64, error) {
	n, err := s.Store.Update(ctx, id, known, fn)
	if err == nil && s.lose.Load() {
		return n, fmt.Errorf("%w: store: append: commit: unexpected EOF", store.ErrUnavailable)
	}
	return n, err
}

// TestOutageLostCommit: an ask committed but answered 503 (the connection
// lost during COMMIT), re-sent with its key, gets the decision committed
// then, and no other; a tell likewise is not applied twice.
func TestOutageLostCommit(t *testing.T) {
	st := &lostCommit{Store: store.NewMemory()}
	s := newTestServer(t, st, Options{})
	study := s.create(toySpec("lost-commit"))
	first := s.ask(study.ID, 1)[0]
	st.lose.Store(true)
	wantUnavailable(t, "ask", sendKeyed(t, s.url, "POST", "/studies/"+study.ID+"/suggestions", "k", api.SuggestRequest{Count: 1}), nil)
	wantUnavailable(t, "tell", sendKeyed(t, s.url, "POST", "/studies/"+study.ID+"/observations", "t",
		api.Observation{DecisionID: first.DecisionID, Reward: f64(1), Costs: []float64{0.2}}), nil)
	st.lose.Store(false)
	var r api.SuggestResponse
	a := sendKeyed(t, s.url, "POST", "/studies/"+study.ID+"/suggestions", "k", api.SuggestRequest{Count: 1})
	if a.code != 200 || json.Unmarshal(a.raw, &r) != nil {
		t.Fatalf("re-sent ask: %d %s", a.code, a.raw)
	}
	if a.hdr.Get("Idempotent-Replayed") != "true" || r.Suggestions[0].DecisionID != first.DecisionID+1 {
		t.Errorf("re-sent ask: decision %d (replayed %q), want the committed %d replayed", r.Suggestions[0].DecisionID,
			a.hdr.Get("Idempotent-Replayed"), first.DecisionID+1)
	}
	if a = sendKeyed(t, s.url, "POST", "/studies/"+study.ID+"/observations", "t",
		api.Observation{DecisionID: first.DecisionID, Reward: f64(1), Costs: []float64{0.2}}); a.code != 200 {
		t.Fatalf("re-sent tell: %d %s", a.code, a.raw)
	}
	rec, err := st.Get(context.Background(), study.ID)
	if err != nil {
		t.Fatal(err)
	}
	if rec.Asks != 2 || rec.Len != 3 {
		t.Errorf("log: %d events, %d decisions; want 3 events (two asks, one tell), 2 decisions", rec.Len, rec.Asks)
	}
}

// TestInternalErrorScrubbed: a 500 carries no error's text, only a request
// id the server's log has.
func TestInternalErrorScrubbed(t *testing.T) {
	st := &failingGet{Store: store.NewMemory()}
	s := newTestServer(t, st, Options{})
	a := sendKeyed(t, s.url, "GET", "/studies/x", "", nil)
	if a.code != 500 {
		t.Fatalf("GET with a failing store: %d %s", a.code, a.raw)
	}
	noSecrets(t, "500", a.raw, []string{"secret-detail"})
	if rid := a.hdr.Get("X-Request-Id"); rid == "" || !bytes.Contains(a.raw, []byte(rid)) {
		t.Errorf("500 %s does not name its request id %q", a.raw, rid)
	}
}

// failingGet is a store whose Get fails with an error that is not an
// outage (a defect).
type failingGet struct{ store.Store }

func (failingGet) Get(context.Context, string) (store.Study, error) {
	return store.Study{}, errors.New("store: get study: secret-detail")
}

// tmpfs mounts a small tmpfs (size, e.g. "4m") for a test, or skips it
// where the machine does not allow (not root, no mount in a container).
func tmpfs(t *testing.T, size string) string {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("mounting a tmpfs needs root: the SQLite outage is covered by the memory store's injected fault")
	}
	dir := filepath.Join(t.TempDir(), "fs")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size="+size, "tmpfs", dir).CombinedOutput(); err != nil {
		t.Skipf("cannot mount a tmpfs here (%v: %s): the SQLite outage is covered by the memory store's injected fault", err, out)
	}
	t.Cleanup(func() {
		if out, err := exec.Command("umount", dir).CombinedOutput(); err != nil {
			t.Errorf("umount %s: %v: %s", dir, err, out)
		}
	})
	return dir
}

// sqliteOn opens a SQLite store in dir and serves it; the store is closed
// before the file system goes.
func sqliteOn(t *testing.T, dir string) string {
	t.Helper()
	st, err := store.OpenSQLite(context.Background(), filepath.Join(dir, "s.db"))
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(New(st, Options{SnapshotEvery: -1}))
	t.Cleanup(func() { srv.Close(); st.Close() })
	return srv.URL
}

// TestOutageSQLiteDiskFull: the SQLite file's disk full (a small tmpfs
// filled up) is an outage: 503s, /healthz 503, and all well once space is
// freed.
func TestOutageSQLiteDiskFull(t *testing.T) {
	dir := tmpfs(t, "4m")
	url := sqliteOn(t, dir)
	filler := filepath.Join(dir, "filler")
	outage(t, url, url, func() {
		f, err := os.Create(filler)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		chunk := make([]byte, 64<<10)
		for {
			if _, err := f.Write(chunk); err != nil {
				break // ENOSPC: the disk is full
			}
		}
	}, func() {
		if err := os.Remove(filler); err != nil {
			t.Fatal(err)
		}
	}, []string{dir})
}

// TestOutagePostgres: PostgreSQL under two replicas, stopped as by a
// crash (pg_ctl stop -m immediate) and started again: 503s and /healthz
// 503 naming neither the database's host, port, user nor name, then all
// well by itself, the keyed ask of the outage re-sent to the other
// replica executed once. It needs the server's pg_ctl and data directory
// (CBANDIT_TEST_PG_CTL, CBANDIT_TEST_PG_DATA: .ci/postgres.sh exports
// them) and must run alone: it stops the server other tests use.
func TestOutagePostgres(t *testing.T) {
	dsn := postgresDSN(t)
	pgctl, data := os.Getenv("CBANDIT_TEST_PG_CTL"), os.Getenv("CBANDIT_TEST_PG_DATA")
	if pgctl == "" || data == "" {
		t.Skip("CBANDIT_TEST_PG_CTL and CBANDIT_TEST_PG_DATA are not set: no PostgreSQL server to stop and start (.ci/postgres.sh exports them; .ci/run runs this test alone)")
	}
	cmd := func(args ...string) *exec.Cmd {
		args = append([]string{"-D", data}, args...)
		if os.Geteuid() == 0 { // the server runs as its data directory's owner
			return exec.Command("runuser", append([]string{"-u", "postgres", "--", pgctl}, args...)...)
		}
		return exec.Command(pgctl, args...)
	}
	ctl := func(args ...string) {
		t.Helper()
		if out, err := cmd(args...).CombinedOutput(); err != nil {
			t.Fatalf("pg_ctl %v: %v: %s", args, err, out)
		}
	}
	t.Cleanup(func() { // the server is left running for whatever follows
		if cmd("status").Run() != nil {
			ctl("-l", filepath.Join(filepath.Dir(data), "server.log"), "-w", "start")
		}
	})
	a := newTestServer(t, openPG(t, dsn), Options{})
	b := newTestServer(t, openPG(t, dsn), Options{})
	cfg, err := pgconn.ParseConfig(dsn)
	if err != nil {
		t.Fatal(err)
	}
	secret := []string{cfg.Host, fmt.Sprint(cfg.Port), "user=", "database=", cfg.Database + " "}
	outage(t, a.url, b.url, func() { ctl("-m", "immediate", "stop") },
		func() { ctl("-l", filepath.Join(filepath.Dir(data), "server.log"), "-w", "start") }, secret)
}
