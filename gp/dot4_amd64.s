//go:build !noasm && !gccgo && !safe

#include "textflag.h"

// func dot4(r0, r1, r2, r3, b *float64, n int, out *[16]float64)
//
// The four lane sums of r_k[:n]·b[:n] (n a multiple of 4) for each of four
// rows, in the lanes and order of gonum's DotUnitary: element i goes to
// lane i mod 4, each product rounded before its add (MULPD, then ADDPD).
// out[4k : 4k+4] are row k's lanes.
TEXT ·dot4(SB), NOSPLIT, $0-56
	MOVQ r0+0(FP), R8
	MOVQ r1+8(FP), R9
	MOVQ r2+16(FP), R10
	MOVQ r3+24(FP), R11
	MOVQ b+32(FP), R12
	MOVQ n+40(FP), CX
	MOVQ out+48(FP), DX

	XORPS X8, X8
	XORPS X9, X9
	XORPS X10, X10
	XORPS X11, X11
	XORPS X12, X12
	XORPS X13, X13
	XORPS X14, X14
	XORPS X15, X15

	XORQ SI, SI

loop:
	CMPQ SI, CX
	JGE  end

	MOVUPD 0(R12)(SI*8), X0
	MOVUPD 16(R12)(SI*8), X1

	MOVUPD 0(R8)(SI*8), X2
	MOVUPD 16(R8)(SI*8), X3
	MOVUPD 0(R9)(SI*8), X4
	MOVUPD 16(R9)(SI*8), X5
	MULPD  X0, X2
	MULPD  X1, X3
	MULPD  X0, X4
	MULPD  X1, X5
	ADDPD  X2, X8
	ADDPD  X3, X9
	ADDPD  X4, X10
	ADDPD  X5, X11

	MOVUPD 0(R10)(SI*8), X2
	MOVUPD 16(R10)(SI*8), X3
	MOVUPD 0(R11)(SI*8), X4
	MOVUPD 16(R11)(SI*8), X5
	MULPD  X0, X2
	MULPD  X1, X3
	MULPD  X0, X4
	MULPD  X1, X5
	ADDPD  X2, X12
	ADDPD  X3, X13
	ADDPD  X4, X14
	ADDPD  X5, X15

	ADDQ $4, SI
	JMP  loop

end:
	MOVUPD X8, 0(DX)
	MOVUPD X9, 16(DX)
	MOVUPD X10, 32(DX)
	MOVUPD X11, 48(DX)
	MOVUPD X12, 64(DX)
	MOVUPD X13, 80(DX)
	MOVUPD X14, 96(DX)
	MOVUPD X15, 112(DX)
	RET
