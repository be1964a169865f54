package domain

// GridPoints returns the regular grid over the box [lo, hi] with sides[i]
// evenly spaced values on axis i — lo_i + (hi_i − lo_i)·j/(sides_i − 1),
// j = 0, …, sides_i − 1, or the side's midpoint alone when sides_i = 1 —
// first coordinate slowest. It is the one grid of the project: the
// models' candidate grids, the service's candidate sets of 1- and 2-D
// boxes and Grid.
func GridPoints(lo, hi []float64, sides []int) [][]float64 {
	d := len(lo)
	axes := make([][]float64, d)
	total := 1
	for i := range axes {
		n := sides[i]
		if n == 1 {
			axes[i] = []float64{lo[i] + (hi[i]-lo[i])/2}
		} else {
			axes[i] = make([]float64, n)
			for j := range axes[i] {
				axes[i][j] = lo[i] + (hi[i]-lo[i])*float64(j)/float64(n-1)
			}
		}
		total *= len(axes[i])
	}
	pts := make([][]float64, total)
	idx := make([]int, d)
	for k := range pts {
		x := make([]float64, d)
		for i := range x {
			x[i] = axes[i][idx[i]]
		}
		pts[k] = x
		for i := d - 1; i >= 0; i-- {
			idx[i]++
			if idx[i] < len(axes[i]) {
				break
			}
			idx[i] = 0
		}
	}
	return pts
}

// HaltonPoints returns the first n points of Halton(n, d) scaled to the
// box [lo, hi], d = len(lo). With shift (one value in [0, 1) per
// coordinate) each unit coordinate u is first rotated to u + shift_i
// modulo 1 (a Cranley–Patterson rotation: a randomised design with the
// sequence's spacing, Cranley & Patterson 1976); nil: no shift. It is the
// one Halton set of a box in the project: the models' space-filling
// candidates, the service's candidate sets of 3+-D boxes and the agents'
// initial designs.
func HaltonPoints(lo, hi []float64, n int, shift []float64) [][]float64 {
	pts := Halton(n, len(lo))
	for _, x := range pts {
		for i := range x {
			u := x[i]
			if shift != nil {
				if u += shift[i]; u >= 1 {
					u--
				}
			}
			x[i] = lo[i] + (hi[i]-lo[i])*u
		}
	}
	return pts
}
