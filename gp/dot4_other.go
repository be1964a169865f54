//go:build !amd64 || noasm || gccgo || safe

package gp

// haveDot4 is false where gonum's DotUnitary is its plain loop: forward
// then takes one row at a time.
const haveDot4 = false

func dot4(r0, r1, r2, r3, b *float64, n int, out *[16]float64) {
	panic("gp: dot4 without its assembly")
}
