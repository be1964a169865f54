// The evaluation loop of Run: asynchronous workers, or batches told in decision order.

package optimize

import (
	"context"
	"sync"
)

// outcome is one evaluation's return.
type outcome struct {
	obj float64
	ms  []float64
	err error
}

// evaluate calls fn at the trial's point.
func evaluate(fn Func, t Trial) outcome {
	var out outcome
	out.obj, out.ms, out.err = fn(Point{Round: t.Round, X: t.X, Values: t.Values})
	return out
}

// report tells the study an evaluation's outcome: Fail for an error, Tell
// otherwise (a value NaN or ±Inf fails it there); a trial whose values
// Tell refuses is abandoned, and the refusal returned.
func (s *Study) report(t Trial, out outcome) error {
	if out.err != nil {
		return s.Fail(t.ID, out.err.Error())
	}
	err := s.Tell(t.ID, out.obj, out.ms)
	if err != nil {
		s.Abandon(t.ID)
	}
	return err
}

// Run evaluates fn Horizon times at the points the algorithm asks for,
// Options.Workers at a time, and returns every trial and the best
// feasible one. Each worker asks as soon as its evaluation ends and tells
// as soon as it is back; with Options.Batches, Workers points are asked
// together and told in decision order once all are back. An evaluation
// that returns an error, or a value NaN or ±Inf, is a failed trial
// (Study.Fail, Study.Tell). It stops early, with what it has and ctx's
// error, when ctx is done (after the evaluations under way), or with the
// error of values Tell refuses, a wrong number of metrics (that trial
// abandoned).
func Run(ctx context.Context, fn Func, o Options) (*Result, error) {
	s, err := NewStudy(o)
	if err != nil {
		return nil, err
	}
	if o.Workers > 1 && !o.Batches {
		return s.runAsync(ctx, fn, o.Workers)
	}
	return s.runBatches(ctx, fn, max(1, o.Workers))
}

// runAsync runs w workers, each asking, evaluating and telling in turn,
// the study's mutex ordering their calls to the algorithm. A worker's Ask
// sees the others' evaluations under way as pending decisions.
func (s *Study) runAsync(ctx context.Context, fn Func, w int) (*Result, error) {
	var (
		mu    sync.Mutex
		asked int
		first error // ctx's or a worker's error: no more asks
	)
	// next reserves one evaluation of the horizon for a worker.
	next := func() bool {
		mu.Lock()
		defer mu.Unlock()
		if first == nil {
			first = ctx.Err()
		}
		if first != nil || asked == s.o.Horizon {
			return false
		}
		asked++
		return true
	}
	stop := func(err error) {
		mu.Lock()
		if first == nil {
			first = err
		}
		mu.Unlock()
	}
	var wg sync.WaitGroup
	for range min(w, s.o.Horizon) {
		wg.Go(func() {
			for next() {
				t, err := s.Ask()
				if err == nil {
					err = s.report(t, evaluate(fn, t))
				}
				if err != nil {
					stop(err)
					return
				}
			}
		})
	}
	wg.Wait()
	return s.Result(), first
}

// runBatches asks w points together, evaluates them concurrently and tells
// them in decision order once all are back (one at a time for w = 1).
func (s *Study) runBatches(ctx context.Context, fn Func, w int) (*Result, error) {
	for asked := 0; asked < s.o.Horizon; {
		if err := ctx.Err(); err != nil {
			return s.Result(), err
		}
		batch := make([]Trial, 0, min(w, s.o.Horizon-asked))
		for range cap(batch) {
			t, err := s.Ask()
			if err != nil {
				for _, t := range batch {
					s.Abandon(t.ID) // the asked ones are not evaluated
				}
				return s.Result(), err
			}
			batch = append(batch, t)
		}
		asked += len(batch)
		outs := make([]outcome, len(batch))
		if len(batch) == 1 {
			outs[0] = evaluate(fn, batch[0])
		} else {
			var wg sync.WaitGroup
			for i := range batch {
				wg.Go(func() { outs[i] = evaluate(fn, batch[i]) })
			}
			wg.Wait()
		}
		var first error
		for i, t := range batch {
			if err := s.report(t, outs[i]); first == nil {
				first = err
			}
		}
		if first != nil {
			return s.Result(), first
		}
	}
	return s.Result(), nil
}
