// The search over an action set star-convex around the safe action x₀
// (Pacchiano et al. Def. 13, Lemma 14), shared by LC-LUCB and Safe-LTS.

package agent

import (
	"math"

	"github.com/cbandit/cbandit/linear"
)

// alongRays returns the best point on the rays from x0 towards the points
// of pts. On the ray of p (u = p − x0, written into u) the step is the
// longest α ≤ 1 whose pessimistic costs (mdl.CostSeg, Pacchiano et al. eq.
// (10)) stay within every τ_j (Seg.MaxScale); with star false, α = 1 when
// p itself is within them, else the ray is out. The first ray whose
// val(u, α) beats bestVal wins, starting from best and bestAlpha (best −1:
// x0 itself). It writes x0 + α(p − x0) of the winner (x0 for −1) into dst
// and returns its index in pts.
func (c *stageCommon) alongRays(mdl *linear.Safe, pts [][]float64, x0, u, dst []float64, star bool,
	best int, bestAlpha, bestVal float64, val func(u []float64, alpha float64) float64) int {
	for i, p := range pts {
		for k := range u {
			u[k] = p[k] - x0[k]
		}
		alpha := 1.0
		for j := 0; j < c.m && alpha > 0; j++ {
			g := mdl.CostSeg(j, u)
			if star {
				s, ok := g.MaxScale(c.tau[j])
				if !ok {
					s = 0
				}
				alpha = math.Min(alpha, s)
			} else if g.At(1) > c.tau[j] {
				alpha = 0
			}
		}
		if !(alpha > 0) {
			continue
		}
		if v := val(u, alpha); v > bestVal {
			best, bestAlpha, bestVal = i, alpha, v
		}
	}
	copy(dst, x0)
	if best >= 0 {
		p := pts[best]
		for k := range dst {
			dst[k] = x0[k] + bestAlpha*(p[k]-x0[k])
		}
	}
	return best
}
