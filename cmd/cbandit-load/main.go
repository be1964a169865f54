// Command cbandit-load is a load generator for the cbandit decision service,
// for loopback only. Each study is driven by its own client playing rounds
// (ask one suggestion, then tell its reward and costs) on a toy 2-D system;
// it stops after --rounds rounds per study or --duration, whichever comes
// first, and prints sustained rounds per second and round latency
// percentiles.
//
//	cbandit-load --studies 1 --rounds 1000            # in-process server, SQLite in a temp dir
//	cbandit-load --studies 100 --rounds 1000 --duration 60s
//	cbandit-load --url http://127.0.0.1:8080 --token T  # a running `cbandit serve`
//
// A round's latency is the time from sending the ask to receiving the answer
// to the tell.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"math"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/cbandit/cbandit/client"
	"github.com/cbandit/cbandit/service"
	"github.com/cbandit/cbandit/service/api"
	"github.com/cbandit/cbandit/store"
)

type result struct {
	Server       string  `json:"server"`
	Algorithm    string  `json:"algorithm"`
	Studies      int     `json:"studies"`
	Candidates   int     `json:"candidates"`
	Native       bool    `json:"native"`
	Rounds       int     `json:"rounds"`
	Seconds      float64 `json:"seconds"`
	RoundsPerSec float64 `json:"rounds_per_second"`
	RequestsPerS float64 `json:"requests_per_second"`
	P50ms        float64 `json:"round_p50_ms"`
	P90ms        float64 `json:"round_p90_ms"`
	P99ms        float64 `json:"round_p99_ms"`
	MaxMs        float64 `json:"round_max_ms"`
	Errors       int     `json:"errors"`
	GOMAXPROCS   int     `json:"gomaxprocs"`
	// CPUSeconds is the CPU time of this process during the run (client and,
	// for an in-process server, the server): rounds per CPU-second is the
	// throughput a machine would give with its cores to itself.
	CPUSeconds      float64 `json:"cpu_seconds"`
	RoundsPerCPUSec float64 `json:"rounds_per_cpu_second"`
	StoppedByTime   bool    `json:"stopped_by_time"`
}

func main() {
	target := flag.String("url", "", "server to load (loopback only); default: an in-process server")
	token := flag.String("token", os.Getenv("CBANDIT_TOKEN"), "bearer token of --url (default $CBANDIT_TOKEN)")
	db := flag.String("db", "", "store of the in-process server (default sqlite: in a temporary directory)")
	studies := flag.Int("studies", 1, "studies, each driven by one client")
	rounds := flag.Int("rounds", 1000, "rounds per study (the studies' horizon; at most 100000)")
	duration := flag.Duration("duration", 60*time.Second, "stop after this long (at most 10m)")
	algo := flag.String("algorithm", "ckb-ucb", "algorithm ID")
	var params paramFlag
	flag.Var(&params, "param", "an algorithm parameter of every study, name=value (repeatable; e.g. --param refit=deferred)")
	candidates := flag.Int("candidates", 256, "candidate points of the 2-D box")
	native := flag.Bool("native", false, "give the learner the box itself (space.native) instead of the candidate set")
	jsonOut := flag.Bool("json", false, "print the result as JSON")
	flag.IntVar(&snapshotEvery, "snapshot-every", service.DefaultSnapshotEvery, "in-process server: log events between snapshots (0 or less: none)")
	cpuProfile := flag.String("cpuprofile", "", "write a CPU profile of the run (client and in-process server) to this file")
	flag.Parse()
	if *cpuProfile != "" {
		f, err := os.Create(*cpuProfile)
		if err != nil {
			fmt.Fprintln(os.Stderr, "cbandit-load:", err)
			os.Exit(1)
		}
		pprof.StartCPUProfile(f)
		defer pprof.StopCPUProfile()
	}
	if err := run(*target, *token, *db, *algo, params.m, *studies, *rounds, *candidates, *native, *duration, *jsonOut); err != nil {
		fmt.Fprintln(os.Stderr, "cbandit-load:", err)
		pprof.StopCPUProfile()
		os.Exit(1)
	}
}

// snapshotEvery is the in-process server's Options.SnapshotEvery.
var snapshotEvery int

func cpuTime() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	tv := func(t syscall.Timeval) float64 { return float64(t.Sec) + float64(t.Usec)/1e6 }
	return tv(ru.Utime) + tv(ru.Stime)
}

// loopback refuses any target that is not on this machine's loopback.
func loopback(raw string) error {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return fmt.Errorf("--url %q: not a URL", raw)
	}
	h := u.Hostname()
	if h == "localhost" {
		return nil
	}
	ip := net.ParseIP(h)
	if ip == nil || !ip.IsLoopback() {
		return fmt.Errorf("--url %q: the load generator only targets loopback addresses (127.0.0.0/8, ::1, localhost)", raw)
	}
	return nil
}

func run(target, token, db, algo string, params map[string]any, studies, rounds, candidates int, native bool, duration time.Duration, jsonOut bool) error {
	switch {
	case studies < 1 || studies > 1000:
		return fmt.Errorf("--studies = %d: must be in [1, 1000]", studies)
	case rounds < 1 || rounds > 100000:
		return fmt.Errorf("--rounds = %d: must be in [1, 100000]", rounds)
	case duration <= 0 || duration > 10*time.Minute:
		return fmt.Errorf("--duration = %v: must be in (0, 10m]", duration)
	}
	serverDesc := target
	if target == "" {
		if db == "" {
			dir, err := os.MkdirTemp("", "cbandit-load")
			if err != nil {
				return err
			}
			defer os.RemoveAll(dir)
			db = "sqlite:" + filepath.Join(dir, "load.db")
		}
		st, err := store.Open(context.Background(), db)
		if err != nil {
			return err
		}
		defer st.Close()
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return err
		}
		se := snapshotEvery
		if se <= 0 {
			se = -1 // no snapshots
		}
		srv := &http.Server{Handler: service.New(st, service.Options{Token: token, SnapshotEvery: se}), ReadHeaderTimeout: 10 * time.Second}
		go srv.Serve(ln)
		defer srv.Close()
		target = "http://" + ln.Addr().String()
		serverDesc = "in-process " + st.Kind() + " on " + ln.Addr().String()
	} else if err := loopback(target); err != nil {
		return err
	}
	hc := &http.Client{
		Timeout:   30 * time.Second,
		Transport: &http.Transport{MaxIdleConns: studies + 8, MaxIdleConnsPerHost: studies + 8, IdleConnTimeout: 30 * time.Second},
	}
	c := client.New(target, client.WithToken(token), client.WithHTTPClient(hc))
	ctx, cancel := context.WithTimeout(context.Background(), duration)
	defer cancel()
	ids := make([]string, studies)
	stamp := time.Now().UnixNano()
	for i := range ids {
		st, err := c.CreateStudy(ctx, api.StudySpec{
			Name:        fmt.Sprintf("load-%d-%d", stamp, i),
			Space:       api.Space{Type: api.SpaceBox, Lo: []float64{0, 0}, Hi: []float64{1, 1}, Candidates: candidates, Native: native},
			Objective:   api.Objective{Name: "yield"},
			Constraints: []api.Constraint{{Name: "power", Threshold: 0.5}},
			Algorithm:   algo,
			Params:      params,
			Seed:        uint64(i + 1),
			Horizon:     rounds,
		})
		if err != nil {
			return fmt.Errorf("create study: %w", err)
		}
		ids[i] = st.ID
	}
	lat := make([][]time.Duration, studies)
	errs := make([]int, studies)
	var wg sync.WaitGroup
	cpu0 := cpuTime()
	start := time.Now()
	for i := range ids {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			lat[i] = make([]time.Duration, 0, rounds)
			for r := 0; r < rounds && ctx.Err() == nil; r++ {
				t0 := time.Now()
				sg, err := c.Suggest(ctx, ids[i], 1)
				if err != nil {
					if ctx.Err() == nil {
						errs[i]++
					}
					continue
				}
				x := sg[0].X
				y := math.Exp(-((x[0]-0.7)*(x[0]-0.7) + (x[1]-0.4)*(x[1]-0.4)) / 0.1)
				if _, err := c.Observe(ctx, ids[i], api.Observation{DecisionID: sg[0].DecisionID, Reward: &y, Costs: []float64{x[0] * x[1]}}); err != nil {
					if ctx.Err() == nil || !errors.Is(err, context.DeadlineExceeded) {
						errs[i]++
					}
					continue
				}
				lat[i] = append(lat[i], time.Since(t0))
			}
		}(i)
	}
	wg.Wait()
	elapsed := time.Since(start)
	cpu := cpuTime() - cpu0
	var all []time.Duration
	nerr := 0
	for i := range lat {
		all = append(all, lat[i]...)
		nerr += errs[i]
	}
	sort.Slice(all, func(i, j int) bool { return all[i] < all[j] })
	q := func(p float64) float64 {
		if len(all) == 0 {
			return 0
		}
		k := int(math.Ceil(p*float64(len(all)))) - 1
		return float64(all[max(k, 0)].Microseconds()) / 1000
	}
	res := result{
		Server: serverDesc, Algorithm: algo, Studies: studies, Candidates: candidates, Native: native, Rounds: len(all),
		Seconds: elapsed.Seconds(), RoundsPerSec: float64(len(all)) / elapsed.Seconds(),
		RequestsPerS: 2 * float64(len(all)) / elapsed.Seconds(),
		P50ms:        q(0.50), P90ms: q(0.90), P99ms: q(0.99), MaxMs: q(1), Errors: nerr,
		GOMAXPROCS: runtime.GOMAXPROCS(0), StoppedByTime: ctx.Err() != nil,
		CPUSeconds: cpu, RoundsPerCPUSec: float64(len(all)) / cpu,
	}
	if jsonOut {
		out, _ := json.MarshalIndent(res, "", "  ")
		fmt.Println(string(out))
	} else {
		dom := fmt.Sprintf("%d candidates", candidates)
		if native {
			dom = "native box"
		}
		fmt.Printf("server %s, %s on a 2-D box (%s), %d studies, GOMAXPROCS %d\n",
			res.Server, algo, dom, studies, res.GOMAXPROCS)
		fmt.Printf("rounds %d in %.2fs: %.0f rounds/s (%.0f requests/s); round latency p50 %.2f ms, p90 %.2f ms, p99 %.2f ms, max %.2f ms; errors %d%s\n",
			res.Rounds, res.Seconds, res.RoundsPerSec, res.RequestsPerS, res.P50ms, res.P90ms, res.P99ms, res.MaxMs, res.Errors,
			map[bool]string{true: " (stopped by --duration)", false: ""}[res.StoppedByTime])
		fmt.Printf("cpu %.2fs (this process: client%s): %.0f rounds per CPU-second, %.3f ms CPU per round\n",
			cpu, map[bool]string{true: " and server", false: " only"}[strings.HasPrefix(res.Server, "in-process")],
			res.RoundsPerCPUSec, 1000*cpu/float64(max(len(all), 1)))
	}
	if nerr > 0 {
		return fmt.Errorf("%d requests failed", nerr)
	}
	return nil
}

// paramFlag collects --param name=value flags (values are passed as strings;
// the service parses them as it does any study's parameters).
type paramFlag struct{ m map[string]any }

func (p *paramFlag) String() string { return fmt.Sprint(p.m) }

func (p *paramFlag) Set(s string) error {
	name, value, ok := strings.Cut(s, "=")
	if !ok || name == "" {
		return fmt.Errorf("want name=value, got %q", s)
	}
	if p.m == nil {
		p.m = map[string]any{}
	}
	p.m[name] = value
	return nil
}
