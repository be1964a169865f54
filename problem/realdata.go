package problem

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/cbandit/cbandit/bandit"
	"github.com/cbandit/cbandit/domain"
	"github.com/cbandit/cbandit/gp"
)

// samplesProblem builds a real-data problem as ../shared/data/README.md
// and Zhou & Ji (CBO) App. F.1 describe it: arm j has the recorded samples col j of obs;
// f(j) is their mean, an observed reward one recorded sample of the arm (row
// uniform at random) and the cost −reward + h, so that g = −f + h. The
// kernel is C, the empirical covariance of the standardised ("normalized")
// kernel samples, i.e. their correlation matrix (Zhou & Ji (CBO) App. F.1).
//
// Scale (normalise=max, the default): f, the samples and h are divided by
// max|f|, so B = 1, as Chowdhury & Gopalan's public code for these data sets
// does for f (main_lightsensordata.m: f_test = mean/max(mean)); with the
// unit-diagonal C the prior then has the scale of f. λ = 1 is that code's
// regulariser (lambda = 1). R is the largest deviation of a sample from its
// arm's mean (Zhou & Ji (CBO) App. F.2), in the same units. kernel-var and noise-var
// override s² (C·s²) and λ; "data" measures them from the data set (s² = mean
// of f², λ = mean per-arm sample variance). normalise=none keeps raw units.
func samplesProblem(name string, ps bandit.Params, header []string, kernelRows, obs [][]float64, h float64, hFrac bool, points [][]float64) (*Finite, error) {
	n := len(header)
	kmat, err := standardisedCov(name, header, kernelRows)
	if err != nil {
		return nil, err
	}
	norm, err := realNorm.Read(name, ps)
	if err != nil {
		return nil, err
	}
	f := colMeans(obs)
	if norm == "max" {
		scale := 0.0
		for _, m := range f {
			scale = math.Max(scale, math.Abs(m))
		}
		if !(scale > 0) {
			return nil, fmt.Errorf("%s: every arm's mean is 0: cannot normalise (use normalise=none)", name)
		}
		scaled := make([][]float64, len(obs))
		for r, row := range obs {
			scaled[r] = make([]float64, len(row))
			for j, v := range row {
				scaled[r][j] = v / scale
			}
		}
		obs = scaled
		for j := range f {
			f[j] /= scale
		}
		if !hFrac {
			h /= scale // h in the data's units
		}
	}
	var B, R, f2, nv float64
	for j, m := range f {
		B = math.Max(B, math.Abs(m))
		f2 += m * m
		var v float64
		for _, r := range obs {
			R = math.Max(R, math.Abs(r[j]-m))
			v += (r[j] - m) * (r[j] - m)
		}
		nv += v / float64(len(obs)-1)
	}
	f2 /= float64(n)
	nv /= float64(n)
	kvar, err := dataParam(ps, name, realKernelVar, f2)
	if err != nil {
		return nil, err
	}
	lambda, err := dataParam(ps, name, realNoiseVar, nv)
	if err != nil {
		return nil, err
	}
	for i := range kmat {
		kmat[i] *= kvar
	}
	pk, err := gp.NewPrecomputed(kmat, n)
	if err != nil {
		return nil, fmt.Errorf("%s: kernel (standardised covariance): %w", name, err)
	}
	if hFrac {
		h *= B
	}
	g := make([]float64, n)
	minG := math.Inf(1)
	for j := range f {
		g[j] = -f[j] + h
		minG = math.Min(minG, g[j])
	}
	safe := SafeSeed([][]float64{g}, n)
	if !(minG < 0) {
		return nil, fmt.Errorf("%s: threshold h = %v: no arm satisfies g = −f + h ≤ 0 (largest f = %v)", name, h, -minG+h)
	}
	if points == nil {
		points = pk.Points()
	}
	dom, err := domain.NewFinite(points)
	if err != nil {
		return nil, err
	}
	safeAct := bandit.Action{Arm: safe, X: points[safe]}
	info := bandit.Info{
		Domain: dom, M: 1, Kernel: pk,
		// λ: 1 by default (Chowdhury & Gopalan's code), see samplesProblem.
		NoiseVar: lambda,
		B:        B, G: B + math.Abs(h), // |g| ≤ |f| + |h|
		R: R, RG: R, // R = the largest deviation of a sample from its mean (Zhou & Ji (CBO) App. F.2)
		Slater: math.Min(1, -minG),
		Safe:   &safeAct, SafeCosts: []float64{g[safe]},
	}
	p, err := NewFinite(info, f, [][]float64{g})
	if err != nil {
		return nil, err
	}
	p.Noise = func(rng *rand.Rand, arm int, _ float64, _ []float64, dst []float64) float64 {
		r := obs[rng.IntN(len(obs))][arm]
		dst[0] = -r + h
		return r
	}
	return p, nil
}

// realScaleParams set the scale of the real-data problems (see samplesProblem).
var (
	realNorm = bandit.ChoiceParam{Name: "normalise", Default: "max", Choices: []string{"max", "none"},
		Doc: "max: f, the samples and h divided by max|f| (B = 1); none: raw units", Source: "Chowdhury & Gopalan's public code normalises f"}
	realKernelVar = bandit.FloatParam{Name: "kernel-var", Default: 1, Range: bandit.Above(0), Words: []string{"data"},
		Doc: "signal variance s² multiplying the correlation kernel C; data = mean of f² over the arms", Source: "Zhou & Ji (CBO) App. F.1 takes C itself: 1"}
	realNoiseVar = bandit.FloatParam{Name: "noise-var", Default: 1, Range: bandit.Above(0), Words: []string{"data"},
		Doc: "GP likelihood noise variance λ; data = mean over the arms of the variance of the recorded samples", Source: "1: Chowdhury & Gopalan's public code for these data sets"}
	realScaleParams = []bandit.Param{realNorm, realKernelVar, realNoiseVar}
)

// dataDoc declares the data directory of a real-data problem holding files.
func dataDoc(files string) bandit.StringParam {
	return bandit.StringParam{Name: "data", Computed: "$" + DataEnv + " or ../shared/data", Doc: "data directory holding " + files, Source: "../shared/data/README.md"}
}

var (
	lightH      = bandit.FloatParam{Name: "h", Default: 0.5, Doc: "threshold of g = −f + h·B as a fraction of B", Source: "Zhou & Ji (CBO) App. F.1: h = B/2"}
	lightData   = dataDoc("lightsensor/{train,test,coords}.csv")
	lightParams = append([]bandit.Param{lightH, lightData}, realScaleParams...)
	stockH      = bandit.FloatParam{Name: "h", Default: 100, Doc: "threshold of g = −f + h, in price units", Source: "Zhou & Ji (CBO) App. F.2: h = 100 ≈ B/2"}
	stockData   = dataDoc("stocks/prices.csv")
	stockParams = append([]bandit.Param{stockH, stockData}, realScaleParams...)
)

func init() {
	Register(Spec{
		Name:    "light-sensor",
		Summary: "41 light sensors (CMU, Nov 2005): f = mean test reading, correlation kernel of the train readings, reward = a recorded test reading",
		Source:  "Zhou & Ji (CBO) App. F.1 (real-world data); Zhou & Ji 2022 §5.1; ../shared/data/README.md",
		Params:  lightParams,
		New: func(ps bandit.Params, _ uint64) (Problem, error) {
			const name = "light-sensor"
			h, err := lightH.Read(name, ps)
			if err != nil {
				return nil, err
			}
			dir := lightData.ReadOr(ps, "")
			train, err := readTable(name, dir, "lightsensor/train.csv", 0)
			if err != nil {
				return nil, err
			}
			test, err := readTable(name, dir, "lightsensor/test.csv", 0)
			if err != nil {
				return nil, err
			}
			coords, err := readTable(name, dir, "lightsensor/coords.csv", 0)
			if err != nil {
				return nil, err
			}
			if len(train.header) != len(test.header) || len(coords.rows) != len(train.header) {
				return nil, fmt.Errorf("%s: train has %d sensors, test %d, coords %d rows: they must agree", name, len(train.header), len(test.header), len(coords.rows))
			}
			return samplesProblem(name, ps, train.header, train.rows, test.rows, h, true, coords.rows)
		},
	})
	Register(Spec{
		Name:    "stocks",
		Summary: "29 stocks 2016–2019: f = mean adjusted close, correlation kernel, reward = a recorded price (heavy-tailed, Zhou & Ji (CBO) App. F.2)",
		Source:  "Zhou & Ji (CBO) App. F.2; Zhou & Ji 2022 §5.2; ../shared/data/README.md",
		Params:  stockParams,
		New: func(ps bandit.Params, _ uint64) (Problem, error) {
			const name = "stocks"
			h, err := stockH.Read(name, ps)
			if err != nil {
				return nil, err
			}
			dir := stockData.ReadOr(ps, "")
			prices, err := readTable(name, dir, "stocks/prices.csv", 1)
			if err != nil {
				return nil, err
			}
			return samplesProblem(name, ps, prices.header, prices.rows, prices.rows, h, false, nil)
		},
	})
}

// dataParam reads d: a positive number, or "data" for the value measured
// from the data set (measured).
func dataParam(ps bandit.Params, problem string, d bandit.FloatParam, measured float64) (float64, error) {
	if ps[d.Name] == "data" {
		return measured, nil
	}
	return d.Read(problem, ps)
}
