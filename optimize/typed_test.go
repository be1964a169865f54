package optimize_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cbandit/cbandit/optimize"
)

// train is a made-up model training: accuracy peaks at lr = 10^-2.5 and 4
// layers, grows with the width and is best with adam; the latency (ms)
// grows with layers × width. Round 7 runs out of memory.
func train(p optimize.Point) (float64, []float64, error) {
	if p.Round == 7 {
		return 0, nil, errors.New("out of memory\nstack trace …")
	}
	lr, layers, width := p.Values.Float("lr"), p.Values.Int("layers"), p.Values.Int("width")
	acc := 0.9 - 0.05*math.Pow(math.Log10(lr)+2.5, 2) - 0.01*float64((layers-4)*(layers-4)) + 0.02*math.Log2(float64(width)/16)
	if p.Values.Choice("opt") != "adam" {
		acc -= 0.05
	}
	return acc, []float64{float64(layers*width) / 16}, nil
}

func trainOptions() optimize.Options {
	return optimize.Options{
		Parameters: []optimize.Param{optimize.Int("layers", 1, 8), optimize.Int("width", 16, 256),
			optimize.LogFloat("lr", 1e-5, 1e-1), optimize.Categorical("opt", "adam", "sgd", "rmsprop", "adagrad")},
		Constraints: []optimize.Constraint{{Name: "latency_ms", Max: 40}},
		Horizon:     60, Workers: 4, Seed: 1,
	}
}

// trainOptimum is the best accuracy with latency ≤ 40 ms: lr at 10^-2.5,
// adam, and the best feasible (layers, width).
func trainOptimum() float64 {
	best := math.Inf(-1)
	for l := 1; l <= 8; l++ {
		for w := 16; w <= 256; w++ {
			if l*w <= 640 {
				best = math.Max(best, 0.9-0.01*float64((l-4)*(l-4))+0.02*math.Log2(float64(w)/16))
			}
		}
	}
	return best
}

// TestOptimizeTypedWorkers: 2 ints, a log float and a categorical, 4
// workers in batches evaluating at once (each batch meets at a barrier, so
// the 4 are in flight together) and never the same configuration at once;
// the failed evaluation is a failed trial that counts toward the horizon;
// the best is feasible and near the optimum (the space searched as a mixed
// space); and the same seed gives the same trials whatever the order in
// which the workers finish.
func TestOptimizeTypedWorkers(t *testing.T) {
	o := trainOptions()
	o.Batches = true
	var mu sync.Mutex
	arrived := map[int]int{}
	gates := map[int]chan struct{}{}
	inFlight := map[string]bool{}
	var dups []string
	calls, together, stuck := 0, 0, false
	fn := func(p optimize.Point) (float64, []float64, error) {
		key := fmt.Sprint(p.Values) // maps print sorted by key
		b := (p.Round - 1) / 4
		mu.Lock()
		calls++
		if inFlight[key] {
			dups = append(dups, key)
		}
		inFlight[key] = true
		if gates[b] == nil {
			gates[b] = make(chan struct{})
		}
		gate := gates[b]
		if arrived[b]++; arrived[b] == 4 {
			together++
			close(gate)
		}
		skip := stuck
		mu.Unlock()
		if !skip {
			select {
			case <-gate:
			case <-time.After(time.Minute): // a guard against a Run that evaluates one at a time
				mu.Lock()
				stuck = true
				mu.Unlock()
			}
		}
		// Later rounds finish first: the tells must not depend on it.
		time.Sleep(time.Duration(4-p.Round%4) * time.Millisecond)
		mu.Lock()
		delete(inFlight, key)
		mu.Unlock()
		return train(p)
	}
	res, err := optimize.Run(context.Background(), fn, o)
	if err != nil {
		t.Fatal(err)
	}
	if stuck {
		t.Fatal("an evaluation waited a minute for the 3 others of its batch: the workers did not evaluate at once")
	}
	if together != 15 {
		t.Fatalf("%d of 15 batches had their 4 evaluations in flight together", together)
	}
	if len(dups) > 0 {
		t.Fatalf("configurations evaluated twice at once: %v", dups)
	}
	if calls != 60 || len(res.Trials) != 60 || res.Failed != 1 {
		t.Fatalf("%d evaluations, %d trials, %d failed: want 60, 60, 1", calls, len(res.Trials), res.Failed)
	}
	if f := res.Trials[6]; !f.Failed || f.Reason != "out of memory" || f.Feasible {
		t.Fatalf("round 7: %+v: want a failed trial, reason %q", f, "out of memory")
	}
	for _, tr := range res.Trials {
		if tr.Failed != (tr.Round == 7) || tr.Abandoned {
			t.Fatalf("round %d: failed %v, abandoned %v", tr.Round, tr.Failed, tr.Abandoned)
		}
	}
	opt := trainOptimum()
	b := res.Best
	if b == nil || !b.Feasible || b.Metrics[0] > 40 {
		t.Fatalf("best %+v: want a feasible trial", b)
	}
	t.Logf("%s (%s); best %.4f at %v, latency %.0f ms; optimum %.4f", res.Algorithm, res.Reason, b.Objective, b.Values, b.Metrics[0], opt)
	if opt-b.Objective > 0.01 {
		t.Errorf("best accuracy %.4f at %v: want within 0.01 of the optimum %.4f", b.Objective, b.Values, opt)
	}
	if strings.Contains(res.Reason, "\n") || len(res.Reason) > 120 {
		t.Errorf("reason %q: want one short line", res.Reason)
	}
	// The same seed, the workers finishing in the opposite order.
	again, err := optimize.Run(context.Background(), func(p optimize.Point) (float64, []float64, error) {
		time.Sleep(time.Duration(p.Round%4) * time.Millisecond)
		return train(p)
	}, o)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(res.Trials, again.Trials) {
		t.Error("the same options and seed gave other trials with the workers finishing in another order")
	}
}

// TestOptimizeStudyConcurrent: four goroutines ask and tell one study at
// once until the horizon; every trial is told once, and one abandoned
// trial refuses its values.
func TestOptimizeStudyConcurrent(t *testing.T) {
	o := trainOptions()
	o.Horizon = 24
	s, err := optimize.NewStudy(o)
	if err != nil {
		t.Fatal(err)
	}
	a, err := s.Ask()
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Abandon(a.ID); err != nil {
		t.Fatal(err)
	}
	if err := s.Tell(a.ID, 0.5, []float64{1}); err == nil || !strings.Contains(err.Error(), "abandoned") {
		t.Fatalf("a value for an abandoned trial: %v", err)
	}
	if err := s.Abandon(a.ID); err == nil || s.Abandon(a.ID+99) == nil {
		t.Fatalf("abandoned twice, or an unknown trial: %v", err)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	for range 4 {
		wg.Go(func() {
			for {
				tr, err := s.Ask()
				if err != nil {
					if !strings.Contains(err.Error(), "Horizon") {
						errs <- err
					}
					return
				}
				obj, ms, err := train(optimize.Point{Round: tr.Round + 100, X: tr.X, Values: tr.Values})
				if err == nil {
					err = s.Tell(tr.ID, obj, ms)
				}
				if err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	r := s.Result()
	if len(r.Trials) != 24 || !r.Trials[0].Abandoned || r.Best == nil {
		t.Fatalf("%d trials (want 24, the first abandoned), best %v", len(r.Trials), r.Best)
	}
	for _, tr := range r.Trials[1:] {
		if tr.Abandoned || tr.Failed || tr.Metrics == nil {
			t.Fatalf("trial %d not told once: %+v", tr.Round, tr)
		}
	}
}

// TestOptimizeFail: a failure's reason is its first line, cut at
// bandit.MaxReasonLen bytes on a character boundary; a failed trial takes
// no values; a failed Func counts in Result.Failed.
func TestOptimizeFail(t *testing.T) {
	s, err := optimize.NewStudy(trainOptions())
	if err != nil {
		t.Fatal(err)
	}
	a, _ := s.Ask()
	if err := s.Fail(a.ID, strings.Repeat("é", 150)+"\nmore"); err != nil {
		t.Fatal(err)
	}
	r := s.Result()
	if got := r.Trials[0].Reason; got != strings.Repeat("é", 100) || !r.Trials[0].Failed || r.Failed != 1 {
		t.Fatalf("reason %q (%d bytes), failed %v, count %d", got, len(got), r.Trials[0].Failed, r.Failed)
	}
	if err := s.Tell(a.ID, 0.5, []float64{1}); err == nil || !strings.Contains(err.Error(), "already told") {
		t.Fatalf("values after a failure: %v", err)
	}
	if err := s.Fail(a.ID, "again"); err == nil {
		t.Fatal("failed twice")
	}
}

// TestOptimizeParameterErrors: bad parameters are refused naming the field.
func TestOptimizeParameterErrors(t *testing.T) {
	for _, c := range []struct {
		mod  func(*optimize.Options)
		want string
	}{
		{func(o *optimize.Options) { o.Parameters[2].Low = 0 }, "parameters[2].low: = 0: a log-scaled float needs low > 0"},
		{func(o *optimize.Options) { o.Parameters[1].Name = "layers" }, "parameters[1].name"},
		{func(o *optimize.Options) { o.Lo, o.Hi = []float64{0}, []float64{1} }, "only one of them"},
		{func(o *optimize.Options) { o.Workers = -1 }, "Workers = -1"},
		{func(o *optimize.Options) { o.Candidates = -1 }, "Candidates = -1"},
	} {
		o := trainOptions()
		c.mod(&o)
		if _, err := optimize.NewStudy(o); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v", c.want, err)
		}
	}
	// Continuous floats: the unit cube, searched as a box.
	s, err := optimize.NewStudy(optimize.Options{Parameters: []optimize.Param{optimize.LogFloat("lr", 1e-4, 1), optimize.Float("m", 0, 1)},
		Horizon: 3})
	if err != nil {
		t.Fatal(err)
	}
	tr, err := s.Ask()
	if lr := tr.Values.Float("lr"); err != nil || len(tr.X) != 2 || lr < 1e-4 || lr > 1 {
		t.Fatalf("box of floats: %+v, %v", tr, err)
	}
}
