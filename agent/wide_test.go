package agent

import (
	"math"
	"math/rand/v2"
	"testing"

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
