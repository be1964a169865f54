package penalty

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/cbandit/cbandit/experiment"
	"github.com/cbandit/cbandit/problem"
	"github.com/cbandit/cbandit/report"
	"github.com/cbandit/cbandit/runner"
)

// surrogate is one setting of the data-rate constants that Shi & Eryilmaz 2022 App. E.2 does
// not give (our surrogate, problem/datarate.go): every a_i times slope, the
// sigmoids' inflections moved by shift.
type surrogate struct{ slope, shift string }

// surrogates are the settings of the sensitivity run: ours first, then each
// knob moved on its own (slopes halved and doubled, inflections ∓0.3).
var surrogates = []surrogate{{"1", "0"}, {"0.5", "0"}, {"2", "0"}, {"1", "-0.3"}, {"1", "0.3"}}

// sensTrials is the sensitivity run's trial count at full size (the file's
// T = 350; under --quick the file's quick size). Only Alg. 2 and the OCO
// bandit, the comparison of Shi & Eryilmaz 2022 Figs. 6–7.
const sensTrials = 10

type sensRow struct {
	s      surrogate
	opt    float64
	alg2   [2][]float64 // per-trial utility f* − R(T)/T and V(T)/T
	oco    [2][]float64
	curves []report.Curve
}

// sensitivity runs datarate-noiseless.yaml over the surrogate constants and
// returns the markdown section for report.md; its figure goes to
// DIR/datarate-sensitivity/.
func sensitivity(ctx context.Context, o experiment.Options) (string, error) {
	dir := filepath.Join(o.Out, "datarate-sensitivity")
	var rows []sensRow
	for _, s := range surrogates {
		c, err := experiment.Embedded("penalty/datarate-noiseless.yaml")
		if err != nil {
			return "", err
		}
		var keep []experiment.AlgoConfig
		for _, a := range c.Algorithms {
			if a.ID == "penalty-noiseless" || a.ID == "oco-bandit" {
				keep = append(keep, a)
			}
		}
		c.Algorithms = keep
		for _, set := range []string{"params.slope=" + s.slope, "params.shift=" + s.shift,
			fmt.Sprintf("trials=%d", sensTrials),
			"title=data-rate, noiseless g, surrogate constants slope " + s.slope + ", shift " + s.shift + " (sensitivity; Shi & Eryilmaz 2022 App. E.2 gives none)"} {
			if err := c.Set(set); err != nil {
				return "", fmt.Errorf("datarate sensitivity: %w", err)
			}
		}
		out, err := execute(ctx, c, o, filepath.Join(dir, "slope"+s.slope+"-shift"+s.shift))
		if err != nil {
			return "", fmt.Errorf("datarate sensitivity (slope %s, shift %s): %w", s.slope, s.shift, err)
		}
		slope, _ := strconv.ParseFloat(s.slope, 64)
		shift, _ := strconv.ParseFloat(s.shift, 64)
		row := sensRow{s: s}
		row.opt, _ = problem.DataRateOptFor(slope, shift)
		fin, err := checkpoints(c, out, true)
		if err != nil {
			return "", err
		}
		T := float64(out.Rounds[len(out.Rounds)-1])
		for label, dst := range map[string]*[2][]float64{"penalty-noiseless": &row.alg2, "oco-bandit": &row.oco} {
			a, ok := out.Results.Summary.Algorithms[label]
			if !ok {
				return "", fmt.Errorf("datarate sensitivity: no %s in the run", label)
			}
			f := fin[label]
			last := len(f.checkpoints) - 1
			dst[0] = append([]float64(nil), f.regret[last]...)
			for _, v := range a.ViolationSoft.PerTrial {
				dst[1] = append(dst[1], v/T)
			}
		}
		for _, cv := range out.Results.Curves {
			if cv.Algorithm == "penalty-noiseless" && cv.Metric == runner.ViolationSoft {
				cv.Algorithm = "Alg. 2, slope " + s.slope + ", shift " + s.shift
				row.curves = append(row.curves, cv)
			}
		}
		rows = append(rows, row)
	}
	var curves []report.Curve
	for _, r := range rows {
		curves = append(curves, r.curves...)
	}
	p, err := report.Figure(curves, runner.ViolationSoft, "Alg. 2 on data-rate under surrogate constants (Shi & Eryilmaz 2022 App. E.2 gives none)", "V(t)/t", true)
	if err != nil {
		return "", fmt.Errorf("datarate sensitivity figure: %w", err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	if err := report.SavePlot(p, dir, "violation_avg"); err != nil {
		return "", err
	}

	var b strings.Builder
	b.WriteString("## Data-rate: sensitivity to our surrogate constants\n\n")
	b.WriteString("Shi & Eryilmaz 2022 App. E.2 names the utility shapes (eq. 35–36) but not the constants a_i..d_i; ours are a surrogate (problem/datarate.go, `cbandit list --verbose`). ")
	fmt.Fprintf(&b, "Each row reruns datarate-noiseless.yaml (Alg. 2 and the OCO bandit, %s) with every a_i × slope and the sigmoids' inflections + shift. ", sizeText(o.Quick))
	b.WriteString("Utility is f* − R(T)/T and V is V(T)/T (means over trials); the last columns are Alg. 2 − OCO, paired over the trials (common random numbers), with the 95 % paired-t interval.\n\n")
	b.WriteString("| slope | shift | f* | Alg. 2 utility | Alg. 2 V/T | OCO utility | OCO V/T | Δ utility (Alg. 2 − OCO) | Δ V/T (Alg. 2 − OCO) | Alg. 2 lower V/T? |\n|---:|---:|---:|---:|---:|---:|---:|---|---|---|\n")
	agree := 0
	for _, r := range rows {
		du, _ := report.PairedDiff(r.alg2[0], r.oco[0])
		dv, _ := report.PairedDiff(r.alg2[1], r.oco[1])
		lower := "no"
		if dv.Hi < 0 {
			lower = "yes"
			agree++
		} else if dv.Mean < 0 {
			lower = "not significant"
		}
		fmt.Fprintf(&b, "| %s | %s | %.4f | %.4f | %.4f | %.4f | %.4f | %s | %s | %s |\n", r.s.slope, r.s.shift, r.opt,
			mean(r.alg2[0]), mean(r.alg2[1]), mean(r.oco[0]), mean(r.oco[1]), interval(du), interval(dv), lower)
	}
	fmt.Fprintf(&b, "\nAlg. 2's violation is below OCO's (interval excluding 0) under %d of %d surrogate settings. ", agree, len(rows))
	b.WriteString("Figure: Alg. 2's V(t)/t under each setting, ±1 standard error.\n\n![sensitivity](datarate-sensitivity/violation_avg.svg)\n\n")
	return b.String(), nil
}

func sizeText(quick bool) string {
	if quick {
		return "--quick: the file's quick size"
	}
	return fmt.Sprintf("T = 350, %d trials", sensTrials)
}

func interval(p report.Paired) string {
	if math.IsNaN(p.Lo) {
		return fmt.Sprintf("%+.4f (n = %d)", p.Mean, p.N)
	}
	return fmt.Sprintf("%+.4f [%+.4f, %+.4f]", p.Mean, p.Lo, p.Hi)
}
