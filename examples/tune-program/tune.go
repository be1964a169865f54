package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/cbandit/cbandit/client"
	"github.com/cbandit/cbandit/service/api"
)

// Tuner runs a study's evaluations with Workers goroutines, each asking the
// service for a configuration, evaluating it and telling the result.
type Tuner struct {
	Client  *client.Client
	Study   string
	Workers int
	Evals   int                                   // evaluations in all
	Eval    func(context.Context, Config) Outcome // runs one configuration
	Log     io.Writer                             // one line per evaluation
}

// Record is one evaluation as the tuner saw it.
type Record struct {
	Decision   int64
	Worker     int
	Config     Config
	Key        string // the configuration, canonically written
	Start, End time.Time
	Outcome    Outcome
	// Told is how the result reached the service: "observed", "failed" (a
	// failed observation) or "abandoned" (the server refused the failed
	// observation, so the decision was abandoned instead).
	Told string
	// Running is the number of evaluations running when this one started,
	// itself included; Duplicate says one of the others had the same
	// configuration.
	Running   int
	Duplicate bool
}

// Result is what a run of the tuner did.
type Result struct {
	Records       []Record
	MaxRunning    int    // most evaluations running at once
	Duplicates    int    // evaluations started while the same configuration ran
	FailedTold    int    // failures told as failed observations
	Abandoned     int    // failures abandoned because the server refused them as failed
	FailedRefusal string // the server's answer to the first refused failed observation
}

// Run runs the evaluations. It stops at the first error of the service
// (after the running evaluations have been told).
func (t *Tuner) Run(ctx context.Context) (*Result, error) {
	var (
		mu      sync.Mutex
		res     Result
		running = map[string]int{} // configuration → evaluations running it
		started int
		first   error
	)
	fail := func(err error) {
		mu.Lock()
		if first == nil {
			first = err
		}
		mu.Unlock()
	}
	claim := func() bool {
		mu.Lock()
		defer mu.Unlock()
		if first != nil || started >= t.Evals || ctx.Err() != nil {
			return false
		}
		started++
		return true
	}
	var wg sync.WaitGroup
	for w := 1; w <= t.Workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for claim() {
				sg, err := t.Client.Suggest(ctx, t.Study, 1)
				if err != nil {
					fail(fmt.Errorf("worker %d: ask: %w", w, err))
					return
				}
				if len(sg) != 1 {
					fail(fmt.Errorf("worker %d: ask: %d suggestions, want 1", w, len(sg)))
					return
				}
				s := sg[0]
				rec := Record{Decision: s.DecisionID, Worker: w, Config: Config(s.Params), Key: key(s.Params), Start: time.Now()}
				mu.Lock()
				rec.Duplicate = running[rec.Key] > 0
				running[rec.Key]++
				for _, n := range running {
					rec.Running += n
				}
				res.MaxRunning = max(res.MaxRunning, rec.Running)
				if rec.Duplicate {
					res.Duplicates++
				}
				mu.Unlock()

				rec.Outcome = t.Eval(ctx, rec.Config)
				rec.End = time.Now()

				mu.Lock()
				if running[rec.Key]--; running[rec.Key] == 0 {
					delete(running, rec.Key)
				}
				mu.Unlock()
				told, refusal, err := t.tell(ctx, s.DecisionID, rec.Outcome)
				if err != nil {
					fail(fmt.Errorf("worker %d: tell decision %d: %w", w, s.DecisionID, err))
					return
				}
				rec.Told = told
				mu.Lock()
				switch told {
				case "failed":
					res.FailedTold++
				case "abandoned":
					res.Abandoned++
					if res.FailedRefusal == "" {
						res.FailedRefusal = refusal
						fmt.Fprintf(t.Log, "the server refused a failed observation (%s): failures are abandoned instead\n", refusal)
					}
				}
				res.Records = append(res.Records, rec)
				t.logRecord(rec, len(res.Records))
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	sort.Slice(res.Records, func(i, j int) bool { return res.Records[i].Decision < res.Records[j].Decision })
	return &res, first
}

// tell reports an outcome: metrics as an observation, a failure as a failed
// observation (service/api Observation.Failed) — or, when the server does
// not accept those yet, as an abandoned decision, and then refusal is the
// server's answer.
func (t *Tuner) tell(ctx context.Context, id int64, o Outcome) (told, refusal string, err error) {
	if !o.Failed {
		_, err := t.Client.Observe(ctx, t.Study, api.Observation{DecisionID: id, Reward: client.Float(o.Objective), Costs: o.Costs})
		return "observed", "", err
	}
	r, err := t.Client.Observe(ctx, t.Study, api.Observation{DecisionID: id, Failed: true, Reason: o.Reason})
	var ae *api.Error
	switch {
	case errors.As(err, &ae) && ae.Err.Status >= 400 && ae.Err.Status < 500:
		refusal = ae.Error()
	case err != nil:
		return "", "", err
	case len(r.Applied) == 0 && len(r.Duplicate) == 0:
		// Accepted but recorded nothing: the decision would stay pending.
		refusal = "200 with nothing applied"
	default:
		return "failed", "", nil
	}
	if err := t.Client.Abandon(ctx, t.Study, id); err != nil {
		return "", "", err
	}
	return "abandoned", refusal, nil
}

func (t *Tuner) logRecord(r Record, n int) {
	what := fmt.Sprintf("FAILED (%s), told as %s", r.Outcome.Reason, r.Told)
	if !r.Outcome.Failed {
		what = fmt.Sprintf("%6.1f MB/s  p95 %6.0f ms", r.Outcome.Objective, r.Outcome.Costs[0])
	}
	distinct := "all distinct"
	if r.Duplicate {
		distinct = "DUPLICATE of a running configuration"
	}
	fmt.Fprintf(t.Log, "%3d/%d  #%-3d w%d  %-70s %s  [%.1f s, %.0f MiB; %d running, %s]\n",
		n, t.Evals, r.Decision, r.Worker, r.Key, what, r.Outcome.Seconds, r.Outcome.MaxRSSMiB, r.Running, distinct)
}

// key writes a configuration canonically: names sorted, ints as integers.
func key(c map[string]any) string {
	names := make([]string, 0, len(c))
	for n := range c {
		names = append(names, n)
	}
	slices.Sort(names)
	var b strings.Builder
	for i, n := range names {
		if i > 0 {
			b.WriteByte(' ')
		}
		fmt.Fprintf(&b, "%s=%v", n, c[n])
	}
	return b.String()
}
