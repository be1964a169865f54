//go:build ignore

// certify_bound runs cbandit's offline default on suite problems under noise
// and asks of each run's evaluated configurations what a recommendation at
// P(every limit holds) ≥ 0.95 could reach among them were it told, for free,
// which of them are truly inside: for t = 0, 0.1, 0.2, 0.4, the least true
// gap of an evaluated configuration that holds every limit by t noise stds
// (t = 0: the best feasible evaluation, the figure GPSampler's best feasible
// trial is). To call a configuration safe at 0.95 from n observations' worth
// of its constraints (std s/√n), a margin of t·s needs n = (z/t)², z =
// Φ⁻¹(0.95^{1/k}) for the k limits active at the optimum; the table gives it.
// Read in docs/offline.md, "The recommendation's bar: what certifying costs".
//
//	go run docs/certify_bound.go [-problems spring,speed-reducer] [-seeds 10] [-noise 0.05] [-scale limit|range]
package main

import (
	"context"
	"flag"
	"fmt"
	"math"
	"os"
	"strings"

	"github.com/cbandit/cbandit/problem"
	"github.com/cbandit/cbandit/suite"
	"gonum.org/v1/gonum/stat/distuv"
)

var slacks = []float64{0, 0.1, 0.2, 0.4}

func main() {
	probs := flag.String("problems", "spring,speed-reducer,three-bar-truss,vessel", "systems suite problems, comma-separated (boxes and typed spaces alike: the runs' points are read in problem coordinates)")
	seeds := flag.Int("seeds", 10, "seeds 1..n")
	noise := flag.Float64("noise", 0.05, "noise std as a share of each metric's scale")
	scale := flag.String("scale", suite.NoiseLimit, "what the noise is a share of: limit or range (suite --noise-scale)")
	workers := flag.Int("workers", 2, "runs in parallel")
	flag.Parse()
	sum, err := suite.Run(context.Background(), suite.Options{Set: suite.SetSystems, Problems: strings.Split(*probs, ","),
		Algorithms: []string{suite.Default}, Horizon: 200, Seeds: *seeds, Units: []string{suite.Natural}, Workers: *workers,
		Noise: *noise, NoiseScale: *scale, Evaluations: suite.Offline})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Printf("noise %.3g of each %s, T = 200, seeds 1–%d; gaps are means over the seeds (worst in brackets)\n\n", *noise, *scale, *seeds)
	fmt.Print("| problem | k | recommendation |")
	for _, t := range slacks {
		if t == 0 {
			fmt.Print(" best feasible evaluation |")
			continue
		}
		fmt.Printf(" inside by %.1f s |", t)
	}
	fmt.Println()
	fmt.Println("|---|---|---|---|---|---|---|")
	for _, c := range sum.Cells {
		if err := row(c, *noise, *scale); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
}

// row prints a cell's line: the recommendation's mean true gap, and for
// each slack t the mean over seeds of the least true gap among the
// evaluations inside every limit by t noise stds, with n = (z/t)².
func row(c suite.Cell, noise float64, scale string) error {
	p, err := problem.SuiteByName(c.Problem)
	if err != nil {
		return err
	}
	fa, err := p.Facts()
	if err != nil {
		return err
	}
	s := make([]float64, len(p.Constraints))
	if scale == suite.NoiseLimit {
		_, lim, err := p.NoiseScales(fa)
		if err != nil {
			return err
		}
		for j := range s {
			s[j] = noise * lim[j]
		}
	} else {
		for j, r := range fa.ConRanges {
			s[j] = noise * (r[1] - r[0])
		}
	}
	k := 0
	for j, cn := range p.Constraints {
		if math.Abs(cn.F(fa.XOpt)-cn.Threshold) < 0.02*s[j] {
			k++
		}
	}
	z := distuv.UnitNormal.Quantile(math.Pow(0.95, 1/float64(max(k, 1))))
	gap := func(x []float64) float64 {
		return p.Sign() * (fa.Opt - p.Objective.F(x)) / math.Abs(fa.Opt)
	}
	rec, nrec, worstRec := 0.0, 0, 0.0
	sums, worst, found := make([]float64, len(slacks)), make([]float64, len(slacks)), make([]int, len(slacks))
	for _, r := range c.Runs {
		if rs := r.Systems.Recommendation; rs != nil && rs.Present && rs.Gap != nil {
			rec += *rs.Gap
			worstRec = max(worstRec, *rs.Gap)
			nrec++
		}
		for i, t := range slacks {
			best := math.Inf(1)
			for _, x := range r.Points {
				if p.CrashAt(x) != "" {
					continue
				}
				inside := true
				for j, cn := range p.Constraints {
					if cn.Threshold-cn.F(x) < t*s[j] {
						inside = false
						break
					}
				}
				if inside {
					best = min(best, gap(x))
				}
			}
			if !math.IsInf(best, 1) {
				sums[i] += best
				worst[i] = max(worst[i], best)
				found[i]++
			}
		}
	}
	fmt.Printf("| %s | %d | %.4f (%.3f; %d runs) |", c.Problem, k, rec/float64(max(nrec, 1)), worstRec, nrec)
	for i, t := range slacks {
		cell := "–"
		if found[i] > 0 {
			cell = fmt.Sprintf("%.4f (%.3f)", sums[i]/float64(found[i]), worst[i])
			if found[i] < len(c.Runs) {
				cell += fmt.Sprintf(", %d runs", found[i])
			}
		}
		if t > 0 {
			cell += fmt.Sprintf("; n = %.0f", (z/t)*(z/t))
		}
		fmt.Printf(" %s |", cell)
	}
	fmt.Println()
	return nil
}
