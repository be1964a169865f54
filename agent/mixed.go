package agent

import (
	"math"

	"github.com/cbandit/cbandit/bandit"
	"github.com/cbandit/cbandit/domain"
	"github.com/cbandit/cbandit/maximise"
	"github.com/cbandit/cbandit/model"
)

// mixedRounds bounds the alternations of mixedSearch (our choice: each
// round moves one discrete step, so this is the farthest walk from the
// best candidate, in steps).
const mixedRounds = 32

// mixedStartsDoc declares mixed-starts.
var mixedStartsDoc = bandit.IntParam{Name: "mixed-starts", Default: 5, Range: bandit.AtLeast(1),
	Doc:    "typed spaces: the local search starts from this many best candidates, and from the best observation when more than 1",
	Source: "SMAC's local search from several configurations, Hutter et al. 2011 §4.3; measured: docs/typed.md"}

// mixedMulti is mixedSearch from each of starts (valid points) in turn: the
// best end point, first on ties (SMAC's local search from several
// configurations, Hutter et al. 2011, §4.3).
func mixedMulti(box *domain.Box, starts [][]float64, ms []model.Model, acq acquisition, grad maximise.GradOptions, rep func(bandit.Action) bool) ([]float64, error) {
	var best []float64
	bv := math.Inf(-1)
	for _, s := range starts {
		x, v, err := mixedSearch(box, s, ms, acq, grad, rep)
		if err != nil || x == nil {
			return nil, err
		}
		if v > bv {
			best, bv = x, v
		}
	}
	return best, nil
}

// mixedSearch maximises acq over a box with discrete coordinates (a typed
// space) from the valid point start, as local search over a mixed space
// does (BoTorch's optimize_acqf_mixed alternates discrete and continuous
// steps; Wan et al. 2021, Casmopolitan, §3.2, searches the discrete
// neighbours of the incumbent): alternately, the continuous coordinates
// ascend by gradient with the discrete ones pinned (grad), and the best of
// the discrete neighbours (each int ±1, each other choice of a
// categorical) is taken while it improves. Points rep marks (pending
// decisions) lose excluded. It returns the point and acq's value there, or
// nil when the models cannot be evaluated off their candidates.
func mixedSearch(box *domain.Box, start []float64, ms []model.Model, acq acquisition, grad maximise.GradOptions, rep func(bandit.Action) bool) ([]float64, float64, error) {
	bps := make([]model.BatchPredictor, len(ms))
	for j, m := range ms {
		if bps[j] = model.AsBatchPredictor(m); bps[j] == nil {
			return nil, 0, nil
		}
	}
	score := func(x, mv []float64) float64 { return acq(mv) }
	if rep != nil {
		score = awayFrom(acq, rep)
	}
	batch := batchScore(bps, score, box.Dim())
	value := func(xs [][]float64) ([]float64, error) {
		v := make([]float64, len(xs))
		return v, batch(xs, v, nil)
	}
	x := append([]float64(nil), start...)
	v, err := value([][]float64{x})
	if err != nil {
		return nil, 0, err
	}
	best := v[0]
	for range mixedRounds {
		if sub := box.Pinned(x); sub != nil && grad.Iters > 0 {
			y, err := refineAcqX(sub, [][]float64{x}, ms, score, grad)
			if err != nil {
				return nil, 0, err
			}
			if y != nil {
				if w, err := value([][]float64{y}); err != nil {
					return nil, 0, err
				} else if w[0] > best {
					x, best = y, w[0]
				}
			}
		}
		ns := box.Neighbours(x)
		if len(ns) == 0 {
			break
		}
		w, err := value(ns)
		if err != nil {
			return nil, 0, err
		}
		k := 0
		for i := range w {
			if w[i] > w[k] {
				k = i
			}
		}
		if !(w[k] > best) || math.IsInf(w[k], 0) {
			break
		}
		x, best = ns[k], w[k]
	}
	return x, best, nil
}
