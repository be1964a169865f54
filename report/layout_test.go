package report

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

// TestLegendOutsideTheData: the legend of a figure is drawn beside the data
// area (or below it, for long labels), never over the lines and bands.
func TestLegendOutsideTheData(t *testing.T) {
	for _, long := range []bool{false, true} {
		cs := sampleResults().Curves
		if long {
			for i := range cs {
				cs[i].Algorithm += ":alpha=0.1;beta-scale=0.5;widths=theory;standardise=off"
			}
		}
		p, err := Figure(cs, MetricViolationCount, "title", "count", false)
		if err != nil {
			t.Fatal(err)
		}
		c := draw.New(vgimg.New(FigureWidth, FigureHeight))
		plotC, legC, leg, ok := legendLayout(p, c)
		if !ok {
			t.Fatal("no legend")
		}
		data, lr := p.DataCanvas(plotC), leg.Rectangle(legC)
		overlapX := lr.Min.X < data.Max.X && data.Min.X < lr.Max.X
		overlapY := lr.Min.Y < data.Max.Y && data.Min.Y < lr.Max.Y
		if overlapX && overlapY {
			t.Errorf("long labels %v: legend %v overlaps the data area %v", long, lr, data.Rectangle)
		}
		if lr.Min.X < c.Min.X || lr.Max.X > c.Max.X+vg.Length(1e-9) || lr.Min.Y < c.Min.Y || lr.Max.Y > c.Max.Y {
			t.Errorf("long labels %v: legend %v outside the figure %v", long, lr, c.Rectangle)
		}
	}
}

// TestReportLinksAndZeroPairs: report.md links only files the run wrote,
// and a pairwise table whose differences are all exactly 0 is replaced by a
// one-line note.
func TestReportLinksAndZeroPairs(t *testing.T) {
	res := sampleResults()
	for label, a := range res.Summary.Algorithms {
		a.Regret.PerTrial = []float64{1, 2, 3}
		a.ViolationSoft.PerTrial = []float64{0, 0, 0}
		a.ViolationHard.PerTrial = []float64{0, 1, 0}
		a.ViolationCount.PerTrial = []float64{0, 0, 0}
		if label == "ckb-ucb" {
			a.Regret.PerTrial = []float64{2, 2, 5}
		}
		res.Summary.Algorithms[label] = a
	}
	res.Summary.Trials = 3
	dir := t.TempDir()
	if err := Write(dir, res); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(filepath.Join(dir, ReportFile))
	if err != nil {
		t.Fatal(err)
	}
	md := string(raw)
	for _, m := range regexp.MustCompile(`\]\(([^)#]+)\)`).FindAllStringSubmatch(md, -1) {
		if strings.Contains(m[1], "://") {
			continue
		}
		if _, err := os.Stat(filepath.Join(dir, m[1])); err != nil {
			t.Errorf("report.md links %s, which the run did not write", m[1])
		}
	}
	if !strings.Contains(md, "### regret") {
		t.Error("the regret table (differences not all 0) is missing")
	}
	for _, m := range []string{"violation_soft", "violation_hard", "violation_count"} {
		if strings.Contains(md, "### "+m) {
			t.Errorf("a pairwise table of %s, whose differences are all 0", m)
		}
	}
	if !strings.Contains(md, "Not tabulated: violation_soft, violation_hard, violation_count, whose paired differences are all exactly 0") {
		t.Errorf("no note on the tables left out:\n%s", md)
	}
}
