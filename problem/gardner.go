package problem

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/cbandit/cbandit/bandit"
	"github.com/cbandit/cbandit/domain"
	"github.com/cbandit/cbandit/gp"
)

// gardner: Guo et al. §7 (after Gardner et al. 2014): f = −sin x₁ − x₂,
// g = sin x₁ sin x₂ + 0.95 on [0,6]².
var (
	gardnerNoiseF = bandit.FloatParam{Name: "noise_f", Default: math.Sqrt(0.05), Range: bandit.AtLeast(0),
		Doc: "std of the Gaussian reward noise, √0.05", Source: "Guo et al. §7 says N(0, 0.05), which we read as variance 0.05 (the N(μ, σ²) convention)"}
	gardnerNoiseG = bandit.FloatParam{Name: "noise_g", Default: math.Sqrt(0.05), Range: bandit.AtLeast(0),
		Doc: "std of the Gaussian cost noise, √0.05", Source: "Guo et al. §7, as noise_f"}
	gardnerLength = bandit.FloatParam{Name: "lengthscale", Default: 1, Range: bandit.Above(0),
		Doc: "SE kernel lengthscale u", Source: "Guo et al. §2 uses the SE kernel; §7 does not give u: our choice"}
	gardnerChange = bandit.StringParam{Name: "change_points", Default: "101,301",
		Doc: "first rounds of the 2nd and 3rd pieces", Source: "Guo et al. §7: f, g change after rounds 100 and 300"}
)

// scaleDoc and offsetDoc put a problem's metrics in other units (unitsParams).
var (
	scaleDoc = bandit.FloatParam{Name: "scale", Default: 1, Range: bandit.Above(0),
		Doc: "a: the metrics in other units: reward a·f + b, cost metrics a·g + b against threshold b (so g' = a·g); noise, B, G, R, RG, Slater and the noise variance scale with them, the kernel does not", Source: "our choice (a test of unit-free defaults)"}
	offsetDoc = bandit.FloatParam{Name: "offset", Default: 0, Range: bandit.Finite(), Doc: "b: the offset of the metrics' units (see scale)", Source: "our choice"}
)

var gardnerParams = []bandit.Param{gardnerNoiseF, gardnerNoiseG, gardnerLength, scaleDoc, offsetDoc}

var gardnerDriftParams = append(slices.Clone(gardnerParams), gardnerChange)

func init() {
	Register(Spec{
		Name:    "gardner",
		Summary: "f = −sin x₁ − x₂, g = sin x₁ sin x₂ + 0.95 on [0,6]², Gaussian noise",
		Source:  "Guo et al. §7 (classical and delayed settings)",
		Params:  gardnerParams,
		New: func(p bandit.Params, _ uint64) (Problem, error) {
			return newGardner("gardner", p, false)
		},
	})
	Register(Spec{
		Name:    "gardner-drift",
		Summary: "gardner with three (f, g) pieces changing at rounds 101 and 301",
		Source:  "Guo et al. §7 (non-stationary setting)",
		Params:  gardnerDriftParams,
		New: func(p bandit.Params, _ uint64) (Problem, error) {
			return newGardner("gardner-drift", p, true)
		},
	})
}

// GardnerF and GardnerG are the functions of the classical setting (Guo et al. §7).
func GardnerF(x []float64) float64 { return -math.Sin(x[0]) - x[1] }

// GardnerG writes g(x) = sin x₁ sin x₂ + 0.95 into dst[0].
func GardnerG(x, dst []float64) { dst[0] = math.Sin(x[0])*math.Sin(x[1]) + 0.95 }

// GardnerOpt is the closed-form constrained optimum of the classical
// setting: on the boundary sin x₁ sin x₂ = −0.95, f = s − arcsin(0.95/s)
// with s = −sin x₁ ∈ [0.95, 1] is increasing in s, so x* = (3π/2, arcsin 0.95)
// and f* = 1 − arcsin 0.95.
var GardnerOpt = 1 - math.Asin(0.95)

// gardnerPieces are the three (f, g) pairs of the non-stationary setting of
// Guo et al. §7, their optima computed once by ConstrainedMax2D.
var gardnerPieces = sync.OnceValues(func() ([]Piece, error) {
	box, _ := domain.NewBox([]float64{0, 0}, []float64{6, 6})
	ps := []Piece{
		{F: GardnerF, G: GardnerG},
		{F: func(x []float64) float64 { return -math.Sin(x[0]-5) - x[1] },
			G: func(x, d []float64) { d[0] = math.Sin(x[0])*math.Sin(x[1]+5) + 0.5 }},
		{F: func(x []float64) float64 { return -math.Sin(x[0]+4) - x[1] },
			G: func(x, d []float64) { d[0] = math.Sin(x[0]+5)*math.Sin(x[1]) + 0.95 }},
	}
	for k := range ps {
		v, x, err := ConstrainedMax2D(box, 1, ps[k].F, ps[k].G, 601)
		if err != nil {
			return nil, fmt.Errorf("gardner piece %d: %w", k+1, err)
		}
		ps[k].Opt, ps[k].XOpt = v, x
	}
	return ps, nil
})

func newGardner(name string, p bandit.Params, drift bool) (Problem, error) {
	nf, err := gardnerNoiseF.Read(name, p)
	if err != nil {
		return nil, err
	}
	ng, err := gardnerNoiseG.Read(name, p)
	if err != nil {
		return nil, err
	}
	ls, err := gardnerLength.Read(name, p)
	if err != nil {
		return nil, err
	}
	k, err := gp.NewSE(ls, 1)
	if err != nil {
		return nil, fmt.Errorf("%s: parameter lengthscale: %w", name, err)
	}
	box, err := domain.NewBox([]float64{0, 0}, []float64{6, 6})
	if err != nil {
		return nil, err
	}
	pieces, err := gardnerPieces()
	if err != nil {
		return nil, err
	}
	sc, off, err := unitsParams(name, p)
	if err != nil {
		return nil, err
	}
	starts := []int{1}
	if drift {
		cp := gardnerChange.Read(name, p)
		for _, s := range strings.Split(cp, ",") {
			v, err := strconv.Atoi(strings.TrimSpace(s))
			if err != nil {
				return nil, fmt.Errorf("%s: parameter change_points = %q: %q is not an integer", name, cp, s)
			}
			starts = append(starts, v)
		}
		if len(starts) != 3 {
			return nil, fmt.Errorf("%s: parameter change_points = %q: want two rounds (three pieces)", name, cp)
		}
	} else {
		pieces = pieces[:1]
	}
	in := bandit.Info{
		Domain: box, M: 1, Kernel: k,
		// λ of the GP likelihood: the noise variance (the RPOL agents use
		// their own λ = 1 + 2/T, Guo et al. §2).
		NoiseVar: math.Max(nf*nf, 1e-6),
		// |f| ≤ 7 and |g| ≤ 1.95 on [0,6]² (the RKHS norms are unknown; these
		// sup-norm bounds are what CKB's truncation needs).
		B: 7, G: 1.95, R: nf, RG: ng,
		Slater: 0.05, // min g = −0.05 at (3π/2, π/2)
	}
	if sc != 1 || off != 0 {
		pieces = rescalePieces(pieces, sc, off)
		in.B = sc*in.B + math.Abs(off)
		in.G, in.R, in.RG, in.Slater = sc*in.G, sc*in.R, sc*in.RG, sc*in.Slater
		in.NoiseVar *= sc * sc
		nf, ng = sc*nf, sc*ng
	}
	pw, err := NewPiecewise(in, starts, pieces, nf, ng)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return pw, nil
}

// rescalePieces returns the pieces with the metrics in other units: reward
// a·f + b, cost metric a·g + b against the threshold b, so g' = a·g (a
// constraint's 0 level moves with its units).
func rescalePieces(ps []Piece, a, b float64) []Piece {
	out := make([]Piece, len(ps))
	for k, pc := range ps {
		f, g := pc.F, pc.G
		out[k] = Piece{
			F: func(x []float64) float64 { return a*f(x) + b },
			G: func(x, d []float64) {
				g(x, d)
				for j := range d {
					d[j] *= a
				}
			},
			Opt: a*pc.Opt + b, XOpt: pc.XOpt,
		}
	}
	return out
}

// unitsParams reads the scale and offset that put a problem's metrics in
// other units (metric·scale + offset): scale finite and > 0, offset finite.
func unitsParams(name string, p bandit.Params) (scale, offset float64, err error) {
	if scale, err = scaleDoc.Read(name, p); err != nil {
		return 0, 0, err
	}
	if offset, err = offsetDoc.Read(name, p); err != nil {
		return 0, 0, err
	}
	return scale, offset, nil
}
