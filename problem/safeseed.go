package problem

import "sort"

// SafeSeed returns the known safe action handed to the safe-BO baselines
// (StageOpt, SafeOpt, SGP-UCB need one): the feasible arm of median
// constraint value among the feasible arms. Taking the most feasible arm
// instead would, for g = −f + h (Zhou & Ji (CBO) App. F), hand them the optimum itself.
// It returns −1 when no arm is feasible.
func SafeSeed(g [][]float64, n int) int {
	var feas []int
	for i := 0; i < n; i++ {
		ok := true
		for _, gj := range g {
			if gj[i] > 0 {
				ok = false
				break
			}
		}
		if ok {
			feas = append(feas, i)
		}
	}
	if len(feas) == 0 {
		return -1
	}
	worst := func(i int) float64 {
		w := g[0][i]
		for _, gj := range g[1:] {
			w = max(w, gj[i])
		}
		return w
	}
	sort.SliceStable(feas, func(a, b int) bool { return worst(feas[a]) < worst(feas[b]) })
	return feas[len(feas)/2]
}
