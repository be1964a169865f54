package report

import (
	"math"
	"slices"

	"gonum.org/v1/gonum/stat/distuv"
)

// MeanStderr returns the mean and the standard error of the mean (sample
// standard deviation / √n; 0 for n < 2; NaN for n = 0). Sums run in the
// order of xs, so equal inputs give bit-equal outputs.
func MeanStderr(xs []float64) (mean, stderr float64) {
	n := float64(len(xs))
	if n == 0 {
		return math.NaN(), math.NaN()
	}
	for _, x := range xs {
		mean += x
	}
	mean /= n
	if n < 2 {
		return mean, 0
	}
	var ss float64
	for _, x := range xs {
		ss += (x - mean) * (x - mean)
	}
	return mean, math.Sqrt(ss/(n-1)) / math.Sqrt(n)
}

// Quantile returns the p-quantile of xs by linear interpolation between
// order statistics at position (n−1)p — Hyndman and Fan's (1996) definition
// 7, the default of R's quantile and of numpy.quantile. NaN for empty xs.
func Quantile(xs []float64, p float64) float64 {
	if len(xs) == 0 || math.IsNaN(p) {
		return math.NaN()
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	h := float64(len(s)-1) * math.Min(math.Max(p, 0), 1)
	lo := int(math.Floor(h))
	if lo >= len(s)-1 {
		return s[len(s)-1]
	}
	return s[lo] + (h-float64(lo))*(s[lo+1]-s[lo])
}

// Describe summarises per-trial values: mean ± stderr, median and
// quartiles (definition 7, see [Quantile]), and the values themselves in
// trial order.
func Describe(perTrial []float64) Stat {
	m, se := MeanStderr(perTrial)
	return Stat{Mean: m, Stderr: se, Median: Quantile(perTrial, 0.5),
		Q1: Quantile(perTrial, 0.25), Q3: Quantile(perTrial, 0.75),
		PerTrial: slices.Clone(perTrial)}
}

// Paired is the comparison of two algorithms on the same trials (common
// random numbers make trial i the same instance and noise for both).
type Paired struct {
	// N is the number of paired trials.
	N int
	// Mean is the mean difference a − b; Lo and Hi bound its 95 % paired-t
	// confidence interval (NaN for N < 2).
	Mean, Lo, Hi float64
	// AWins, Ties, BWins count the trials where a is lower, equal, higher.
	AWins, Ties, BWins int
}

// PairedDiff compares per-trial values a and b (same length, same trial
// order) by the paired t interval: mean(d) ± t_{0.975, n−1}·sd(d)/√n with
// d_i = a_i − b_i (Student's t quantile from gonum's distuv). ok is false
// when the lengths differ or are zero.
func PairedDiff(a, b []float64) (p Paired, ok bool) {
	if len(a) != len(b) || len(a) == 0 {
		return Paired{}, false
	}
	d := make([]float64, len(a))
	for i := range a {
		d[i] = a[i] - b[i]
		switch {
		case a[i] < b[i]:
			p.AWins++
		case a[i] > b[i]:
			p.BWins++
		default:
			p.Ties++
		}
	}
	p.N = len(d)
	var se float64
	p.Mean, se = MeanStderr(d)
	if p.N < 2 {
		p.Lo, p.Hi = math.NaN(), math.NaN()
		return p, true
	}
	q := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(p.N - 1)}.Quantile(0.975)
	p.Lo, p.Hi = p.Mean-q*se, p.Mean+q*se
	return p, true
}
