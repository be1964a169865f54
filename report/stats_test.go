package report

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Quantiles by definition 7 (numpy.quantile's default), computed by hand.
func TestQuantile(t *testing.T) {
	cases := []struct {
		xs   []float64
		p    float64
		want float64
	}{
		{[]float64{4, 1, 3, 2}, 0.25, 1.75}, // h = 0.75 → 1 + 0.75·(2 − 1)
		{[]float64{4, 1, 3, 2}, 0.5, 2.5},
		{[]float64{4, 1, 3, 2}, 0.75, 3.25},
		{[]float64{5}, 0.25, 5},
		{[]float64{1, 2, 3}, 0.5, 2},
		{[]float64{1, 2, 3}, 1, 3},
		{[]float64{1, 2, 3}, 0, 1},
	}
	for _, c := range cases {
		if got := Quantile(c.xs, c.p); math.Abs(got-c.want) > 1e-15 {
			t.Errorf("Quantile(%v, %v) = %v, want %v", c.xs, c.p, got, c.want)
		}
	}
	if !math.IsNaN(Quantile(nil, 0.5)) {
		t.Error("quantile of nothing is not NaN")
	}
}

// The paired t interval against a hand computation: d = (1, 2, 3), mean 2,
// sd 1, t_{0.975, 2} = 4.302652729911275 (Student's t table).
func TestPairedDiff(t *testing.T) {
	p, ok := PairedDiff([]float64{3, 5, 10}, []float64{2, 3, 7})
	if !ok || p.N != 3 || p.Mean != 2 {
		t.Fatalf("PairedDiff = %+v, %v", p, ok)
	}
	half := 4.302652729911275 / math.Sqrt(3)
	if math.Abs(p.Lo-(2-half)) > 1e-9 || math.Abs(p.Hi-(2+half)) > 1e-9 {
		t.Fatalf("interval [%v, %v], want 2 ± %v", p.Lo, p.Hi, half)
	}
	if p.AWins != 0 || p.BWins != 3 || p.Ties != 0 {
		t.Fatalf("wins %+v", p)
	}
	if _, ok := PairedDiff([]float64{1}, []float64{1, 2}); ok {
		t.Fatal("different lengths accepted")
	}
	one, _ := PairedDiff([]float64{1}, []float64{1})
	if !math.IsNaN(one.Lo) || one.Ties != 1 {
		t.Fatalf("one trial: %+v", one)
	}
}

// Bands: the figures draw the band the results ask for, and report.md says which.
func TestBands(t *testing.T) {
	res := &Results{
		Summary: Summary{Problem: "p", Horizon: 2, Trials: 4, Algorithms: map[string]Algorithm{"a": {}}},
		Curves: []Curve{{Algorithm: "a", Metric: MetricRegret, Rounds: []int{1, 2},
			Mean: []float64{1, 2}, Stderr: []float64{0.1, 0.2}}},
		Band: "half-std", PaperBand: "±0.5 std (paper)",
	}
	dir := t.TempDir()
	if err := Write(dir, res); err != nil {
		t.Fatal(err)
	}
	md, _ := os.ReadFile(filepath.Join(dir, ReportFile))
	if !strings.Contains(string(md), "shaded bands are ±0.5 standard deviation across trials. The paper's figure: ±0.5 std (paper).") {
		t.Fatalf("report.md does not state the band:\n%s", md)
	}
	if res.Curves[0].Stderr[1] != 0.2 {
		t.Fatal("drawing a band changed the curves")
	}
	res.Band = "iqr"
	if err := Write(t.TempDir(), res); err == nil || !strings.Contains(err.Error(), `band = "iqr"`) {
		t.Fatalf("bad band: %v", err)
	}
}

func TestSweepFigure(t *testing.T) {
	series := map[string][]SweepPoint{
		"a": {{X: 0.1, Stat: Stat{Mean: 1, Stderr: 0.1}}, {X: 1, Stat: Stat{Mean: 3, Stderr: 0.2}}},
		"b": {{X: 1, Stat: Stat{Mean: 2, Stderr: 0}}, {X: 0.1, Stat: Stat{Mean: 2.5, Stderr: 0.3}}},
	}
	p, err := SweepFigure(series, "t", "scale", "regret", true)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := SavePlot(p, dir, "sweep"); err != nil {
		t.Fatal(err)
	}
	if _, err := SweepFigure(map[string][]SweepPoint{"a": {{X: 0, Stat: Stat{Mean: 1}}}}, "t", "x", "y", true); err == nil {
		t.Fatal("x = 0 on a log axis accepted")
	}
}

// A sparse-GP entry is labelled as an approximation in report.md.
func TestApproximationLabelled(t *testing.T) {
	res := &Results{Summary: Summary{Problem: "p", Horizon: 1, Trials: 1,
		Algorithms: map[string]Algorithm{"fast": {}, "exact": {}},
		Specs:      []AlgoSpec{{Label: "exact", ID: "rpol-ucb"}, {Label: "fast", ID: "rpol-ucb", Params: map[string]string{"inducing": "256"}}}}}
	dir := t.TempDir()
	if err := Write(dir, res); err != nil {
		t.Fatal(err)
	}
	md, _ := os.ReadFile(filepath.Join(dir, ReportFile))
	if !strings.Contains(string(md), "**Approximation:** `fast` runs a sparse GP with 256 inducing points") || strings.Contains(string(md), "`exact` runs a sparse") {
		t.Fatalf("report.md:\n%s", md)
	}
}
