package estimator

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"

	"github.com/cbandit/cbandit/model"
)

// ZDist names a distribution D̂ of the shared multiplier Z_t of RandGP-UCB.
type ZDist string

// Distributions for Z_t (Zhou & Ji (CBO) Def. 2, Cor. 3 and App. D.4).
const (
	// ZGaussian is Z_t ~ N(0, β_t²) (Zhou & Ji (CBO) Cor. 3; the default).
	ZGaussian ZDist = "gaussian"
	// ZUniform is Z_t uniform on the Points evenly spaced values of
	// [0, 2β_t] (Zhou & Ji (CBO) App. D.4); for a negative β (the optimistic side for
	// costs) the grid is [2β_t, 0].
	ZUniform ZDist = "uniform"
	// ZFixed is Z_t = β_t, which turns RandGP-UCB back into GP-UCB (a check).
	ZFixed ZDist = "fixed"
)

// ZDists lists the accepted distributions.
var ZDists = []ZDist{ZGaussian, ZUniform, ZFixed}

// ParseZDist validates a distribution name; the error lists the accepted ones.
func ParseZDist(s string) (ZDist, error) {
	for _, d := range ZDists {
		if string(d) == s {
			return d, nil
		}
	}
	names := make([]string, len(ZDists))
	for i, d := range ZDists {
		names[i] = string(d)
	}
	return "", fmt.Errorf("Z distribution %q: accepted are %s", s, strings.Join(names, ", "))
}

// RandUCB is RandGP-UCB exploration (Zhou & Ji (CBO) Def. 2): h_t = μ_{t−1} + Z_t σ_{t−1}
// with one Z_t drawn per call, shared by every candidate. An agent calls
// Estimate once per function per round, so f and each g_j get independent
// draws (Zhou & Ji (CBO) App. D.3 uses the independence of Z_t and Z̃_t).
type RandUCB struct {
	Dist ZDist
	// Points is the number of grid values of ZUniform (Zhou & Ji (CBO) App. D.4 "N
	// points"); ignored by the other distributions. Must be ≥ 2 for ZUniform.
	Points int
	// LastZ is the multiplier drawn by the last call (for tests and reports).
	LastZ float64
}

// Name implements Estimator.
func (e *RandUCB) Name() string { return "rand-" + string(e.Dist) }

// DrawZ draws Z_t for confidence scale β.
func (e *RandUCB) DrawZ(rng *rand.Rand, beta float64) (float64, error) {
	switch e.Dist {
	case ZGaussian, "":
		return math.Abs(beta) * rng.NormFloat64(), nil
	case ZUniform:
		if e.Points < 2 {
			return 0, fmt.Errorf("estimator rand-uniform: points = %d: must be at least 2", e.Points)
		}
		k := rng.IntN(e.Points)
		return 2 * beta * float64(k) / float64(e.Points-1), nil
	case ZFixed:
		return beta, nil
	}
	return 0, fmt.Errorf("estimator rand: unknown Z distribution %q", e.Dist)
}

// Estimate implements Estimator.
func (e *RandUCB) Estimate(rng *rand.Rand, m model.Model, beta float64, dst []float64) error {
	if math.IsNaN(beta) || math.IsInf(beta, 0) {
		return fmt.Errorf("estimator %s: beta = %v: must be finite", e.Name(), beta)
	}
	z, err := e.DrawZ(rng, beta)
	if err != nil {
		return err
	}
	e.LastZ = z
	return UCB{}.Estimate(rng, m, z, dst)
}
