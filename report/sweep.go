package report

import (
	"fmt"
	"sort"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg/draw"
)

// SweepPoint is one setting of a parameter sweep: the parameter's value and
// the metric over trials there.
type SweepPoint struct {
	X    float64
	Stat Stat
}

// SweepFigure draws a metric against a swept parameter: one line per series
// (sorted by name, styled as in [Figure]) with ±1 stderr error bars.
// logX puts the parameter on a log scale.
func SweepFigure(series map[string][]SweepPoint, title, xlabel, ylabel string, logX bool) (*plot.Plot, error) {
	if len(series) == 0 {
		return nil, fmt.Errorf("report: sweep figure %q: no series", title)
	}
	names := make([]string, 0, len(series))
	for n := range series {
		names = append(names, n)
	}
	sort.Strings(names)
	p := newPlot(title, xlabel, ylabel)
	if logX {
		p.X.Scale = plot.LogScale{}
		p.X.Tick.Marker = plot.LogTicks{Prec: -1}
	}
	for i, name := range names {
		pts := append([]SweepPoint(nil), series[name]...)
		sort.Slice(pts, func(a, b int) bool { return pts[a].X < pts[b].X })
		xys := make(plotter.XYs, len(pts))
		errs := make(plotter.YErrors, len(pts))
		for k, sp := range pts {
			if bad(sp.X) || bad(sp.Stat.Mean) || bad(sp.Stat.Stderr) || (logX && sp.X <= 0) {
				return nil, fmt.Errorf("report: sweep figure %q: series %s has a non-finite point (%v, %v)", title, name, sp.X, sp.Stat.Mean)
			}
			xys[k] = plotter.XY{X: sp.X, Y: sp.Stat.Mean}
			errs[k].Low, errs[k].High = sp.Stat.Stderr, sp.Stat.Stderr
		}
		line, points, err := plotter.NewLinePoints(xys)
		if err != nil {
			return nil, err
		}
		line.LineStyle = lineStyle(i)
		points.Shape = draw.CircleGlyph{}
		points.Color = lineColor(i)
		bars, err := plotter.NewYErrorBars(struct {
			plotter.XYs
			plotter.YErrors
		}{xys, errs})
		if err != nil {
			return nil, err
		}
		bars.LineStyle.Color = lineColor(i)
		p.Add(line, points, bars)
		p.Legend.Add(name, line, points)
	}
	p.Legend.Top = true
	return p, nil
}
