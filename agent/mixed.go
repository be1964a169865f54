package agent

import (
	"fmt"
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

// mixedMovesDoc declares mixed-moves.
var mixedMovesDoc = bandit.IntParam{Name: "mixed-moves", Default: 2, Range: bandit.InClosed(1, 2),
	Doc:     "typed spaces: the local search changes up to this many discrete coordinates in a step (2: pairs, when no single change improves)",
	Source:  "a Hamming ball of radius 2, after Wan et al. 2021 (Casmopolitan) §3; measured: docs/typed.md",
	Earlier: []bandit.Change{{Until: 8, Value: "1", Why: "the typed-space search also changes two discrete coordinates at once"}}}

// mixedSearch maximises acq over a box with discrete coordinates (a typed
// space) from the valid point start, as local search over a mixed space
// does (BoTorch's optimize_acqf_mixed alternates discrete and continuous
// steps; Wan et al. 2021, Casmopolitan, §3.2, searches the discrete
// neighbours of the incumbent): alternately, the continuous coordinates
// ascend by gradient with the discrete ones pinned (grad), and the best of
// the discrete neighbours (each int ±1, each other choice of a
// categorical; with moves = 2, when none of them improves, the points two
// such changes away) is taken while it improves. Points rep marks (pending
// decisions) lose excluded. polish, when set, refines the continuous part
// on the pinned box (sub) once at each discrete value where no discrete
// step improves, and the steps are tried again from its end (wideSearch's
// BFGS: the ascent's shortest step, Step/8 of the box, is too long where a
// constraint bounds the acquisition closely). It returns nil when the
// models cannot be evaluated off their candidates.
func mixedSearch(box *domain.Box, start []float64, ms []model.Model, acq acquisition, grad maximise.GradOptions, rep func(bandit.Action) bool, moves int, polish func(sub *domain.Box, x []float64) ([]float64, error)) ([]float64, error) {
	bps := make([]model.BatchPredictor, len(ms))
	for j, m := range ms {
		if bps[j] = model.AsBatchPredictor(m); bps[j] == nil {
			return nil, nil
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
		return nil, err
	}
	best := v[0]
	polished := false // at x's discrete values
	for range mixedRounds {
		if sub := box.Pinned(x); sub != nil && grad.Iters > 0 {
			y, err := refineAcqX(sub, [][]float64{x}, ms, score, grad)
			if err != nil {
				return nil, err
			}
			if y != nil {
				if w, err := value([][]float64{y}); err != nil {
					return nil, err
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
			return nil, err
		}
		k := argMax(w)
		if !(w[k] > best) && moves > 1 {
			if ns = twoAway(box, x, ns); len(ns) > 0 {
				if w, err = value(ns); err != nil {
					return nil, err
				}
				k = argMax(w)
			}
		}
		if len(ns) == 0 || !(w[k] > best) || math.IsInf(w[k], 0) {
			if polish == nil || polished {
				break
			}
			// No discrete step improves: polish the continuous part once
			// at these discrete values, then look at the steps again.
			polished = true
			sub := box.Pinned(x)
			if sub == nil {
				break
			}
			y, err := polish(sub, x)
			if err != nil {
				return nil, err
			}
			v, err := value([][]float64{y})
			if err != nil {
				return nil, err
			}
			if !(v[0] > best) {
				break
			}
			x, best = y, v[0]
			continue
		}
		x, best, polished = ns[k], w[k], false
	}
	return x, nil
}

// argMax is the first index of w's largest value.
func argMax(w []float64) int {
	k := 0
	for i := range w {
		if w[i] > w[k] {
			k = i
		}
	}
	return k
}

// twoAway are the valid points two discrete changes from x: the
// neighbours of its neighbours ns, less x and ns, in order of first
// appearance.
func twoAway(box *domain.Box, x []float64, ns [][]float64) [][]float64 {
	key := func(p []float64) string { return fmt.Sprint(p) }
	seen := map[string]bool{key(x): true}
	for _, n := range ns {
		seen[key(n)] = true
	}
	var out [][]float64
	for _, n := range ns {
		for _, m := range box.Neighbours(n) {
			if k := key(m); !seen[k] {
				seen[k] = true
				out = append(out, m)
			}
		}
	}
	return out
}
