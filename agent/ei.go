package agent

import "math"

// Expected improvement (Jones, Schonlau & Welch 1998), shared by ADMMBO's
// subproblems (minimisation, as its authors' bayesopt.m) and cei.

func normCDF(u float64) float64 { return 0.5 * math.Erfc(-u/math.Sqrt2) }
func normPDF(u float64) float64 { return math.Exp(-u*u/2) / math.Sqrt(2*math.Pi) }

// ei is E[max(best − V, 0)] for V ~ N(mu, s²).
func ei(best, mu, s float64) float64 {
	if s <= 1e-12 {
		return math.Max(best-mu, 0)
	}
	u := (best - mu) / s
	return (best-mu)*normCDF(u) + s*normPDF(u)
}

// expectedImprovement is E[max(V − best, 0)] for V ~ N(mu, v): ei mirrored
// for maximisation.
func expectedImprovement(mu, v, best float64) float64 {
	return ei(-best, -mu, math.Sqrt(math.Max(v, 0)))
}
