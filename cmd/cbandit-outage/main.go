// Command cbandit-outage is the harness, run by hand (not in CI), that
// crashes PostgreSQL under two `cbandit serve` replicas and counts what the
// clients see: it starts the replicas on the database, drives one study per
// client (ask, then tell, each with an Idempotency-Key, re-sent to the other
// replica on a 503 or a lost connection, honouring Retry-After, for at most
// 30 s), stops PostgreSQL as a crash does (pg_ctl stop -m immediate) every
// few seconds and starts it again after 0.2–3 s, and at the end compares
// every acknowledged decision and observation with the log. It prints the
// answers by status, the 503s with and without Retry-After, the answers
// that name the database's user, name, host or port, and the acknowledged
// decisions and observations lost or altered. docs/operations.md has the
// command and its figures.
//
//	cbandit-outage --bin ./cbandit --dsn 'postgres://postgres@127.0.0.1:55491/cbandit?sslmode=disable' \
//	  --pg-ctl /usr/lib/postgresql/15/bin/pg_ctl --pg-data /tmp/outages-pg/data --duration 60s
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cbandit/cbandit/service/api"
)

func main() {
	bin := flag.String("bin", "cbandit", "the cbandit binary")
	dsn := flag.String("dsn", "", "PostgreSQL URL of the replicas' store")
	pgctl := flag.String("pg-ctl", "", "pg_ctl of the server to crash")
	pgdata := flag.String("pg-data", "", "its data directory")
	pguser := flag.String("pg-user", "postgres", "the server's system user (pg_ctl runs as it when this runs as root)")
	duration := flag.Duration("duration", 60*time.Second, "how long the clients run and PostgreSQL is crashed")
	clients := flag.Int("clients", 6, "clients, one study each")
	seed := flag.Uint64("seed", 1, "seed of the crash schedule")
	flag.Parse()
	if *dsn == "" || *pgctl == "" || *pgdata == "" {
		fmt.Fprintln(os.Stderr, "cbandit-outage: --dsn, --pg-ctl and --pg-data are required")
		os.Exit(2)
	}
	u, err := url.Parse(*dsn)
	if err != nil {
		fail(err)
	}
	secrets := []string{"user=", "database=", u.Hostname() + ":" + u.Port(), u.Port()}
	logDir, err := os.MkdirTemp("", "cbandit-outage-")
	if err != nil {
		fail(err)
	}
	ctl := func(args ...string) error {
		args = append([]string{"-D", *pgdata}, args...)
		cmd := exec.Command(*pgctl, args...)
		if os.Geteuid() == 0 {
			cmd = exec.Command("runuser", append([]string{"-u", *pguser, "--", *pgctl}, args...)...)
		}
		out, err := cmd.CombinedOutput()
		if err != nil {
			return fmt.Errorf("pg_ctl %v: %v: %s", args, err, out)
		}
		return nil
	}
	start := func() error {
		return ctl("-l", filepath.Join(filepath.Dir(*pgdata), "server.log"), "-w", "-t", "60", "start")
	}

	var replicas []string
	for i := range 2 {
		r, cmd, err := serve(*bin, *dsn, filepath.Join(logDir, fmt.Sprintf("replica-%d.log", i)))
		if err != nil {
			fail(err)
		}
		stops = append(stops, func() { cmd.Process.Kill(); cmd.Wait() })
		replicas = append(replicas, r)
	}
	defer stopAll()
	h := &harness{replicas: replicas, secrets: secrets, byStatus: map[string]int{}, downStatus: map[string]int{}}
	studies := make([]string, *clients)
	for i := range studies {
		var st api.Study
		a := h.call("", 0, "POST", "/studies", api.StudySpec{
			Name:        fmt.Sprintf("outage-%d-%d", time.Now().Unix(), i),
			Space:       api.Space{Type: api.SpaceBox, Lo: []float64{0, 0}, Hi: []float64{1, 1}, Candidates: 64},
			Objective:   api.Objective{Name: "yield"},
			Constraints: []api.Constraint{{Name: "power", Threshold: 0.5}},
			Algorithm:   "ckb-ucb",
			Seed:        uint64(i + 1),
		})
		if a.code != http.StatusCreated || json.Unmarshal(a.body, &st) != nil {
			fail(fmt.Errorf("create: %d %s", a.code, a.body))
		}
		studies[i] = st.ID
	}

	end := time.Now().Add(*duration)
	var wg sync.WaitGroup
	acks := make([]*ledger, *clients)
	for i := range *clients {
		acks[i] = &ledger{decisions: map[int64][]float64{}, observations: map[int64]api.Observation{}}
		wg.Add(1)
		go func() {
			defer wg.Done()
			h.drive(i, studies[i], end, acks[i])
		}()
	}
	// The crashes: up 2–5 s, down 0.2–3 s.
	rng := rand.New(rand.NewPCG(*seed, 0))
	crashes := 0
	var downTime time.Duration
	for time.Now().Before(end) {
		time.Sleep(time.Duration(2000+rng.IntN(3000)) * time.Millisecond)
		if time.Now().After(end) {
			break
		}
		h.down.Store(true)
		t0 := time.Now()
		if err := ctl("-m", "immediate", "stop"); err != nil {
			fail(err)
		}
		crashes++
		time.Sleep(time.Duration(200+rng.IntN(2800)) * time.Millisecond)
		if err := start(); err != nil {
			fail(err)
		}
		downTime += time.Since(t0)
		h.down.Store(false)
	}
	wg.Wait()

	// Every acknowledged decision and observation, read back from the
	// other replica.
	lost, altered, unacked := 0, 0, 0
	ackedDecisions, ackedObservations := 0, 0
	for i, id := range studies {
		log := h.decisions(id)
		l := acks[i]
		ackedDecisions += len(l.decisions)
		ackedObservations += len(l.observations)
		for did, x := range l.decisions {
			d, ok := log[did]
			switch {
			case !ok:
				lost++
			case !equal(d.X, x):
				altered++
			}
		}
		for did, o := range l.observations {
			d, ok := log[did]
			switch {
			case !ok || d.Reward == nil:
				lost++
			case *d.Reward != *o.Reward || !equal(d.Costs, o.Costs):
				altered++
			}
		}
		for did := range log {
			if _, ok := l.decisions[did]; !ok {
				unacked++
			}
		}
	}
	codes := make([]string, 0, len(h.byStatus))
	for c := range h.byStatus {
		codes = append(codes, c)
	}
	sort.Strings(codes)
	fmt.Printf("run: %v, %d clients on 2 replicas, %d crashes of PostgreSQL (down %.1f s in all)\n", *duration, *clients, crashes, downTime.Seconds())
	for _, c := range codes {
		fmt.Printf("answers %s: %d\n", c, h.byStatus[c])
	}
	fmt.Printf("answers to requests sent and answered while PostgreSQL was down (from pg_ctl stop to the end of pg_ctl start -w): %d, of them 503 with Retry-After %d; by status %v\n",
		h.duringDown.Load(), h.down503.Load(), h.downStatus)
	fmt.Printf("answers 503: %d, with Retry-After %d\n", h.n503.Load(), h.n503RA.Load())
	fmt.Printf("answers naming the store's user, database, host or port: %d\n", h.leaks.Load())
	fmt.Printf("requests given up (30 s of retries): %d\n", h.givenUp.Load())
	fmt.Printf("acknowledged decisions %d, observations %d: lost %d, altered %d; decisions in the logs no client acknowledged: %d\n",
		ackedDecisions, ackedObservations, lost, altered, unacked)
	fmt.Printf("replicas' logs: %s (%d lines with status=500, %d with status=503)\n", logDir,
		grep(logDir, "status=500"), grep(logDir, "status=503"))
}

type harness struct {
	replicas []string
	secrets  []string
	down     atomic.Bool

	mu         sync.Mutex
	byStatus   map[string]int
	downStatus map[string]int // of the answers sent and answered while the server was down

	duringDown, down503, n503, n503RA, leaks, givenUp atomic.Int64
}

type answer struct {
	code       int
	retryAfter string
	body       []byte
}

// ledger is what a client was acknowledged.
type ledger struct {
	decisions    map[int64][]float64
	observations map[int64]api.Observation
}

// call sends one request to replica r and counts its answer; a lost
// connection is status 0.
func (h *harness) call(key string, r int, method, path string, body any) answer {
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	down := h.down.Load()
	req, _ := http.NewRequest(method, h.replicas[r%len(h.replicas)]+path, rd)
	req.Header.Set("Content-Type", "application/json")
	if key != "" {
		req.Header.Set("Idempotency-Key", `"`+key+`"`)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	resp, err := http.DefaultClient.Do(req.WithContext(ctx))
	a := answer{}
	if err == nil {
		a.body, err = io.ReadAll(resp.Body)
		resp.Body.Close()
		a.code, a.retryAfter = resp.StatusCode, resp.Header.Get("Retry-After")
	}
	label := strconv.Itoa(a.code)
	if err != nil {
		a.code, label = 0, "lost connection"
	}
	h.mu.Lock()
	h.byStatus[label]++
	h.mu.Unlock()
	if a.code == http.StatusServiceUnavailable {
		h.n503.Add(1)
		if a.retryAfter != "" {
			h.n503RA.Add(1)
		}
	}
	if down && h.down.Load() { // sent and answered while the server was down
		h.duringDown.Add(1)
		h.mu.Lock()
		h.downStatus[label]++
		h.mu.Unlock()
		if a.code == http.StatusServiceUnavailable && a.retryAfter != "" {
			h.down503.Add(1)
		}
	}
	for _, s := range h.secrets {
		if s != "" && bytes.Contains(a.body, []byte(s)) {
			h.leaks.Add(1)
			break
		}
	}
	return a
}

// keyed sends a keyed request until an answer other than 503 or a lost
// connection, failing over to the other replica, within 30 s.
func (h *harness) keyed(r *int, key, method, path string, body any) (answer, bool) {
	deadline := time.Now().Add(30 * time.Second)
	for {
		a := h.call(key, *r, method, path, body)
		if a.code != 0 && a.code != http.StatusServiceUnavailable {
			return a, true
		}
		*r++ // fail over
		wait := 200 * time.Millisecond
		if s, err := strconv.Atoi(a.retryAfter); err == nil {
			wait = time.Duration(s) * time.Second
		}
		if time.Now().Add(wait).After(deadline) {
			h.givenUp.Add(1)
			return a, false
		}
		time.Sleep(wait)
	}
}

// drive plays rounds of a study until end: ask, then tell, each keyed.
func (h *harness) drive(c int, study string, end time.Time, l *ledger) {
	r := c
	for k := 0; time.Now().Before(end); k++ {
		a, ok := h.keyed(&r, fmt.Sprintf("c%d-ask-%d", c, k), "POST", "/studies/"+study+"/suggestions", api.SuggestRequest{Count: 1})
		var sg api.SuggestResponse
		if !ok || a.code != 200 || json.Unmarshal(a.body, &sg) != nil || len(sg.Suggestions) != 1 {
			continue
		}
		s := sg.Suggestions[0]
		l.decisions[s.DecisionID] = s.X
		x := s.X
		reward := math.Exp(-((x[0]-0.7)*(x[0]-0.7) + (x[1]-0.3)*(x[1]-0.3)) / 0.1)
		o := api.Observation{DecisionID: s.DecisionID, Reward: &reward, Costs: []float64{x[0]}}
		if a, ok := h.keyed(&r, fmt.Sprintf("c%d-tell-%d", c, k), "POST", "/studies/"+study+"/observations", o); ok && a.code == 200 {
			l.observations[s.DecisionID] = o
		}
	}
}

// decisions reads a study's log from the second replica, by decision.
func (h *harness) decisions(id string) map[int64]api.DecisionRecord {
	out := map[int64]api.DecisionRecord{}
	after := int64(0)
	for {
		resp, err := http.Get(fmt.Sprintf("%s/studies/%s/decisions?after=%d&limit=1000", h.replicas[1], id, after))
		if err != nil {
			fail(err)
		}
		var l api.DecisionList
		err = json.NewDecoder(resp.Body).Decode(&l)
		resp.Body.Close()
		if err != nil || resp.StatusCode != 200 {
			fail(fmt.Errorf("decisions of %s: %d %v", id, resp.StatusCode, err))
		}
		for _, d := range l.Decisions {
			out[d.DecisionID] = d
		}
		if l.Next == 0 {
			return out
		}
		after = l.Next
	}
}

// stops end the replicas this process started.
var stops []func()

func stopAll() {
	for _, stop := range stops {
		stop()
	}
}

// serve starts `cbandit serve` on a free port, its log in logPath, and
// returns its URL and process.
func serve(bin, dsn, logPath string) (string, *exec.Cmd, error) {
	logf, err := os.Create(logPath)
	if err != nil {
		return "", nil, err
	}
	cmd := exec.Command(bin, "serve", "--addr", "127.0.0.1:0", "--db", dsn)
	cmd.Stderr = logf
	out, err := cmd.StdoutPipe()
	if err != nil {
		return "", nil, err
	}
	if err := cmd.Start(); err != nil {
		return "", nil, err
	}
	sc := bufio.NewScanner(out)
	if !sc.Scan() {
		cmd.Process.Kill()
		return "", nil, fmt.Errorf("%s serve did not start (log: %s)", bin, logPath)
	}
	line := sc.Text()
	go io.Copy(logf, out)
	i := strings.Index(line, "http://")
	if i < 0 {
		cmd.Process.Kill()
		return "", nil, fmt.Errorf("unexpected first line %q", line)
	}
	return strings.Fields(line[i:])[0], cmd, nil
}

func equal(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// grep counts the lines holding s in the files of dir.
func grep(dir, s string) int {
	n := 0
	files, _ := filepath.Glob(filepath.Join(dir, "*.log"))
	for _, f := range files {
		b, _ := os.ReadFile(f)
		n += bytes.Count(b, []byte(s))
	}
	return n
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "cbandit-outage:", err)
	stopAll()
	os.Exit(1)
}
