package report

import (
	"errors"
	"fmt"
	"image/color"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Figure size used by [SavePlot]: 600×375 pt, which is 800×500 px in the
// PNG (96 dpi).
const (
	FigureWidth  = 600 * vg.Inch / 72
	FigureHeight = 375 * vg.Inch / 72
)

// bandAlpha is the opacity of the ±1 stderr bands and box fills.
const bandAlpha = 0x38

// palette holds distinguishable line colours (colour-blind friendly, after
// Okabe and Ito), used in turn.
var palette = []color.RGBA{
	{0x00, 0x72, 0xb2, 0xff}, // blue
	{0xd5, 0x5e, 0x00, 0xff}, // vermillion
	{0x00, 0x9e, 0x73, 0xff}, // bluish green
	{0xcc, 0x79, 0xa7, 0xff}, // reddish purple
	{0xe6, 0x9f, 0x00, 0xff}, // orange
	{0x56, 0xb4, 0xe9, 0xff}, // sky blue
	{0x00, 0x00, 0x00, 0xff}, // black
	{0xf0, 0xe4, 0x42, 0xff}, // yellow
}

// lineColor is the colour of the i-th algorithm.
func lineColor(i int) color.RGBA { return palette[i%len(palette)] }

// translucent returns c with opacity alpha (premultiplied, as color.RGBA wants).
func translucent(c color.RGBA, alpha uint8) color.RGBA {
	scale := func(v uint8) uint8 { return uint8(uint16(v) * uint16(alpha) / 0xff) }
	return color.RGBA{scale(c.R), scale(c.G), scale(c.B), alpha}
}

// lineStyle is the style of the i-th algorithm: its own colour and its own
// dash pattern, so that the lines stay distinguishable in grey print.
func lineStyle(i int) draw.LineStyle {
	return draw.LineStyle{
		Color:  lineColor(i),
		Width:  vg.Points(1.6),
		Dashes: plotutil.Dashes(i),
	}
}

// newPlot returns a plot with the common decorations.
func newPlot(title, xlabel, ylabel string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = xlabel
	p.Y.Label.Text = ylabel
	p.Title.Padding = vg.Points(6)
	p.Title.TextStyle.Font.Size = vg.Points(13)
	p.Legend.ThumbnailWidth = vg.Points(24)
	g := plotter.NewGrid()
	g.Vertical.Color = color.Gray{0xe0}
	g.Horizontal.Color = color.Gray{0xe0}
	p.Add(g)
	return p
}

// Figure draws the curves of one metric against the round: one line per
// algorithm (sorted by name) with a translucent ±1 stderr band. Colours and
// dash styles follow the algorithm's rank among all algorithms in curves,
// so that every figure drawn from the same curves styles an algorithm alike.
//
// With timeAverage, each point is divided by its round (mean/t ± stderr/t),
// which shows whether regret or violation grows sublinearly.
//
// Points whose mean is NaN or infinite are skipped; a NaN or infinite stderr
// draws no band at that point. It is an error if no curve has metric, or if
// a curve's slices have different lengths.
func Figure(curves []Curve, metric string, title, ylabel string, timeAverage bool) (*plot.Plot, error) {
	algs := curveAlgorithms(curves)
	var sel []Curve
	for _, c := range curves {
		if c.Metric == metric {
			sel = append(sel, c)
		}
	}
	if len(sel) == 0 {
		return nil, fmt.Errorf("figure: no curve has metric %q", metric)
	}
	sel = sortedCurves(sel)

	p := newPlot(title, "round", ylabel)
	for _, c := range sel {
		if len(c.Mean) != len(c.Rounds) || len(c.Stderr) != len(c.Rounds) {
			return nil, fmt.Errorf("figure: curve (algorithm %q, metric %q): %d rounds, %d means, %d stderrs",
				c.Algorithm, c.Metric, len(c.Rounds), len(c.Mean), len(c.Stderr))
		}
		line, upper, lower := curvePoints(c, timeAverage)
		if len(line) == 0 {
			continue
		}
		i := slices.Index(algs, c.Algorithm)
		ln, err := plotter.NewLine(line)
		if err != nil {
			return nil, fmt.Errorf("figure: curve (algorithm %q, metric %q): %w", c.Algorithm, c.Metric, err)
		}
		ln.LineStyle = lineStyle(i)
		thumbs := []plot.Thumbnailer{ln}
		if len(upper) > 1 {
			ring := append(upper, reversed(lower)...)
			band, err := plotter.NewPolygon(ring)
			if err != nil {
				return nil, fmt.Errorf("figure: curve (algorithm %q, metric %q): %w", c.Algorithm, c.Metric, err)
			}
			band.Color = translucent(lineColor(i), bandAlpha)
			band.LineStyle = draw.LineStyle{Color: color.Transparent, Width: 0}
			p.Add(band)
			thumbs = []plot.Thumbnailer{band, ln}
		}
		p.Add(ln)
		p.Legend.Add(c.Algorithm, thumbs...)
	}
	// Cumulative metrics start at zero: show the origin.
	if p.X.Min > 0 {
		p.X.Min = 0
	}
	if p.Y.Min > 0 {
		p.Y.Min = 0
	}
	return p, nil
}

// curvePoints returns the finite points of c (divided by the round when
// timeAverage) and the upper and lower edges of its ±1 stderr band.
func curvePoints(c Curve, timeAverage bool) (line, upper, lower plotter.XYs) {
	for i, r := range c.Rounds {
		m, s := c.Mean[i], c.Stderr[i]
		if timeAverage {
			m /= float64(r)
			s /= float64(r)
		}
		if math.IsNaN(m) || math.IsInf(m, 0) {
			continue
		}
		x := float64(r)
		line = append(line, plotter.XY{X: x, Y: m})
		if math.IsNaN(s) || math.IsInf(s, 0) {
			s = 0
		}
		s = math.Abs(s)
		upper = append(upper, plotter.XY{X: x, Y: m + s})
		lower = append(lower, plotter.XY{X: x, Y: m - s})
	}
	return line, upper, lower
}

func reversed(xys plotter.XYs) plotter.XYs {
	out := slices.Clone(xys)
	slices.Reverse(out)
	return out
}

// BoxFigure draws grouped boxplots: for each checkpoint round, one box per
// algorithm (sorted by name, side by side) summarising that algorithm's
// per-trial samples at the checkpoint. groups[alg][k] holds the samples at
// checkpoints[k]; an empty sample set leaves a gap. Boxes follow Tukey's
// convention (whiskers to the most extreme points within 1.5 IQR, points
// beyond drawn individually).
func BoxFigure(groups map[string][][]float64, checkpoints []int, title, ylabel string) (*plot.Plot, error) {
	if len(groups) == 0 {
		return nil, errors.New("box figure: no algorithms")
	}
	if len(checkpoints) == 0 {
		return nil, errors.New("box figure: no checkpoints")
	}
	algs := make([]string, 0, len(groups))
	for a, g := range groups {
		if len(g) != len(checkpoints) {
			return nil, fmt.Errorf("box figure: algorithm %q has %d sample sets for %d checkpoints", a, len(g), len(checkpoints))
		}
		algs = append(algs, a)
	}
	sort.Strings(algs)

	p := newPlot(title, "round", ylabel)
	// Boxes of one checkpoint share about 80% of its slot of the data area
	// (roughly 85% of the figure width).
	slot := 0.85 * float64(FigureWidth) / float64(len(checkpoints))
	width := vg.Length(0.8 * slot / float64(len(algs)))
	if max := vg.Points(28); width > max {
		width = max
	}
	nonEmpty := false
	for i, a := range algs {
		col := lineColor(i)
		for k := range checkpoints {
			vals := groups[a][k]
			if len(vals) == 0 {
				continue
			}
			for j, v := range vals {
				if math.IsNaN(v) || math.IsInf(v, 0) {
					return nil, fmt.Errorf("box figure: algorithm %q, checkpoint %d, sample %d is %v", a, checkpoints[k], j, v)
				}
			}
			b, err := plotter.NewBoxPlot(width, float64(k), plotter.Values(vals))
			if err != nil {
				return nil, fmt.Errorf("box figure: algorithm %q, checkpoint %d: %w", a, checkpoints[k], err)
			}
			b.Offset = vg.Length(float64(i)-float64(len(algs)-1)/2) * width
			b.FillColor = translucent(col, 0x60)
			b.BoxStyle.Color = col
			b.MedianStyle.Color = col
			b.MedianStyle.Width = vg.Points(1.6)
			b.WhiskerStyle.Color = col
			b.GlyphStyle.Color = col
			p.Add(b)
			nonEmpty = true
		}
		p.Legend.Add(a, swatch{fill: translucent(col, 0x60), edge: col})
	}
	if !nonEmpty {
		return nil, errors.New("box figure: every sample set is empty")
	}
	names := make([]string, len(checkpoints))
	for k, c := range checkpoints {
		names[k] = strconv.Itoa(c)
	}
	p.NominalX(names...)
	p.X.Label.Text = "round"
	p.X.Min, p.X.Max = -0.5, float64(len(checkpoints))-0.5
	return p, nil
}

// swatch is a legend thumbnail: a filled rectangle with an edge.
type swatch struct{ fill, edge color.Color }

func (s swatch) Thumbnail(c *draw.Canvas) {
	pts := []vg.Point{
		{X: c.Min.X, Y: c.Min.Y}, {X: c.Min.X, Y: c.Max.Y},
		{X: c.Max.X, Y: c.Max.Y}, {X: c.Max.X, Y: c.Min.Y},
	}
	c.FillPolygon(s.fill, c.ClipPolygonY(pts))
	c.StrokeLines(draw.LineStyle{Color: s.edge, Width: vg.Points(1)}, append(pts, pts[0]))
}

// SavePlot writes p as dir/base.svg and dir/base.png, both
// [FigureWidth]×[FigureHeight] (800×500 px in the PNG), with the legend
// outside the data area (DrawLegendOutside). Errors name the file.
func SavePlot(p *plot.Plot, dir, base string) error {
	if p == nil {
		return fmt.Errorf("report: saving %s: nil plot", filepath.Join(dir, base))
	}
	for _, ext := range []string{"svg", "png"} {
		path := filepath.Join(dir, base+"."+ext)
		if err := savePlot(p, path, ext); err != nil {
			return fmt.Errorf("report: writing %s: %w", path, err)
		}
	}
	return nil
}

func savePlot(p *plot.Plot, path, format string) (err error) {
	c, err := draw.NewFormattedCanvas(FigureWidth, FigureHeight, format)
	if err != nil {
		return err
	}
	DrawLegendOutside(p, draw.New(c))
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}()
	_, err = c.WriteTo(f)
	return err
}

// legendGap is the space between the plot and a legend beside or below it.
const legendGap = 10 * vg.Inch / 72

// DrawLegendOutside draws p on c with its legend beside the plot, to the
// right of it, or below it when the legend is wider than a third of c:
// never over the lines and bands (inside, the legend covered the bands of
// violation_count.png wherever it was placed).
func DrawLegendOutside(p *plot.Plot, c draw.Canvas) {
	plotC, legC, leg, ok := legendLayout(p, c)
	if !ok {
		p.Draw(c)
		return
	}
	saved := p.Legend
	p.Legend = plot.NewLegend() // no entries: Plot.Draw draws none inside
	p.Draw(plotC)
	p.Legend = saved
	leg.Draw(legC)
}

// legendLayout splits c into the plot's canvas and the legend's (beside or
// below), and returns the legend set to fill its canvas from the top left;
// ok is false for a legend without entries.
func legendLayout(p *plot.Plot, c draw.Canvas) (plotC, legC draw.Canvas, leg plot.Legend, ok bool) {
	leg = p.Legend
	r := leg.Rectangle(c)
	w, h := r.Max.X-r.Min.X, r.Max.Y-r.Min.Y
	if w <= 0 || h <= 0 {
		return c, c, leg, false
	}
	leg.Top, leg.Left, leg.XOffs, leg.YOffs = true, true, 0, 0
	if w <= (c.Max.X-c.Min.X)/3 {
		// Beside the data area, its top below the title.
		top := vg.Length(0)
		if p.Title.Text != "" {
			top = p.Title.TextStyle.Rectangle(p.Title.Text).Size().Y + p.Title.Padding
		}
		return draw.Crop(c, 0, -(w + 2*legendGap), 0, 0), draw.Crop(c, c.Max.X-c.Min.X-w-legendGap, 0, 0, -top), leg, true
	}
	// Below, with a gap under it for the last entry's descent.
	return draw.Crop(c, 0, 0, h+2*legendGap, 0), draw.Crop(c, legendGap, 0, legendGap, -(c.Max.Y - c.Min.Y - h - legendGap)), leg, true
}
