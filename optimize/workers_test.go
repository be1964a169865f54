package optimize_test

import (
	"context"
	"fmt"
	"math"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cbandit/cbandit/bandit"
	"github.com/cbandit/cbandit/optimize"
)

// TestRunNonFiniteFails: an objective that returns NaN every 5th
// evaluation, and a metric +Inf once, makes failed trials naming the
// value, counted toward the horizon, and the run completes, one worker or
// four asynchronous ones.
func TestRunNonFiniteFails(t *testing.T) {
	fn := func(p optimize.Point) (float64, []float64, error) {
		obj, ms := -(p.X[0]-0.3)*(p.X[0]-0.3), []float64{p.X[0]}
		switch {
		case p.Round%5 == 0:
			obj = math.NaN()
		case p.Round == 7:
			ms[0] = math.Inf(1)
		}
		return obj, ms, nil
	}
	for _, workers := range []int{1, 4} {
		r, err := optimize.Run(context.Background(), fn, optimize.Options{Lo: []float64{0}, Hi: []float64{1}, Horizon: 20,
			Workers: workers, Seed: 1, Constraints: []optimize.Constraint{{Name: "latency", Max: 0.5}}})
		if err != nil {
			t.Fatalf("%d workers: %v", workers, err)
		}
		if len(r.Trials) != 20 || r.Failed != 5 {
			t.Fatalf("%d workers: %d trials, %d failed: want 20, 5", workers, len(r.Trials), r.Failed)
		}
		for _, tr := range r.Trials {
			want := ""
			switch {
			case tr.Round%5 == 0:
				want = "objective returned NaN"
			case tr.Round == 7:
				want = `metric "latency" returned +Inf`
			}
			if tr.Failed != (want != "") || tr.Reason != want || tr.Abandoned || tr.Failed == (tr.Metrics != nil) {
				t.Fatalf("%d workers, round %d: %+v: want failed %v, reason %q", workers, tr.Round, tr, want != "", want)
			}
		}
		if r.Best == nil || math.IsNaN(r.Best.Objective) || r.Best.Failed {
			t.Fatalf("%d workers: best %+v", workers, r.Best)
		}
	}
}

// TestTellNonFiniteFails: Study.Tell records a NaN or ±Inf value as a
// failed trial (as Optuna marks a trial returning NaN) and returns nil;
// the reason names the metric, by its index when it has no name, cut to
// bandit.MaxReasonLen; the trial then takes no other values.
func TestTellNonFiniteFails(t *testing.T) {
	long := strings.Repeat("m", 300)
	s, err := optimize.NewStudy(optimize.Options{Lo: []float64{0}, Hi: []float64{1}, Horizon: 4,
		Constraints: []optimize.Constraint{{Max: 1}, {Name: long, Max: 1}}})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		obj  float64
		ms   []float64
		want string
	}{
		{math.NaN(), []float64{0, 0}, "objective returned NaN"},
		{math.Inf(-1), []float64{0, 0}, "objective returned -Inf"},
		{0, []float64{math.Inf(-1), 0}, "metric 0 returned -Inf"},
		{0, []float64{0, math.NaN()}, (`metric "` + long)[:bandit.MaxReasonLen]},
	} {
		tr, err := s.Ask()
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Tell(tr.ID, c.obj, c.ms); err != nil {
			t.Fatalf("%q: %v", c.want, err)
		}
		got := s.Result().Trials[tr.Round-1]
		if !got.Failed || got.Reason != c.want {
			t.Errorf("told %v %v: failed %v, reason %q: want %q", c.obj, c.ms, got.Failed, got.Reason, c.want)
		}
		if err := s.Tell(tr.ID, 0, []float64{0, 0}); err == nil || !strings.Contains(err.Error(), "already told") {
			t.Errorf("values after a failure: %v", err)
		}
	}
	if r := s.Result(); r.Failed != 4 || r.Best != nil {
		t.Errorf("%d failed, best %v: want 4, nil", r.Failed, r.Best)
	}
}

// TestRunAsyncWorkersNeverIdle: 4 asynchronous workers, the first
// evaluation slow: it returns only once the other workers have completed
// 15 evaluations, each of which returns only once 4 evaluations are in
// flight together. So the 3 fast workers keep asking while the slow one
// runs (in batches they would wait for it, and the guard would fire), no
// more than 4 evaluations run at once, and no configuration is evaluated
// twice at once.
func TestRunAsyncWorkersNeverIdle(t *testing.T) {
	const fastWhileSlow = 15
	var (
		mu                   sync.Mutex
		inFlight, peak, full int
		fastDone, fastAtSlow int
		slowDone, stuck      bool
		gate                 = make(chan struct{}) // closed when 4 are in flight
		released             = make(chan struct{}) // closed after fastWhileSlow fast evaluations
		running              = map[string]bool{}
		dups                 []string
	)
	guard := func(ch <-chan struct{}) {
		select {
		case <-ch:
		case <-time.After(time.Minute): // a guard against workers that wait for one another
			mu.Lock()
			stuck = true
			mu.Unlock()
		}
	}
	fn := func(p optimize.Point) (float64, []float64, error) {
		key := fmt.Sprint(p.Values)
		slow := p.Round == 1
		mu.Lock()
		if running[key] {
			dups = append(dups, key)
		}
		running[key] = true
		inFlight++
		peak = max(peak, inFlight)
		g, wait := gate, !slow && !slowDone && !stuck
		if inFlight == 4 && !slowDone {
			full++
			close(gate)
			gate = make(chan struct{})
		}
		mu.Unlock()
		if slow {
			guard(released)
		} else if wait {
			guard(g)
		}
		mu.Lock()
		inFlight--
		delete(running, key)
		switch {
		case slow:
			slowDone, fastAtSlow = true, fastDone
			close(gate) // frees the fast ones waiting for a fourth
			gate = make(chan struct{})
		case wait:
			if fastDone++; fastDone == fastWhileSlow {
				close(released)
			}
		}
		mu.Unlock()
		return train(optimize.Point{Round: p.Round + 100, X: p.X, Values: p.Values}) // no out-of-memory round
	}
	o := trainOptions()
	o.Horizon = 24
	res, err := optimize.Run(context.Background(), fn, o)
	if err != nil {
		t.Fatal(err)
	}
	if stuck {
		t.Fatal("an evaluation waited a minute: the fast workers waited for the slow one")
	}
	if fastAtSlow < fastWhileSlow || full < fastWhileSlow/3 || peak != 4 {
		t.Fatalf("%d fast evaluations during the slow one, 4 in flight together %d times, at most %d at once: want ≥ %d, ≥ %d, 4",
			fastAtSlow, full, peak, fastWhileSlow, fastWhileSlow/3)
	}
	if len(dups) > 0 {
		t.Fatalf("configurations evaluated twice at once: %v", dups)
	}
	if len(res.Trials) != 24 || res.Failed != 0 || res.Best == nil {
		t.Fatalf("%d trials, %d failed, best %v: want 24, 0, a feasible one", len(res.Trials), res.Failed, res.Best)
	}
	for _, tr := range res.Trials {
		if tr.Metrics == nil || tr.Abandoned {
			t.Fatalf("trial %d not told: %+v", tr.Round, tr)
		}
	}
}

// TestRunBatchesReproduce: one worker, and 4 workers in batches, give the
// first 12 configurations of the typed example and its best as pinned
// from the batch schedule of 4 workers that was Run's only one, and one
// worker's as before.
func TestRunBatchesReproduce(t *testing.T) {
	if runtime.GOARCH != "amd64" {
		t.Skip("pinned on amd64: other architectures may fuse multiply-adds")
	}
	key := func(v optimize.Values) string {
		return fmt.Sprintf("%d %d %.4g %v", v.Int("layers"), v.Int("width"), v.Float("lr"), v.Choice("opt"))
	}
	one := []string{"6 200 0.001435 sgd", "1 23 0.04526 adagrad", "7 191 0.02473 sgd", "5 211 0.0001494 sgd",
		"8 200 0.0002964 sgd", "5 243 0.003237 sgd", "4 183 0.002984 sgd", "2 241 0.02262 sgd",
		"3 238 0.02856 sgd", "2 210 0.1 sgd", "2 256 0.005569 sgd", "2 256 0.005041 sgd"}
	four := []string{"6 200 0.001435 sgd", "6 73 1.515e-05 adam", "3 123 4.238e-05 adagrad", "3 102 0.01216 rmsprop",
		"4 102 0.01155 rmsprop", "3 72 0.0189 rmsprop", "3 91 0.003964 rmsprop", "2 106 0.0143 rmsprop",
		"4 108 0.02845 rmsprop", "4 84 0.01299 rmsprop", "4 116 0.009115 rmsprop", "3 132 0.02144 rmsprop"}
	for _, c := range []struct {
		workers int
		batches bool
		want    []string
	}{{1, false, one}, {1, true, one}, {4, true, four}} {
		o := trainOptions()
		o.Workers, o.Batches, o.Evaluations = c.workers, c.batches, optimize.Live
		r, err := optimize.Run(context.Background(), train, o)
		if err != nil {
			t.Fatal(err)
		}
		for i, want := range c.want {
			if got := key(r.Trials[i].Values); got != want {
				t.Fatalf("%d workers, batches %v, round %d: %s, want %s", c.workers, c.batches, i+1, got, want)
			}
		}
		if b := r.Best; b == nil || b.Objective != 0.96595962574876093 || key(b.Values) != "4 159 0.003778 adam" {
			t.Fatalf("%d workers, batches %v: best %+v", c.workers, c.batches, b)
		}
	}
}

// TestRunAsyncCancel: with asynchronous workers a cancelled context stops
// the asks; the evaluations under way are told, none left pending, and
// Run returns ctx's error.
func TestRunAsyncCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var mu sync.Mutex
	n := 0
	r, err := optimize.Run(ctx, func(p optimize.Point) (float64, []float64, error) {
		mu.Lock()
		if n++; n == 3 {
			cancel()
		}
		mu.Unlock()
		return quad(p)
	}, optimize.Options{Lo: []float64{0}, Hi: []float64{1}, Horizon: 40, Workers: 4, Seed: 1,
		Constraints: []optimize.Constraint{{Max: 1}}})
	if err != context.Canceled || len(r.Trials) < 3 || len(r.Trials) > 3+4 {
		t.Fatalf("cancelled: %v, %d trials: want context.Canceled, 3 to 7", err, len(r.Trials))
	}
	for _, tr := range r.Trials {
		if tr.Metrics == nil {
			t.Fatalf("trial %d left pending: %+v", tr.Round, tr)
		}
	}
}
