package problem

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sync"

	"github.com/cbandit/cbandit/bandit"
	"github.com/cbandit/cbandit/domain"
	"github.com/cbandit/cbandit/gp"
)

// data-rate: Shi & Eryilmaz 2022 App. E.2 (after the first experiment of Lee, Mazumdar and
// Shroff 2005): four servers, x ∈ [0,2]⁴,
//
//	U_i(x) = c_i (1/(1 + exp(−a_i(x − b_i))) + d_i)   i = 1, 3 (eq. 35, sigmoidal)
//	U_i(x) = c_i (log(a_i x + b_i) + d_i)             i = 2, 4 (eq. 36, logarithmic)
//	f(x) = Σ_i U_i(x_i),  g(x) = 0.2x₁ + 0.4x₂ + 0.8x₃ + 1.2x₄ − 2.
//
// OUR SURROGATE: Shi & Eryilmaz 2022 do not give the constants a_i..d_i (they cite Lee et
// al. 2005, whose values could not be found with the search tool).
// DataRateConst are our choices, keeping the stated shapes on [0,2]
// (sigmoids with their inflection inside the range, concave logs, every
// U_i(0) = 0 and increasing); the parameters slope and shift move them for
// the sensitivity run of `cbandit reproduce penalty`. Only the budget
// weights (0.2, 0.4, 0.8, 1.2), the bound B = 3 and the noise are Shi & Eryilmaz's.
var (
	rateNoiseU = bandit.FloatParam{Name: "noise_u", Default: 0.1, Range: bandit.AtLeast(0),
		Doc: "std of each server's utility measurement error; the reward noise is the sum over the 4 servers, std 2·noise_u", Source: "Shi & Eryilmaz 2022 App. E.2: N(0, 0.01)"}
	rateNoiseG = bandit.FloatParam{Name: "noise_g", Default: 0, Range: bandit.AtLeast(0),
		Doc: "half-width a of the uniform cost noise U[−a, a]: 0 = noiseless, 0.2 = App. E.2.2", Source: "Shi & Eryilmaz 2022 App. E.2.1"}
	rateSlope = bandit.FloatParam{Name: "slope", Default: 1, Range: bandit.Above(0),
		Doc: "OUR SURROGATE: multiplies every a_i of eq. (35)–(36); d_i of the sigmoids is reset so U_i(0) = 0. Default a = (6, 3, 4, 5)", Source: "Shi & Eryilmaz 2022 give no a_i: our choice"}
	rateShift = bandit.FloatParam{Name: "shift", Default: 0, Range: bandit.In(-1, 0.8),
		Doc: "OUR SURROGATE: added to the inflection points b₁ = 1, b₃ = 1.2 of the sigmoids (eq. 35), which stay in (0, 2)", Source: "Shi & Eryilmaz 2022 give no b_i: our choice"}
	rateLength = bandit.FloatParam{Name: "lengthscale", Default: 1, Range: bandit.Above(0),
		Doc: "lengthscale of the problem's SE prior kernel; the reproduction sets Matérn 5/2 on the agents", Source: "not given in Shi & Eryilmaz 2022: our choice"}
	dataRateParams = []bandit.Param{rateNoiseU, rateNoiseG, rateSlope, rateShift, rateLength}
)

// DataRateConst are (a_i, b_i, c_i, d_i) of eq. (35)–(36): OUR SURROGATE,
// not Shi & Eryilmaz's (see above); slope = 1, shift = 0.
var DataRateConst = [4][4]float64{
	{6, 1, 1, -1 / (1 + math.Exp(6))},       // U₁ sigmoidal, inflection at 1
	{3, 1, 0.5, 0},                          // U₂ = 0.5 log(3x + 1)
	{4, 1.2, 1.5, -1 / (1 + math.Exp(4.8))}, // U₃ sigmoidal, inflection at 1.2
	{5, 1, 0.6, 0},                          // U₄ = 0.6 log(5x + 1)
}

// DataRateWeights are the electricity prices of h(x) (Shi & Eryilmaz 2022 App. E.2); the
// budget is B = 3 with h(0) = 1, so g = w·x − 2.
var DataRateWeights = [4]float64{0.2, 0.4, 0.8, 1.2}

// DataRateConstFor returns the surrogate constants with every a_i multiplied
// by slope and the sigmoids' inflections b₁, b₃ moved by shift (d₁, d₃ reset
// so that U_i(0) = 0).
func DataRateConstFor(slope, shift float64) [4][4]float64 {
	c := DataRateConst
	for i := range c {
		c[i][0] *= slope
		if i%2 == 0 {
			c[i][1] += shift
			c[i][3] = -1 / (1 + math.Exp(c[i][0]*c[i][1]))
		}
	}
	return c
}

// DataRateU returns U_i(x) (i 0-based) with the default constants.
func DataRateU(i int, x float64) float64 { return dataRateU(&DataRateConst, i, x) }

func dataRateU(k *[4][4]float64, i int, x float64) float64 {
	a, b, c, d := k[i][0], k[i][1], k[i][2], k[i][3]
	if i%2 == 0 {
		return c * (1/(1+math.Exp(-a*(x-b))) + d)
	}
	return c * (math.Log(a*x+b) + d)
}

// DataRateF is f(x) = Σ_i U_i(x_i) with the default constants.
func DataRateF(x []float64) float64 { return dataRateF(&DataRateConst, x) }

func dataRateF(k *[4][4]float64, x []float64) float64 {
	s := 0.0
	for i := 0; i < 4; i++ {
		s += dataRateU(k, i, x[i])
	}
	return s
}

// DataRateG writes g(x) = 0.2x₁ + 0.4x₂ + 0.8x₃ + 1.2x₄ − 2 into dst[0].
func DataRateG(x, dst []float64) {
	s := -2.0
	for i, w := range DataRateWeights {
		s += w * x[i]
	}
	dst[0] = s
}

// dataRateOpt is the constrained optimum. Every U_i increases, so the budget
// is active at the optimum: x₄ = (2 − 0.2x₁ − 0.4x₂ − 0.8x₃)/1.2 (clipped to
// [0, 2]); a grid over (x₁, x₂, x₃) with step 0.01, then a grid with step
// 0.0005 around the best point.
func dataRateOptFor(cs *[4][4]float64) (float64, []float64) {
	best, bx := math.Inf(-1), []float64(nil)
	search := func(lo, hi [3]float64, step float64) {
		n := [3]int{}
		for k := range n {
			n[k] = int(math.Round((hi[k]-lo[k])/step)) + 1
		}
		u := [3][]float64{}
		for k := range u {
			u[k] = make([]float64, n[k])
			for i := range u[k] {
				u[k][i] = dataRateU(cs, k, lo[k]+float64(i)*step)
			}
		}
		for i := 0; i < n[0]; i++ {
			x1 := lo[0] + float64(i)*step
			for j := 0; j < n[1]; j++ {
				x2 := lo[1] + float64(j)*step
				for k := 0; k < n[2]; k++ {
					x3 := lo[2] + float64(k)*step
					x4 := (2 - 0.2*x1 - 0.4*x2 - 0.8*x3) / 1.2
					if x4 < 0 {
						break
					}
					x4 = math.Min(x4, 2)
					v := u[0][i] + u[1][j] + u[2][k] + dataRateU(cs, 3, x4)
					if v > best {
						best, bx = v, []float64{x1, x2, x3, x4}
					}
				}
			}
		}
	}
	search([3]float64{0, 0, 0}, [3]float64{2, 2, 2}, 0.01)
	var lo, hi [3]float64
	for k := range lo {
		lo[k] = math.Max(0, bx[k]-0.01)
		hi[k] = math.Min(2, bx[k]+0.01)
	}
	search(lo, hi, 0.0005)
	return best, bx
}

type dataRateKey struct{ slope, shift float64 }

type dataRateOptVal struct {
	v float64
	x []float64
}

var (
	dataRateOptMu    sync.Mutex
	dataRateOptCache = map[dataRateKey]dataRateOptVal{}
)

// DataRateOptFor returns max{f(x) : g(x) ≤ 0, x ∈ [0,2]⁴} and a maximiser
// for the constants DataRateConstFor(slope, shift) (computed once per pair).
func DataRateOptFor(slope, shift float64) (float64, []float64) {
	key := dataRateKey{slope, shift}
	dataRateOptMu.Lock()
	defer dataRateOptMu.Unlock()
	o, ok := dataRateOptCache[key]
	if !ok {
		k := DataRateConstFor(slope, shift)
		o.v, o.x = dataRateOptFor(&k)
		dataRateOptCache[key] = o
	}
	return o.v, append([]float64(nil), o.x...)
}

// DataRateOpt returns the optimum for the default constants.
func DataRateOpt() (float64, []float64) { return DataRateOptFor(1, 0) }

// DataRate is the data rate allocation problem of Shi & Eryilmaz 2022 App. E.2.
type DataRate struct {
	*Piecewise
	noiseU, noiseG float64
}

func newDataRate(p bandit.Params) (Problem, error) {
	const name = "data-rate"
	nu, err := rateNoiseU.Read(name, p)
	if err != nil {
		return nil, err
	}
	ng, err := rateNoiseG.Read(name, p)
	if err != nil {
		return nil, err
	}
	ls, err := rateLength.Read(name, p)
	if err != nil {
		return nil, err
	}
	slope, err := rateSlope.Read(name, p)
	if err != nil {
		return nil, err
	}
	shift, err := rateShift.Read(name, p)
	if err != nil {
		return nil, err
	}
	cs := DataRateConstFor(slope, shift)
	f := func(x []float64) float64 { return dataRateF(&cs, x) }
	k, err := gp.NewSE(ls, 1)
	if err != nil {
		return nil, fmt.Errorf("%s: parameter lengthscale: %w", name, err)
	}
	box, err := domain.NewBox([]float64{0, 0, 0, 0}, []float64{2, 2, 2, 2})
	if err != nil {
		return nil, err
	}
	nf := 2 * nu // std of the sum of four N(0, noise_u²) errors
	fmax := f([]float64{2, 2, 2, 2})
	opt, xopt := DataRateOptFor(slope, shift)
	in := bandit.Info{
		Domain: box, M: 1, Kernel: k,
		NoiseVar: math.Max(nf*nf, 1e-6),
		// sup-norm bounds on [0,2]⁴ (RKHS norms unknown): 0 ≤ f ≤ f(2,2,2,2),
		// −2 ≤ g ≤ 3.2.
		B: fmax, G: 3.2, R: nf, RG: ng,
		Slater: 2, // g(0) = −2
	}
	pw, err := NewPiecewise(in, []int{1}, []Piece{{F: f, G: DataRateG, Opt: opt, XOpt: xopt}}, nf, 0)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return &DataRate{Piecewise: pw, noiseU: nu, noiseG: ng}, nil
}

// Observe implements Problem: per-server Gaussian utility errors (summed)
// and uniform U[−a, a] cost noise (Shi & Eryilmaz 2022 App. E.2.2).
func (p *DataRate) Observe(rng *rand.Rand, r *bandit.Round, a bandit.Action, costs []float64) (float64, error) {
	f, err := p.Truth(r, a, costs)
	if err != nil {
		return 0, err
	}
	for i := 0; i < 4; i++ {
		f += p.noiseU * rng.NormFloat64()
	}
	if p.noiseG > 0 {
		costs[0] += p.noiseG * (2*rng.Float64() - 1)
	}
	return f, nil
}

func init() {
	Register(Spec{
		Name:    "data-rate",
		Summary: "data rate allocation: 4 servers, sigmoidal/log utilities, one linear budget on [0,2]⁴",
		Source:  "Shi & Eryilmaz 2022 §3, App. E.2 (eq. 35–36), after Lee, Mazumdar & Shroff 2005; the constants a_i..d_i are OUR SURROGATE (Shi & Eryilmaz 2022 do not give them; slope/shift move them)",
		Params:  dataRateParams,
		New:     func(p bandit.Params, _ uint64) (Problem, error) { return newDataRate(p) },
	})
}
