package agent

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/cbandit/cbandit/bandit"
	"github.com/cbandit/cbandit/domain"
	"github.com/cbandit/cbandit/model"
)

// planeModel is a posterior with mean w·x + b and variance 0.01 that counts
// its predictions.
type planeModel struct {
	ridgeModel
	w     []float64
	b     float64
	calls *int
}

func (m planeModel) Predict(x []float64) (float64, float64) {
	v := m.b
	for i, w := range m.w {
		v += w * x[i]
	}
	return v, 0.01
}

func (m planeModel) PredictBatch(xs [][]float64, mean, variance []float64, _, _ [][]float64) error {
	for k, x := range xs {
		*m.calls++
		mean[k], variance[k] = m.Predict(x)
	}
	return nil
}

// TestBelowScore: on lognei's form of score (f's mean plus Σ_j log P(g_j ≤
// 0), non-increasing in every constraint's mean), belowScore's value is
// batchScore's to the bit wherever it does not stop, and where it stops the
// score is below the floor; with a floor above f's mean it stops after f
// alone, and the constraint that stopped a trial is predicted next.
func TestBelowScore(t *testing.T) {
	calls := 0
	bps := []model.BatchPredictor{
		planeModel{w: []float64{1, -2}, calls: &calls},
		planeModel{w: []float64{1, 0}, b: -0.5, calls: &calls},
		planeModel{w: []float64{0, 1}, b: -0.5, calls: &calls},
		planeModel{w: []float64{1, -1}, b: -0.3, calls: &calls},
		planeModel{w: []float64{1, 1}, b: -1.8, calls: &calls},
	}
	sc := func(_, mv []float64) float64 {
		v := mv[0]
		for j := 1; j < len(mv)/2; j++ {
			v += logNormCDF(-mv[2*j] / math.Sqrt(mv[2*j+1]))
		}
		return v
	}
	batch := batchScore(bps, sc, 2)
	below := belowScore(bps, sc)
	rng := rand.New(rand.NewPCG(3, 4))
	val := make([]float64, 1)
	stops := 0
	for range 200 {
		x := []float64{rng.Float64(), rng.Float64()}
		floor := -3 + 4*rng.Float64()
		v, b, err := below(x, floor)
		if err != nil {
			t.Fatal(err)
		}
		if err := batch([][]float64{x}, val, nil); err != nil {
			t.Fatal(err)
		}
		if b {
			stops++
			if !(val[0] < floor) {
				t.Fatalf("%v: stopped below %v, but the score is %v", x, floor, val[0])
			}
		} else if v != val[0] {
			t.Fatalf("%v: belowScore %v, batchScore %v", x, v, val[0])
		}
	}
	if stops == 0 {
		t.Fatal("no trial stopped early")
	}
	x := []float64{0.9, 0.1} // f = 0.7: a floor of 1 is out of reach
	calls = 0
	if _, b, _ := below(x, 1); !b || calls != 1 {
		t.Fatalf("floor above f's mean: below %v after %d predictions, want true after 1", b, calls)
	}
	// at (0.45, 0) g₃ = 0.15 (log P ≈ −2.6) stops a floor of −1 after f,
	// g₁ and g₂ (f = 0.45, log P(g₁ ≤ 0) ≈ −0.37); the next trial predicts
	// it right after f
	y := []float64{0.45, 0}
	for _, want := range []int{4, 2} {
		calls = 0
		if _, b, _ := below(y, -1); !b || calls != want {
			t.Fatalf("below %v after %d predictions, want true after %d", b, calls, want)
		}
	}
}

// bumpsModel is a posterior over [0, 1]² with mean two Gaussian bumps
// (tops 1 at (0.2, 0.3), 2 at (0.7, 0.8)), variance 0, candidates cands,
// that records the largest batch it is asked to predict.
type bumpsModel struct {
	ridgeModel
	cands   [][]float64
	largest *int
}

func (m bumpsModel) Action(i int) bandit.Action { return bandit.PointAction(m.cands[i]) }

func (m bumpsModel) PredictBatch(xs [][]float64, mean, variance []float64, dmean, dvar [][]float64) error {
	*m.largest = max(*m.largest, len(xs))
	for k, x := range xs {
		mean[k], variance[k] = 0, 0
		if dmean != nil {
			dmean[k][0], dmean[k][1], dvar[k][0], dvar[k][1] = 0, 0, 0, 0
		}
		for _, b := range []struct{ h, x, y float64 }{{1, 0.2, 0.3}, {2, 0.7, 0.8}} {
			dx, dy := x[0]-b.x, x[1]-b.y
			e := b.h * math.Exp(-(dx*dx+dy*dy)/0.02)
			mean[k] += e
			if dmean != nil {
				dmean[k][0] -= e * dx / 0.01
				dmean[k][1] -= e * dy / 0.01
			}
		}
	}
	return nil
}

// bumpsScores are m's means at its candidates: the search's scores.
func bumpsScores(t *testing.T, m bumpsModel) []float64 {
	t.Helper()
	score := make([]float64, len(m.cands))
	for i, c := range m.cands {
		mean, v := make([]float64, 1), make([]float64, 1)
		if err := m.PredictBatch([][]float64{c}, mean, v, nil, nil); err != nil {
			t.Fatal(err)
		}
		score[i] = mean[0]
	}
	return score
}

// TestWideSearchStartsOnly: box-polish=starts polishes each start by BFGS
// with no batched ascent before it (every prediction is of one point),
// and from candidates near both bumps it ends on the higher top, as
// box-polish=each does after its ascent over all the starts at once.
func TestWideSearchStartsOnly(t *testing.T) {
	box, err := domain.NewBox([]float64{0, 0}, []float64{1, 1})
	if err != nil {
		t.Fatal(err)
	}
	cands := [][]float64{{0.25, 0.25}, {0.6, 0.75}, {0.9, 0.1}, {0.1, 0.9}}
	acq := func(mv []float64) float64 { return mv[0] }
	for _, only := range []bool{true, false} {
		largest := 0
		m := bumpsModel{cands: cands, largest: &largest}
		score := bumpsScores(t, m)
		largest = 0
		w := &wideSearch{Top: 4, Iters: 30, PolishEach: true, StartsOnly: only}
		a, _, err := w.search(rand.New(rand.NewPCG(1, 2)), box, score, []model.Model{m}, acq, nil, 1)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(a.X[0]-0.7) > 1e-5 || math.Abs(a.X[1]-0.8) > 1e-5 {
			t.Errorf("starts only %v: the search ends at %v, want the higher top (0.7, 0.8)", only, a.X)
		}
		if only && largest != 1 {
			t.Errorf("starts only: a batch of %d points predicted, want one point at a time (no batched ascent)", largest)
		}
		if !only && largest < 2 {
			t.Errorf("each: the largest batch is %d points, want the ascent's batch of every start", largest)
		}
	}
}

// countedBumps is bumpsModel counting the points it predicts.
type countedBumps struct {
	bumpsModel
	points *int
}

func (m countedBumps) PredictBatch(xs [][]float64, mean, variance []float64, dmean, dvar [][]float64) error {
	*m.points += len(xs)
	return m.bumpsModel.PredictBatch(xs, mean, variance, dmean, dvar)
}

// TestWideSearchReuse: with Reuse, the search away from marked points
// (search-again=reuse) takes the first search's runs that scored no
// marked point and runs the others again: the same end as a search
// without Reuse, bit for bit, for fewer predictions; with the higher top
// marked it ends off it, on the lower top or the ball's edge.
func TestWideSearchReuse(t *testing.T) {
	box, err := domain.NewBox([]float64{0, 0}, []float64{1, 1})
	if err != nil {
		t.Fatal(err)
	}
	cands := [][]float64{{0.25, 0.25}, {0.6, 0.75}, {0.9, 0.1}, {0.1, 0.9}}
	acq := func(mv []float64) float64 { return mv[0] }
	top := bandit.PointAction([]float64{0.7, 0.8})
	rep := repeatsWithin(box, []bandit.Action{top}, 0.01)
	search := func(w *wideSearch, rep func(bandit.Action) bool) (bandit.Action, int) {
		largest, points := 0, 0
		m := countedBumps{bumpsModel{cands: cands, largest: &largest}, &points}
		score := bumpsScores(t, m.bumpsModel)
		a, _, err := w.search(rand.New(rand.NewPCG(1, 2)), box, score, []model.Model{m}, acq, rep, 1)
		if err != nil {
			t.Fatal(err)
		}
		return a, points
	}
	w := &wideSearch{Top: 4, Iters: 30, PolishEach: true, StartsOnly: true, Reuse: true}
	first, _ := search(w, nil)
	if !rep(first) {
		t.Fatalf("the first search ends at %v, want the higher top (0.7, 0.8)", first.X)
	}
	if len(w.runs) != len(cands) {
		t.Fatalf("%d runs recorded, want one per start (%d)", len(w.runs), len(cands))
	}
	again, reused := search(w, rep)
	fresh, full := search(&wideSearch{Top: 4, Iters: 30, PolishEach: true, StartsOnly: true}, rep)
	if !slices.Equal(again.X, fresh.X) {
		t.Errorf("the search again ends at %v with reuse, %v without", again.X, fresh.X)
	}
	if rep(again) {
		t.Errorf("the search again ends at %v, inside the marked ball", again.X)
	}
	if !(reused < full) {
		t.Errorf("the search again predicted %d points with reuse, %d without: want fewer", reused, full)
	}
}

// TestBoxPolishAuto: box-polish=auto, the default, polishes from the
// starts alone in a decision where every metric is deterministic and runs
// the batched ascent elsewhere; each and starts do one thing throughout.
func TestBoxPolishAuto(t *testing.T) {
	box, err := domain.NewBox([]float64{0, 0}, []float64{1, 1})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		value      string
		det, noisy bool
	}{{"", true, false}, {"auto", true, false}, {"each", false, false}, {"starts", true, true}} {
		ps := bandit.Params{}
		if c.value != "" {
			ps["box-polish"] = c.value
		}
		ag, err := New("lognei", Config{Info: bandit.Info{Domain: box, M: 1}, Params: ps, Horizon: 50, Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		a := ag.(*LogNEI)
		if got := a.polishStarts(true); got != c.det {
			t.Errorf("box-polish=%q, every metric deterministic: starts only %v, want %v", c.value, got, c.det)
		}
		if got := a.polishStarts(false); got != c.noisy {
			t.Errorf("box-polish=%q, a noisy metric: starts only %v, want %v", c.value, got, c.noisy)
		}
	}
}
