package gp

import (
	"fmt"
	"strconv"
	"strings"
)

// KernelNames are the kernels a study definition or an algorithm's
// parameter may name (NewNamed): squared exponential and Matérn ½, 3⁄2, 5⁄2.
var KernelNames = []string{"se", "matern12", "matern32", "matern52"}

// NewNamed returns the stationary kernel called name (one of KernelNames)
// with the given lengthscale and variance: the one switch from names to
// kernels, read by the service's prior.kernel and igp-ucb's kernel.
func NewNamed(name string, lengthscale, variance float64) (Kernel, error) {
	switch name {
	case "se":
		return NewSE(lengthscale, variance)
	case "matern12":
		return NewMatern(0.5, lengthscale, variance)
	case "matern32":
		return NewMatern(1.5, lengthscale, variance)
	case "matern52":
		return NewMatern(2.5, lengthscale, variance)
	}
	q := make([]string, len(KernelNames))
	for i, n := range KernelNames {
		q[i] = strconv.Quote(n)
	}
	return nil, fmt.Errorf("kernel %q: accepted are %s", name, strings.Join(q, ", "))
}
