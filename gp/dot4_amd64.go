//go:build !noasm && !gccgo && !safe

package gp

// haveDot4 says dot4 is there: the same build as gonum's assembly
// DotUnitary, whose lanes it reproduces.
const haveDot4 = true

// dot4 is implemented in dot4_amd64.s.
//
//go:noescape
func dot4(r0, r1, r2, r3, b *float64, n int, out *[16]float64)
