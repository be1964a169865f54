package optimize_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"math"

	"github.com/cbandit/cbandit/optimize"
)

// A made-up service: its throughput rises with the batch size (x[0], on a
// log scale in [0, 1]) and is best at a cache fraction x[1] of 0.6; its
// latency (ms) rises with both. Maximise the throughput with the latency
// at most 50 ms: no algorithm named, so one is chosen from the constraint
// and Run's evaluations (offline: the search may break the limit; the
// best holds it).
func ExampleRun() {
	system := func(p optimize.Point) (float64, []float64, error) {
		u, frac := p.X[0], p.X[1]
		throughput := 1200 * (0.45 + 0.55*u) * (1 - 0.5*(frac-0.6)*(frac-0.6))
		latency := 10 + 54*math.Pow(u, 1.5) + 20*(frac-0.3)*(frac-0.3)
		return throughput, []float64{latency}, nil
	}
	res, err := optimize.Run(context.Background(), system, optimize.Options{
		Lo: []float64{0, 0}, Hi: []float64{1, 1},
		Constraints: []optimize.Constraint{{Name: "latency_ms", Max: 50}},
		Horizon:     60, Seed: 1,
	})
	if err != nil {
		log.Fatal(err)
	}
	late := 0
	for _, t := range res.Trials[40:] {
		if !t.Feasible {
			late++
		}
	}
	fmt.Println(res.Algorithm, res.Kinds[0])
	fmt.Printf("best throughput %.0f at latency ≤ 50: %v; violating rounds in the last 20: %d\n",
		res.Best.Objective, res.Best.Metrics[0] <= 50, late)
	// Output:
	// lognei stage-wise
	// best throughput 1068 at latency ≤ 50: true; violating rounds in the last 20: 0
}

// Two ints, a log-scaled float and a categorical, four evaluations at a
// time, one of which runs out of memory: a failed trial, which counts
// toward the horizon. In batches, Run asks four distinct points at once
// and tells their values in decision order, so the trials do not depend
// on which evaluation finishes first.
func ExampleRun_parameters() {
	train := func(p optimize.Point) (float64, []float64, error) { // accuracy, latency (ms)
		if p.Round == 7 {
			return 0, nil, errors.New("out of memory")
		}
		layers, width := p.Values.Int("layers"), p.Values.Int("width")
		acc := 0.85 + map[any]float64{"adam": 0.05}[p.Values.Choice("opt")] - 0.05*math.Pow(math.Log10(p.Values.Float("lr"))+2.5, 2) -
			0.01*float64((layers-4)*(layers-4)) + 0.02*math.Log2(float64(width)/16)
		return acc, []float64{float64(layers*width) / 16}, nil
	}
	res, err := optimize.Run(context.Background(), train, optimize.Options{
		Parameters: []optimize.Param{optimize.Int("layers", 1, 8), optimize.Int("width", 16, 256),
			optimize.LogFloat("lr", 1e-5, 1e-1), optimize.Categorical("opt", "adam", "sgd", "rmsprop", "adagrad")},
		Constraints: []optimize.Constraint{{Name: "latency_ms", Max: 40}}, Horizon: 60, Workers: 4, Batches: true, Seed: 1,
	})
	if err != nil {
		log.Fatal(err)
	}
	b := res.Best
	fmt.Println(res.Reason)
	fmt.Printf("%d trials, %d failed: %s\n", len(res.Trials), res.Failed, res.Trials[6].Reason)
	fmt.Printf("best accuracy %.3f: layers %d, width %d, lr %.1e, %v; latency %.0f ms\n",
		b.Objective, b.Values.Int("layers"), b.Values.Int("width"), b.Values.Float("lr"), b.Values.Choice("opt"), b.Metrics[0])
	// Output:
	// lognei, the offline default for stage-wise limits
	// 60 trials, 1 failed: out of memory
	// best accuracy 0.966: layers 4, width 160, lr 3.2e-03, adam; latency 40 ms
}

// Four workers, each asking for its next point as soon as its own
// evaluation ends (the default with Workers > 1): a slow evaluation idles
// no other worker, and the points under way are distinct. Which trials
// come out depends on the order in which evaluations finish, so this
// prints only what does not.
func ExampleRun_workers() {
	res, err := optimize.Run(context.Background(), func(p optimize.Point) (float64, []float64, error) {
		x := p.X[0]
		return -(x - 0.3) * (x - 0.3), []float64{x}, nil
	}, optimize.Options{
		Lo: []float64{0}, Hi: []float64{1},
		Constraints: []optimize.Constraint{{Name: "x", Max: 0.5}},
		Horizon:     20, Workers: 4, Seed: 1, // Batches: true for the same trials on every run
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(len(res.Trials), "trials; best feasible, near 0.3:", res.Best.Feasible && math.Abs(res.Best.X[0]-0.3) < 0.05)
	// Output:
	// 20 trials; best feasible, near 0.3: true
}

// An ask/tell study in process: evaluations may run anywhere, several at
// a time; the algorithm decides knowing the pending ones.
func ExampleStudy() {
	s, err := optimize.NewStudy(optimize.Options{
		Lo: []float64{-2}, Hi: []float64{2}, Minimize: true,
		Constraints: []optimize.Constraint{{Name: "budget", Max: 1, Kind: optimize.Cumulative}},
		Horizon:     20, Seed: 3, Evaluations: optimize.Live,
	})
	if err != nil {
		log.Fatal(err)
	}
	for i := 0; i < 10; i++ {
		a, _ := s.Ask() // two pending at once
		b, _ := s.Ask()
		for _, t := range []optimize.Trial{a, b} {
			x := t.X[0]
			if err := s.Tell(t.ID, (x-0.5)*(x-0.5), []float64{math.Abs(x)}); err != nil { // or s.Fail(t.ID, reason)
				log.Fatal(err)
			}
		}
	}
	name, _ := s.Algorithm()
	fmt.Println(name, s.Best().Feasible)
	// Output:
	// rpol-ucb true
}

// Choose names the algorithm for a set of constraint kinds, and why.
func ExampleChoose() {
	for _, kinds := range [][]optimize.Kind{{optimize.StageWise}, {optimize.Cumulative}, {optimize.LongTerm}, {optimize.LongTerm, optimize.Cumulative}} {
		c, err := optimize.Choose(kinds, false, "box")
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(kinds, "→", c.Algorithm)
	}
	// Output:
	// [stage-wise] → config
	// [cumulative] → rpol-ucb
	// [long-term] → ckb-ucb
	// [long-term cumulative] → rpol-ucb
}
