// Command tune-program tunes a real program on this machine through the
// cbandit ask/tell service: the program of ./workload (an in-memory search
// index over generated text), with real knobs (worker goroutines,
// batch size, queue depth, GOGC, GOMEMLIMIT, index strategy), maximising
// its throughput with its p95 per-batch latency within a limit in every
// evaluation (a stage-wise constraint), each run a child process under a
// memory limit the kernel enforces. Four workers evaluate at once; a child
// that crashes (out of memory, say) is told to the service as a failed
// evaluation. At the end, the program's default settings and the best
// configuration found are measured again, one run at a time, interleaved.
//
//	go run ./examples/tune-program                      # starts its own server on 127.0.0.1:8080
//	go run ./examples/tune-program --url http://127.0.0.1:8080   # a running `cbandit serve`
//
// Watch it at http://127.0.0.1:8080/ui/. docs/tune_program.md says what it
// found and how to tune one's own program with it.
package main

import (
	"cmp"
	"context"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"slices"
	"time"

	"github.com/cbandit/cbandit/client"
	"github.com/cbandit/cbandit/service"
	"github.com/cbandit/cbandit/service/api"
	"github.com/cbandit/cbandit/store"
)

func main() {
	if len(os.Args) > 1 && os.Args[1] == rlimitArg {
		err := limitedExec(os.Args[2:])
		fmt.Fprintln(os.Stderr, "tune-program:", err)
		os.Exit(127)
	}
	var o options
	flag.StringVar(&o.url, "url", "", "URL of a running cbandit serve (default: start a server in this process on --addr)")
	flag.StringVar(&o.addr, "addr", "127.0.0.1:8080", "address of the server started without --url (a free port if taken)")
	flag.StringVar(&o.token, "token", os.Getenv("CBANDIT_TOKEN"), "bearer token (default $CBANDIT_TOKEN)")
	flag.StringVar(&o.program, "program", "", "the program's binary (default: build ./examples/tune-program/workload)")
	flag.IntVar(&o.evals, "evals", 80, "evaluations in all")
	flag.IntVar(&o.workers, "workers", 4, "evaluations at once")
	flag.IntVar(&o.records, "records", 300_000, "records per run of the workload")
	flag.IntVar(&o.memMiB, "memory-mib", 176, "memory limit of each run, MiB")
	flag.StringVar(&o.limitKind, "limit-kind", "data", "data (RLIMIT_DATA: writable private memory) or as (RLIMIT_AS: address space)")
	flag.Float64Var(&o.p95, "p95-ms", 1000, "limit of the p95 per-batch latency, ms, in every evaluation")
	flag.DurationVar(&o.timeout, "timeout", 30*time.Second, "a run longer than this is killed and told as failed")
	flag.IntVar(&o.repeat, "repeat", 3, "runs per evaluation; the study is told each metric's median")
	flag.IntVar(&o.finalists, "finalists", 3, "feasible evaluations with the highest throughput measured again, alone, to pick the best")
	flag.IntVar(&o.reps, "reps", 7, "runs each of the default and the best configuration in the final measurement")
	flag.Uint64Var(&o.seed, "seed", 1, "the study's seed")
	flag.StringVar(&o.algorithm, "algorithm", "", "algorithm ID (default: the service's choice for a stage-wise limit on typed knobs, cei)")
	flag.BoolVar(&o.hold, "hold", false, "keep the started server (and its dashboard) up after the run, until interrupted")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, o, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "tune-program:", err)
		os.Exit(1)
	}
}

type options struct {
	url, addr, token, program, limitKind, algorithm          string
	evals, workers, records, memMiB, reps, repeat, finalists int
	p95                                                      float64
	timeout                                                  time.Duration
	seed                                                     uint64
	hold                                                     bool
}

func run(ctx context.Context, o options, out io.Writer) error {
	switch {
	case o.evals < 1:
		return fmt.Errorf("--evals = %d: must be ≥ 1", o.evals)
	case o.workers < 1:
		return fmt.Errorf("--workers = %d: must be ≥ 1", o.workers)
	case o.memMiB < 1:
		return fmt.Errorf("--memory-mib = %d: must be ≥ 1", o.memMiB)
	case o.repeat < 1:
		return fmt.Errorf("--repeat = %d: must be ≥ 1", o.repeat)
	case o.finalists < 1:
		return fmt.Errorf("--finalists = %d: must be ≥ 1", o.finalists)
	case o.reps < 1:
		return fmt.Errorf("--reps = %d: must be ≥ 1", o.reps)
	}
	if _, err := rlimitResource(o.limitKind); err != nil {
		return fmt.Errorf("--limit-kind: %w", err)
	}
	if o.program == "" {
		dir, err := os.MkdirTemp("", "tune-program")
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		fmt.Fprintln(out, "building the workload …")
		if o.program, err = buildWorkload(ctx, dir); err != nil {
			return err
		}
	}
	if o.url == "" {
		ln, err := net.Listen("tcp", o.addr)
		if err != nil {
			fmt.Fprintf(out, "%s is taken (%v): using a free port\n", o.addr, err)
			if ln, err = net.Listen("tcp", "127.0.0.1:0"); err != nil {
				return err
			}
		}
		srv := &http.Server{Handler: service.New(store.NewMemory(), service.Options{Token: o.token}), ReadHeaderTimeout: 10 * time.Second}
		go srv.Serve(ln)
		defer srv.Close()
		o.url = "http://" + ln.Addr().String()
	}
	c := client.New(o.url, client.WithToken(o.token))
	name := "tune-program-" + time.Now().Format("20060102-150405")
	st, err := c.CreateStudy(ctx, study(name, o.p95, o.seed, o.evals, o.algorithm))
	if err != nil {
		return fmt.Errorf("creating the study: %w", err)
	}
	def := defaults(runtime.GOMAXPROCS(0))
	fmt.Fprintf(out, "study %s (%s), algorithm %s; dashboard: %s/ui/\n", name, st.ID, st.Spec.Algorithm, o.url)
	fmt.Fprintf(out, "%d evaluations, %d at a time on %d cores (throughput measured under that contention), each the median of %d runs, each run a child under a %s limit of %d MiB; p95 ≤ %g ms\n",
		o.evals, o.workers, runtime.NumCPU(), o.repeat, o.limitKind, o.memMiB, o.p95)

	runner := &Runner{Program: o.program, Records: o.records, LimitBytes: uint64(o.memMiB) << 20, LimitKind: o.limitKind, Timeout: o.timeout, Repeat: o.repeat}
	t := &Tuner{Client: c, Study: st.ID, Workers: o.workers, Evals: o.evals, Eval: runner.Run, Log: out}
	start := time.Now()
	res, err := t.Run(ctx)
	if err != nil {
		return err
	}
	failed := res.FailedTold + res.Abandoned
	fmt.Fprintf(out, "\n%d evaluations in %.0f s; at most %d at once, %d duplicate(s) of a running configuration; %d failed (%d told as failed, %d abandoned)\n",
		len(res.Records), time.Since(start).Seconds(), res.MaxRunning, res.Duplicates, failed, res.FailedTold, res.Abandoned)
	sum, err := c.Summary(ctx, st.ID)
	if err != nil {
		return err
	}
	if sum.Best == nil {
		return fmt.Errorf("no evaluation met p95 ≤ %g ms: raise --p95-ms", o.p95)
	}
	if failed == 0 {
		fmt.Fprintln(out, "no configuration failed: a lower --memory-mib shows failures told as such")
	}
	fmt.Fprintf(out, "best feasible evaluation: #%d %s: %.1f MB/s, p95 %.0f ms\n", sum.Best.DecisionID, key(sum.Best.Params), sum.Best.Reward, sum.Best.Costs[0])
	if r := sum.Recommendation; r != nil && len(r.Constraints) > 0 {
		fmt.Fprintf(out, "recommended (the model's belief): #%d %s: %.1f ± %.1f MB/s, p95 %.0f ± %.0f ms, P(within the limit) %.2f\n",
			r.DecisionID, key(r.Params), r.Objective.Mean, r.Objective.Std, r.Constraints[0].Mean, r.Constraints[0].Std, r.Feasible)
	}
	fmt.Fprintln(out)
	best, err := finalist(ctx, c, st.ID, o.p95, o.finalists, runner, out)
	if err != nil {
		return err
	}

	fmt.Fprintf(out, "\nmeasuring the default and the best again: %d runs each, one at a time, interleaved …\n", o.reps)
	once := *runner
	once.Repeat = 1 // every run shown
	cm := compare(ctx, &once, def, best, o.reps)
	cm.print(out, key(def)+" (no GOMEMLIMIT)", key(best))
	if o.hold {
		fmt.Fprintf(out, "\nserving %s/ui/ until interrupted\n", o.url)
		<-ctx.Done()
	}
	return nil
}

// finalist measures the k feasible evaluations with the highest
// throughput again, one at a time (Repeat runs each, medians), and returns
// the fastest: the study's best alone is the luckiest of its noisy
// measurements (the winner's curse). Its final comparison with the default
// is made of fresh runs.
func finalist(ctx context.Context, c *client.Client, id string, p95 float64, k int, r *Runner, out io.Writer) (Config, error) {
	decs, err := c.AllDecisions(ctx, id)
	if err != nil {
		return nil, err
	}
	var top []api.DecisionRecord
	for _, d := range decs {
		if d.Reward != nil && len(d.Costs) == 1 && d.Costs[0] <= p95 {
			top = append(top, d)
		}
	}
	slices.SortStableFunc(top, func(a, b api.DecisionRecord) int { return cmp.Compare(*b.Reward, *a.Reward) })
	top = top[:min(max(k, 1), len(top))]
	fmt.Fprintf(out, "the %d fastest feasible evaluations, measured again alone (median of %d runs):\n", len(top), max(r.Repeat, 1))
	var best Config
	bestThr := -1.0
	for _, d := range top {
		o := r.Run(ctx, Config(d.Params))
		if o.Failed {
			fmt.Fprintf(out, "  #%-3d %s: FAILED (%s)\n", d.DecisionID, key(d.Params), o.Reason)
			continue
		}
		fmt.Fprintf(out, "  #%-3d %s: %.1f MB/s, p95 %.0f ms (in the study: %.1f MB/s, p95 %.0f ms)\n",
			d.DecisionID, key(d.Params), o.Objective, o.Costs[0], *d.Reward, d.Costs[0])
		if o.Objective > bestThr {
			best, bestThr = Config(d.Params), o.Objective
		}
	}
	if best == nil {
		return nil, fmt.Errorf("every finalist failed when measured again")
	}
	return best, nil
}

// buildWorkload builds the example's program into dir.
func buildWorkload(ctx context.Context, dir string) (string, error) {
	bin := filepath.Join(dir, "workload")
	cmd := exec.CommandContext(ctx, "go", "build", "-o", bin, "github.com/cbandit/cbandit/examples/tune-program/workload")
	if msg, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("building the workload (or pass --program): %v\n%s", err, msg)
	}
	return bin, nil
}

// comparison holds the final measurement: the default's and the best's
// runs, interleaved in pairs.
type comparison struct {
	def, best         []Outcome
	defFail, bestFail int
	wins, pairs       int // pairs in which the best had the higher throughput, pairs with both runs
}

// compare runs the default and the best configuration reps times each, one
// run at a time, alternating which goes first, so slow drifts of the
// machine's load fall on both.
func compare(ctx context.Context, r *Runner, def, best Config, reps int) comparison {
	var c comparison
	for i := range reps {
		var d, b Outcome
		if i%2 == 0 {
			d, b = r.Run(ctx, def), r.Run(ctx, best)
		} else {
			b, d = r.Run(ctx, best), r.Run(ctx, def)
		}
		if d.Failed {
			c.defFail++
		} else {
			c.def = append(c.def, d)
		}
		if b.Failed {
			c.bestFail++
		} else {
			c.best = append(c.best, b)
		}
		if !d.Failed && !b.Failed {
			c.pairs++
			if b.Objective > d.Objective {
				c.wins++
			}
		}
	}
	return c
}

func (c comparison) print(out io.Writer, defName, bestName string) {
	thr := func(o Outcome) float64 { return o.Objective }
	p95 := func(o Outcome) float64 { return o.Costs[0] }
	cpu := func(o Outcome) float64 { return o.CPU }
	line := func(label, name string, os []Outcome, fails int) {
		fmt.Fprintf(out, "%-8s %s\n         throughput %s MB/s, p95 latency %s ms, CPU %s s per run (median [min, max] of %d runs; %d failed)\n",
			label, name, spread(column(os, thr)), spread(column(os, p95)), spread2(column(os, cpu)), len(os), fails)
	}
	line("default", defName, c.def, c.defFail)
	line("best", bestName, c.best, c.bestFail)
	if len(c.def) > 0 && len(c.best) > 0 {
		fmt.Fprintf(out, "best / default: throughput %.2f×, CPU per run %.2f× (medians); the best was faster in %d of %d interleaved pairs\n",
			median(column(c.best, thr))/median(column(c.def, thr)), median(column(c.best, cpu))/median(column(c.def, cpu)), c.wins, c.pairs)
	}
}

func column(os []Outcome, f func(Outcome) float64) []float64 {
	xs := make([]float64, len(os))
	for i, o := range os {
		xs[i] = f(o)
	}
	slices.Sort(xs)
	return xs
}

func median(sorted []float64) float64 {
	n := len(sorted)
	if n == 0 {
		return 0
	}
	if n%2 == 1 {
		return sorted[n/2]
	}
	return (sorted[n/2-1] + sorted[n/2]) / 2
}

func spread2(sorted []float64) string {
	if len(sorted) == 0 {
		return "—"
	}
	return fmt.Sprintf("%.2f [%.2f, %.2f]", median(sorted), sorted[0], sorted[len(sorted)-1])
}

func spread(sorted []float64) string {
	if len(sorted) == 0 {
		return "—"
	}
	return fmt.Sprintf("%.1f [%.1f, %.1f]", median(sorted), sorted[0], sorted[len(sorted)-1])
}
