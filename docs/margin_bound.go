//go:build ignore

// margin_bound prints, for the systems suite's engineering problems at a
// noise relative to their limits, the least true gap of a configuration that
// lies inside every limit by the margin a recommendation at P(every limit
// holds) ≥ 0.95 needs when its constraints are known as well as n
// observations at the point would tell them (std s_j/√n, s_j the noise std):
// z·s_j/√n on every constraint, z = Φ⁻¹(0.95^{1/k}) for the k constraints
// active at the optimum. Read in docs/offline.md, "What the bar against
// GPSampler's best feasible trial asks of a recommendation".
//
//	go run docs/margin_bound.go [-noise 0.05]
package main

import (
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"

	"github.com/cbandit/cbandit/problem"
	"gonum.org/v1/gonum/stat/distuv"
)

func main() {
	noise := flag.Float64("noise", 0.05, "noise std as a share of each limit's scale (suite --noise-scale limit)")
	flag.Parse()
	fmt.Println("| problem | active at x* | z | gap at n = 5 | 10 | 20 | 50 | 100 | 150 | 200 |")
	fmt.Println("|---|---|---|---|---|---|---|---|---|---|")
	for _, name := range []string{"spring", "vessel", "speed-reducer"} {
		p, err := problem.SuiteByName(name)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		if err := row(&p, *noise); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
}

// row prints p's line: for each n the best gap found by penalised pattern
// searches from the optimum, from the previous n's point and from 60 random
// points (integer and step parameters relaxed to reals: a lower gap than the
// typed problem's).
func row(p *problem.SuiteProblem, noise float64) error {
	fa, err := p.Facts()
	if err != nil {
		return err
	}
	_, scale, err := p.NoiseScales(fa)
	if err != nil {
		return err
	}
	k := 0
	for j, c := range p.Constraints {
		if math.Abs(c.F(fa.XOpt)-c.Threshold) < 1e-3*scale[j] {
			k++
		}
	}
	z := distuv.UnitNormal.Quantile(math.Pow(0.95, 1/float64(max(k, 1))))
	fmt.Printf("| %s | %d | %.3f |", p.Name, k, z)
	d := len(p.Lo)
	cons := make([]float64, len(p.Constraints))
	toX := func(u []float64) []float64 {
		x := make([]float64, d)
		for i := range x {
			x[i] = p.Lo[i] + min(1, max(0, u[i]))*(p.Hi[i]-p.Lo[i])
		}
		return x
	}
	var prev []float64
	for _, n := range []int{5, 10, 20, 50, 100, 150, 200} {
		margin := make([]float64, len(scale))
		for j := range scale {
			margin[j] = z * noise * scale[j] / math.Sqrt(float64(n))
		}
		// excess is the largest shortfall of the margin, in noise stds.
		excess := func(x []float64) float64 {
			p.Eval(x, cons)
			e := 0.0
			for j, c := range p.Constraints {
				e = max(e, (cons[j]-(c.Threshold-margin[j]))/(noise*scale[j]))
			}
			return e
		}
		obj := func(u []float64, w float64) float64 {
			x := toX(u)
			return -p.Sign()*p.Objective.F(x)/math.Abs(fa.Opt) + w*excess(x)
		}
		rng := rand.New(rand.NewPCG(1, uint64(n)))
		best, bestU := math.Inf(1), []float64(nil)
		try := func(u []float64, ws []float64) {
			for _, w := range ws {
				f := func(u []float64) float64 { return obj(u, w) }
				u = evolve(f, patternSearch(f, u), rng)
			}
			if v := obj(u, 0); excess(toX(u)) <= 1e-6 && v < best {
				best, bestU = v, u
			}
		}
		schedule := []float64{10, 100, 1e3, 1e4, 1e5}
		for s := 0; s < 62; s++ {
			u := make([]float64, d)
			for i := range u {
				switch {
				case s == 0:
					u[i] = (fa.XOpt[i] - p.Lo[i]) / (p.Hi[i] - p.Lo[i])
				case s == 1 && prev != nil:
					u[i] = prev[i]
				default:
					u[i] = rng.Float64()
				}
			}
			try(u, schedule)
			if s < 2 {
				try(u, schedule[4:]) // within the margins at once
			}
		}
		if bestU == nil {
			fmt.Print(" – |")
			continue
		}
		for range 5 { // polish the best, keeping it within the margins
			f := func(u []float64) float64 { return obj(u, 1e5) }
			u := patternSearch(f, evolve(f, bestU, rng))
			if v := obj(u, 0); excess(toX(u)) <= 1e-6 && v < best {
				best, bestU = v, u
			}
		}
		prev = bestU
		f := p.Objective.F(toX(bestU))
		fmt.Printf(" %.4f |", p.Sign()*(fa.Opt-f)/math.Abs(fa.Opt))
	}
	fmt.Println()
	return nil
}

// patternSearch is Hooke and Jeeves' coordinate search on [0, 1]^d, from u,
// down to a step of 1e-9.
func patternSearch(f func([]float64) float64, u []float64) []float64 {
	u = append([]float64(nil), u...)
	fu := f(u)
	for step := 0.1; step > 1e-9; {
		moved := false
		for i := range u {
			for _, s := range []float64{step, -step} {
				v := append([]float64(nil), u...)
				v[i] = min(1, max(0, v[i]+s))
				if fv := f(v); fv < fu {
					u, fu, moved = v, fv, true
					break
				}
			}
		}
		if !moved {
			step /= 2
		}
	}
	return u
}

// evolve is a (1+1) evolution strategy with the one-fifth success rule
// (Rechenberg 1973) from u, 4000 steps: it follows curved valleys a
// coordinate search stalls in.
func evolve(f func([]float64) float64, u []float64, rng *rand.Rand) []float64 {
	fu, sigma := f(u), 0.05
	v := make([]float64, len(u))
	for range 4000 {
		for i := range v {
			v[i] = min(1, max(0, u[i]+sigma*rng.NormFloat64()))
		}
		if fv := f(v); fv < fu {
			u, fu = append([]float64(nil), v...), fv
			sigma *= 1.5
		} else {
			sigma *= math.Pow(1.5, -0.25)
		}
		sigma = max(sigma, 1e-9)
	}
	return u
}
