package problem

import (
	"fmt"
	"math"
	"sync"

	"github.com/cbandit/cbandit/bandit"
	"github.com/cbandit/cbandit/domain"
	"github.com/cbandit/cbandit/gp"
)

// gramacy-toy: the constrained "toy" problem of Gramacy et al. (2016,
// Technometrics 58(1), "Modeling an augmented Lagrangian for blackbox
// constrained optimization", §4.1): minimise x₁ + x₂ on [0,1]² subject to
// c₁ = 3/2 − x₁ − 2x₂ − ½ sin(2π(x₁² − 2x₂)) ≤ 0 and c₂ = x₁² + x₂² − 3/2 ≤ 0;
// the feasible set is disconnected and the optimum x* ≈ (0.1954, 0.4044),
// x₁ + x₂ ≈ 0.5998, lies on the boundary of c₁. Here f = −(x₁ + x₂) is
// maximised (a constrained BO test problem with two constraints, in the
// practical-defaults suite).
var (
	gramacyNoiseF = bandit.FloatParam{Name: "noise_f", Default: 0.02, Range: bandit.AtLeast(0),
		Doc: "std of the Gaussian reward noise, 1 % of f's range 2", Source: "the paper's problem is noiseless: our choice"}
	gramacyNoiseG = bandit.FloatParam{Name: "noise_g", Default: 0.04, Range: bandit.AtLeast(0),
		Doc: "std of the Gaussian cost noise, 1 % of c₁'s range ≈ 4", Source: "our choice"}
	gramacyLength = bandit.FloatParam{Name: "lengthscale", Default: 0.2, Range: bandit.Above(0),
		Doc: "SE prior kernel lengthscale, 0.2 × the box side (the prior scale of the other box problems)", Source: "our choice"}
	gramacyParams = []bandit.Param{gramacyNoiseF, gramacyNoiseG, gramacyLength, scaleDoc, offsetDoc}
)

func init() {
	Register(Spec{
		Name:    "gramacy-toy",
		Summary: "maximise −(x₁+x₂) on [0,1]² s.t. a sinusoidal and a disc constraint (disconnected feasible set), Gaussian noise",
		Source:  "Gramacy et al. 2016 (Technometrics 58(1)) §4.1",
		Params:  gramacyParams,
		New: func(p bandit.Params, _ uint64) (Problem, error) {
			return newGramacy(p)
		},
	})
}

// GramacyF is the objective −(x₁ + x₂).
func GramacyF(x []float64) float64 { return -(x[0] + x[1]) }

// GramacyG writes c₁(x), c₂(x) into dst.
func GramacyG(x, dst []float64) {
	dst[0] = 1.5 - x[0] - 2*x[1] - 0.5*math.Sin(2*math.Pi*(x[0]*x[0]-2*x[1]))
	dst[1] = x[0]*x[0] + x[1]*x[1] - 1.5
}

// gramacyPiece is the problem's (f, g) with its optimum (ConstrainedMax2D)
// and Slater's δ = −min_x max_j g_j(x) on a 601² grid.
var gramacyPiece = sync.OnceValues(func() (gramacyFacts, error) {
	box, _ := domain.NewBox([]float64{0, 0}, []float64{1, 1})
	v, x, err := ConstrainedMax2D(box, 2, GramacyF, GramacyG, 601)
	if err != nil {
		return gramacyFacts{}, fmt.Errorf("gramacy-toy: %w", err)
	}
	gv := make([]float64, 2)
	minMax := math.Inf(1)
	for i := 0; i <= 600; i++ {
		for j := 0; j <= 600; j++ {
			GramacyG([]float64{float64(i) / 600, float64(j) / 600}, gv)
			minMax = math.Min(minMax, math.Max(gv[0], gv[1]))
		}
	}
	return gramacyFacts{piece: Piece{F: GramacyF, G: GramacyG, Opt: v, XOpt: x}, slater: -minMax}, nil
})

type gramacyFacts struct {
	piece  Piece
	slater float64
}

func newGramacy(p bandit.Params) (Problem, error) {
	const name = "gramacy-toy"
	nf, err := gramacyNoiseF.Read(name, p)
	if err != nil {
		return nil, err
	}
	ng, err := gramacyNoiseG.Read(name, p)
	if err != nil {
		return nil, err
	}
	ls, err := gramacyLength.Read(name, p)
	if err != nil {
		return nil, err
	}
	k, err := gp.NewSE(ls, 1)
	if err != nil {
		return nil, fmt.Errorf("%s: parameter lengthscale: %w", name, err)
	}
	sc, off, err := unitsParams(name, p)
	if err != nil {
		return nil, err
	}
	facts, err := gramacyPiece()
	if err != nil {
		return nil, err
	}
	box, err := domain.NewBox([]float64{0, 0}, []float64{1, 1})
	if err != nil {
		return nil, err
	}
	pieces := []Piece{facts.piece}
	in := bandit.Info{
		Domain: box, M: 2, Kernel: k,
		NoiseVar: math.Max(nf*nf, 1e-6),
		// |f| ≤ 2, |c₁| ≤ 2 (c₁ ∈ [−2, 2]), |c₂| ≤ 1.5 on [0,1]²: sup-norm
		// bounds (the RKHS norms are unknown), as gardner states.
		B: 2, G: 2, R: nf, RG: ng,
		Slater: facts.slater,
	}
	if sc != 1 || off != 0 {
		pieces = rescalePieces(pieces, sc, off)
		in.B = sc*in.B + math.Abs(off)
		in.G, in.R, in.RG, in.Slater = sc*in.G, sc*in.R, sc*in.RG, sc*in.Slater
		in.NoiseVar *= sc * sc
		nf, ng = sc*nf, sc*ng
	}
	pw, err := NewPiecewise(in, []int{1}, pieces, nf, ng)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return pw, nil
}
