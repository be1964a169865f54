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

// logH is log h(z), h(z) = φ(z) + zΦ(z) the expected improvement of a
// standard normal over −z, finite for every z (Ament et al. 2023 NeurIPS,
// "Unexpected improvements…", §4.1, eq. 9): directly for z > −1; below,
// h(z) = φ(z)(1 − xR(x)) with x = −z and R Mills' ratio, from erfc while it
// is representable and from the asymptotic series 1/x² − 3/x⁴ + 15/x⁶ −
// 105/x⁸ + 945/x¹⁰ beyond (relative error < 1e-10 at x ≥ 25).
func logH(z float64) float64 {
	if z > -1 {
		return math.Log(normPDF(z) + z*normCDF(z))
	}
	x := -z
	logPhi := -x*x/2 - 0.5*math.Log(2*math.Pi)
	var w float64
	if x < 25 {
		r := math.Erfc(x/math.Sqrt2) / (2 * normPDF(x))
		w = 1 - x*r
	} else {
		u := 1 / (x * x)
		w = u * (1 + u*(-3+u*(15+u*(-105+u*945))))
	}
	return logPhi + math.Log(w)
}

// logEI is log E[max(V − best, 0)] for V ~ N(mu, v) (log EI; Ament et al.
// 2023 §4.1), v floored at 1e-18 as probFeasible's: finite wherever EI
// underflows, so the scores still rank points far from the incumbent.
func logEI(mu, v, best float64) float64 {
	s := math.Sqrt(math.Max(v, 1e-18))
	return logH((mu-best)/s) + math.Log(s)
}

// logNormCDF is log Φ(u), finite for every u: from erfc while Φ(u) is
// representable, else log φ(u) − log(−u) + log(1 − 1/u² + 3/u⁴ − 15/u⁶)
// (the asymptotic series of Mills' ratio).
func logNormCDF(u float64) float64 {
	if u > -25 {
		return math.Log(0.5 * math.Erfc(-u/math.Sqrt2))
	}
	x := -u
	q := 1 / (x * x)
	return -x*x/2 - 0.5*math.Log(2*math.Pi) - math.Log(x) + math.Log(1+q*(-1+q*(3-15*q)))
}
