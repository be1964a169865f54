package report

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// File names written by [Write].
const (
	SummaryFile = "summary.json"
	CurvesFile  = "curves.csv"
	ReportFile  = "report.md"
)

// Write creates dir (and its parents) and writes every output of a run into
// it: summary.json, curves.csv, one figure per metric present in the curves
// (<metric>.svg and <metric>.png, plus <metric>_avg.svg/png for regret and
// violation_hard) and report.md.
//
// A failure in one file does not stop the others: Write writes what it can
// and returns the errors joined, each naming its file.
func Write(dir string, res *Results) error {
	if res == nil {
		return errors.New("report: nil results")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("report: creating output directory: %w", err)
	}
	var errs []error
	if err := WriteSummary(filepath.Join(dir, SummaryFile), &res.Summary); err != nil {
		errs = append(errs, err)
	}
	curvesOK := true
	if err := WriteCurves(filepath.Join(dir, CurvesFile), res.Curves); err != nil {
		errs = append(errs, err)
		curvesOK = false
	}

	var figs []figureLink
	scale, _, err := bandScale(res.Band, res.Summary.Trials)
	if err != nil {
		errs = append(errs, fmt.Errorf("report: %w", err))
		curvesOK = false
	}
	if curvesOK {
		title := reportTitle(res)
		drawn := res.Curves
		if scale != 1 {
			drawn = make([]Curve, len(res.Curves))
			for i, c := range res.Curves {
				c.Stderr = make([]float64, len(c.Stderr))
				for k, v := range res.Curves[i].Stderr {
					c.Stderr[k] = scale * v
				}
				drawn[i] = c
			}
		}
		figure := func(metric, base, ylabel string, avg bool) {
			p, err := Figure(drawn, metric, title, ylabel, avg)
			if err == nil {
				err = SavePlot(p, dir, base)
			}
			if err != nil {
				errs = append(errs, fmt.Errorf("report: figure %s: %w", base, err))
				return
			}
			figs = append(figs, figureLink{alt: base, file: base + ".svg"})
		}
		for _, m := range curveMetrics(res.Curves) {
			figure(m, m, MetricLabel(m), false)
			if l, ok := avgLabels[m]; ok {
				figure(m, m+"_avg", l, true)
			}
		}
	}

	path := filepath.Join(dir, ReportFile)
	if err := writeReportFile(path, res, figs); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

func writeReportFile(path string, res *Results, figs []figureLink) (err error) {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("report: writing %s: %w", path, err)
	}
	defer func() {
		if cerr := f.Close(); err == nil && cerr != nil {
			err = fmt.Errorf("report: writing %s: %w", path, cerr)
		}
	}()
	if err := writeMarkdown(f, res, figs); err != nil {
		return fmt.Errorf("report: writing %s: %w", path, err)
	}
	return nil
}
