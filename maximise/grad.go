package maximise

import (
	"fmt"
	"math"
)

// BatchScore evaluates a score at every point of xs into val and, when grad
// is not nil, its gradient into grad[j] (len(xs[j]) entries). Evaluating a
// batch at once lets a GP posterior solve all points in one pass over its
// Cholesky factor.
type BatchScore func(xs [][]float64, val []float64, grad [][]float64) error

// Default settings of RefineGrad (our choices, measured on
// gardner, Guo et al. §7: see docs/scaling.md). One projected-gradient step with a
// four-point batched line search costs two passes over the GP factor per
// round (1+d and 4 right-hand sides); every extra iteration costs two more.
const (
	// DefaultGradIters is the number of projected-gradient iterations.
	DefaultGradIters = 1
	// DefaultGradStep is the longest line-search step, as a fraction of
	// the box width: one spacing of the default 32-point-per-side candidate
	// grid (1/31). The best candidate's local maximiser lies within half a
	// spacing per coordinate when the score is smooth at the grid's scale.
	DefaultGradStep = 1.0 / 31
	// DefaultGradTrials is the number of line-search steps, halving from
	// DefaultGradStep (1, ½, ¼, ⅛ spacing).
	DefaultGradTrials = 4
)

// GradOptions tunes RefineGrad; zero fields take the defaults above.
type GradOptions struct {
	Iters  int
	Step   float64
	Trials int
}

// RefineGrad maximises score locally inside the box [lo, hi] from each
// point of starts (the best few candidates of a grid) by projected gradient
// ascent with a batched backtracking line search: at each iteration the
// value and gradient at every current point are evaluated in one batch;
// the ascent direction is the gradient in box-scaled coordinates
// (z = (x−lo)/(hi−lo)) with the components that point out of the box at an
// active bound removed; the trial points x + η·u, η = Step·2^{−k},
// k = 0..Trials−1 (projected onto the box), of all starts are evaluated in a
// second batch, and each start moves to its best trial when that improves
// its value. It returns the best point seen (the starts included) and its
// score; every returned point lies in the box.
//
// gonum/optimize was considered (docs/scaling.md): its methods ask for one
// evaluation at a time (no batching of line-search trials into one solve),
// have no box constraints, and importing it pulls golang.org/x/tools into
// go.mod. At two batched passes per round the method here is
// what fits the O(t²)-per-round budget of a long horizon.
func RefineGrad(score BatchScore, lo, hi []float64, starts [][]float64, opt GradOptions) ([]float64, float64, error) {
	if len(lo) == 0 || len(lo) != len(hi) {
		return nil, 0, fmt.Errorf("refine: box lo has %d coordinates, hi has %d", len(lo), len(hi))
	}
	for i := range lo {
		if math.IsNaN(lo[i]) || math.IsNaN(hi[i]) || math.IsInf(lo[i], 0) || math.IsInf(hi[i], 0) || lo[i] > hi[i] {
			return nil, 0, fmt.Errorf("refine: box coordinate %d: [%v, %v] is not a finite non-empty interval", i, lo[i], hi[i])
		}
	}
	if len(starts) == 0 {
		return nil, 0, fmt.Errorf("refine: no start points")
	}
	if opt.Iters <= 0 {
		opt.Iters = DefaultGradIters
	}
	if !(opt.Step > 0) || math.IsInf(opt.Step, 0) {
		opt.Step = DefaultGradStep
	}
	if opt.Trials <= 0 {
		opt.Trials = DefaultGradTrials
	}
	d := len(lo)
	ns := len(starts)
	cur := make([][]float64, ns)
	for k, s := range starts {
		if len(s) != d {
			return nil, 0, fmt.Errorf("refine: start %d has %d coordinates, the box %d", k, len(s), d)
		}
		cur[k] = append([]float64(nil), s...)
		project(cur[k], lo, hi)
	}
	val := make([]float64, ns)
	grad := make([][]float64, ns)
	for k := range grad {
		grad[k] = make([]float64, d)
	}
	tr := make([][]float64, ns*opt.Trials)
	for k := range tr {
		tr[k] = make([]float64, d)
	}
	tv := make([]float64, len(tr))
	dir := make([]float64, d)
	var best []float64
	bestVal := math.Inf(-1)
	consider := func(x []float64, v float64) {
		if !math.IsNaN(v) && (best == nil || v > bestVal) {
			bestVal = v
			best = append(best[:0], x...)
		}
	}
	for it := 0; it < opt.Iters; it++ {
		if err := score(cur, val, grad); err != nil {
			return nil, 0, err
		}
		for k := range cur {
			consider(cur[k], val[k])
		}
		live := tr[:0]
		owner := make([]int, 0, len(tr))
		for k, x := range cur {
			norm := 0.0
			for i := range dir {
				w := hi[i] - lo[i]
				g := grad[k][i] * w // gradient in scaled coordinates
				if math.IsNaN(g) || w == 0 || (x[i] <= lo[i] && g < 0) || (x[i] >= hi[i] && g > 0) {
					g = 0
				}
				dir[i] = g
				norm += g * g
			}
			if !(norm > 0) || math.IsInf(norm, 0) {
				continue
			}
			norm = math.Sqrt(norm)
			eta := opt.Step
			for j := 0; j < opt.Trials; j++ {
				y := tr[len(live)]
				for i := range y {
					y[i] = x[i] + eta*dir[i]/norm*(hi[i]-lo[i])
				}
				project(y, lo, hi)
				live = append(live, y)
				owner = append(owner, k)
				eta /= 2
			}
		}
		if len(live) == 0 {
			break
		}
		if err := score(live, tv[:len(live)], nil); err != nil {
			return nil, 0, err
		}
		moved := false
		for j, y := range live {
			consider(y, tv[j])
			if k := owner[j]; tv[j] > val[k] {
				val[k] = tv[j]
				copy(cur[k], y)
				moved = true
			}
		}
		if !moved {
			break
		}
	}
	if best == nil || math.IsInf(bestVal, 0) {
		return nil, 0, fmt.Errorf("refine: score is %v at the best point %v", bestVal, best)
	}
	return best, bestVal, nil
}

func project(x, lo, hi []float64) {
	for i, v := range x {
		x[i] = math.Min(math.Max(v, lo[i]), hi[i])
	}
}
