package problem

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/cbandit/cbandit/bandit"
	"github.com/cbandit/cbandit/domain"
)

// Piece is one stationary stretch of a continuous problem: reward f and
// costs g_1..g_m (written into dst), with its constrained optimum.
type Piece struct {
	F func(x []float64) float64
	G func(x []float64, dst []float64)
	// Opt is max{f(x) : g(x) ≤ 0, x in the box}; XOpt attains it.
	Opt  float64
	XOpt []float64
}

// Piecewise is a continuous problem whose (f, g) change at fixed rounds
// (Guo et al. §6–7: the non-stationary setting). Piece k is in force from round
// Starts[k] (Starts[0] = 1) until the round before Starts[k+1]; the runner's
// Round.T selects it. With one piece it is a stationary problem.
type Piecewise struct {
	In     bandit.Info
	Box    *domain.Box
	Starts []int
	Pieces []Piece
	// NoiseF and NoiseG are the std of the Gaussian observation noise.
	NoiseF, NoiseG float64
}

// NewPiecewise validates the schedule: one piece per start, Starts[0] = 1,
// change points strictly increasing (the error names change_points).
func NewPiecewise(in bandit.Info, starts []int, pieces []Piece, noiseF, noiseG float64) (*Piecewise, error) {
	box, ok := in.Domain.(*domain.Box)
	if !ok {
		return nil, fmt.Errorf("problem: piecewise problems need a box domain, got %v", in.Domain)
	}
	if len(pieces) == 0 || len(starts) != len(pieces) {
		return nil, fmt.Errorf("problem: change_points: %d start rounds for %d pieces", len(starts), len(pieces))
	}
	if starts[0] != 1 {
		return nil, fmt.Errorf("problem: change_points: the first piece must start at round 1, not %d", starts[0])
	}
	for k := 1; k < len(starts); k++ {
		if starts[k] <= starts[k-1] {
			return nil, fmt.Errorf("problem: change_points: round %d follows round %d: change points must be strictly increasing", starts[k], starts[k-1])
		}
	}
	for name, v := range map[string]float64{"noise_f": noiseF, "noise_g": noiseG} {
		if !(v >= 0) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("problem: parameter %s = %v: must be a finite number ≥ 0", name, v)
		}
	}
	return &Piecewise{In: in, Box: box, Starts: starts, Pieces: pieces, NoiseF: noiseF, NoiseG: noiseG}, nil
}

// PieceAt returns the piece in force in round t.
func (p *Piecewise) PieceAt(t int) *Piece {
	k := 0
	for k+1 < len(p.Starts) && p.Starts[k+1] <= t {
		k++
	}
	return &p.Pieces[k]
}

// Info implements Problem.
func (p *Piecewise) Info() bandit.Info { return p.In }

// Round implements Problem.
func (p *Piecewise) Round(_ *rand.Rand, t int) *bandit.Round { return &bandit.Round{T: t} }

// Truth implements Problem.
func (p *Piecewise) Truth(r *bandit.Round, a bandit.Action, costs []float64) (float64, error) {
	if err := p.Box.Contains(a.X); err != nil {
		return 0, fmt.Errorf("action: %w", err)
	}
	pc := p.PieceAt(r.T)
	pc.G(a.X, costs)
	return pc.F(a.X), nil
}

// Observe implements Problem: Gaussian noise with std NoiseF, NoiseG.
func (p *Piecewise) Observe(rng *rand.Rand, r *bandit.Round, a bandit.Action, costs []float64) (float64, error) {
	f, err := p.Truth(r, a, costs)
	if err != nil {
		return 0, err
	}
	for j := range costs {
		costs[j] += p.NoiseG * rng.NormFloat64()
	}
	return f + p.NoiseF*rng.NormFloat64(), nil
}

// Optimum implements Problem: f_t(x*_t) of the piece in force.
func (p *Piecewise) Optimum(r *bandit.Round) float64 { return p.PieceAt(r.T).Opt }

// ConstrainedMax2D computes max{f(x) : g_j(x) ≤ 0 ∀j} over a 2-D box by a
// fine grid (n × n) followed by successive zoomed grids around the best few
// feasible points (each zoom shrinks the spacing 20-fold, 6 times), so the
// optimum is located to about (width/n)·20⁻⁶. Only feasible points are ever
// kept, so the result is feasible. It fails when no grid point is feasible.
func ConstrainedMax2D(b *domain.Box, m int, f func([]float64) float64, g func([]float64, []float64), n int) (float64, []float64, error) {
	if b.Dim() != 2 {
		return 0, nil, fmt.Errorf("problem: ConstrainedMax2D needs a 2-D box, got dimension %d", b.Dim())
	}
	gv := make([]float64, m)
	feasible := func(x []float64) bool {
		g(x, gv)
		for _, v := range gv {
			if v > 0 {
				return false
			}
		}
		return true
	}
	type cand struct {
		x []float64
		v float64
	}
	const keep = 8
	var tops []cand
	push := func(x []float64, v float64) {
		for i := range tops {
			if tops[i].v < v {
				tops = append(tops[:i], append([]cand{{x, v}}, tops[i:]...)...)
				if len(tops) > keep {
					tops = tops[:keep]
				}
				return
			}
		}
		if len(tops) < keep {
			tops = append(tops, cand{x, v})
		}
	}
	hx := (b.Hi[0] - b.Lo[0]) / float64(n-1)
	hy := (b.Hi[1] - b.Lo[1]) / float64(n-1)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			x := []float64{b.Lo[0] + hx*float64(i), b.Lo[1] + hy*float64(j)}
			if feasible(x) {
				push(x, f(x))
			}
		}
	}
	if len(tops) == 0 {
		return 0, nil, fmt.Errorf("problem: no feasible point on a %d×%d grid", n, n)
	}
	bestV, bestX := tops[0].v, tops[0].x
	for _, c := range tops {
		x, v := c.x, c.v
		sx, sy := hx, hy
		for level := 0; level < 6; level++ {
			cx, cy := x[0], x[1]
			for i := -20; i <= 20; i++ {
				for j := -20; j <= 20; j++ {
					p := []float64{
						math.Min(math.Max(cx+sx*float64(i)/20, b.Lo[0]), b.Hi[0]),
						math.Min(math.Max(cy+sy*float64(j)/20, b.Lo[1]), b.Hi[1]),
					}
					if fv := f(p); fv > v && feasible(p) {
						x, v = p, fv
					}
				}
			}
			sx, sy = sx/20, sy/20
		}
		if v > bestV {
			bestV, bestX = v, x
		}
	}
	return bestV, bestX, nil
}
