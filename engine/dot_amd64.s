#include "textflag.h"

// func dot4x16(q, d *float32, dim int, out *[4]float32)
//
// The dot products of q with the four consecutive rows of d (each dim
// floats, dim a multiple of 16), summed exactly as Dot sums: 16 lanes (two
// 8-lane accumulators per row), each product rounded before it is added
// (VMULPS then VADDPS, never a fused multiply-add), then lanes j and j+8,
// j and j+4, j and j+2, and the last two.
TEXT ·dot4x16(SB), NOSPLIT, $0-32
	MOVQ q+0(FP), SI
	MOVQ d+8(FP), DI
	MOVQ dim+16(FP), CX
	MOVQ out+24(FP), DX
	SHLQ $2, CX
	LEAQ (DI)(CX*1), R8
	LEAQ (R8)(CX*1), R9
	LEAQ (R9)(CX*1), R10
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	VXORPS Y4, Y4, Y4
	VXORPS Y5, Y5, Y5
	VXORPS Y6, Y6, Y6
	VXORPS Y7, Y7, Y7
	XORQ AX, AX

loop:
	VMOVUPS (SI)(AX*1), Y8
	VMOVUPS 32(SI)(AX*1), Y9
	VMULPS (DI)(AX*1), Y8, Y10
	VMULPS 32(DI)(AX*1), Y9, Y11
	VMULPS (R8)(AX*1), Y8, Y12
	VMULPS 32(R8)(AX*1), Y9, Y13
	VADDPS Y10, Y0, Y0
	VADDPS Y11, Y1, Y1
	VADDPS Y12, Y2, Y2
	VADDPS Y13, Y3, Y3
	VMULPS (R9)(AX*1), Y8, Y10
	VMULPS 32(R9)(AX*1), Y9, Y11
	VMULPS (R10)(AX*1), Y8, Y12
	VMULPS 32(R10)(AX*1), Y9, Y13
	VADDPS Y10, Y4, Y4
	VADDPS Y11, Y5, Y5
	VADDPS Y12, Y6, Y6
	VADDPS Y13, Y7, Y7
	ADDQ $64, AX
	CMPQ AX, CX
	JLT  loop

	VADDPS Y1, Y0, Y0
	VEXTRACTF128 $1, Y0, X1
	VADDPS X1, X0, X0
	VMOVHLPS X0, X0, X1
	VADDPS X1, X0, X0
	VMOVSHDUP X0, X1
	VADDSS X1, X0, X0
	VMOVSS X0, (DX)

	VADDPS Y3, Y2, Y2
	VEXTRACTF128 $1, Y2, X3
	VADDPS X3, X2, X2
	VMOVHLPS X2, X2, X3
	VADDPS X3, X2, X2
	VMOVSHDUP X2, X3
	VADDSS X3, X2, X2
	VMOVSS X2, 4(DX)

	VADDPS Y5, Y4, Y4
	VEXTRACTF128 $1, Y4, X5
	VADDPS X5, X4, X4
	VMOVHLPS X4, X4, X5
	VADDPS X5, X4, X4
	VMOVSHDUP X4, X5
	VADDSS X5, X4, X4
	VMOVSS X4, 8(DX)

	VADDPS Y7, Y6, Y6
	VEXTRACTF128 $1, Y6, X7
	VADDPS X7, X6, X6
	VMOVHLPS X6, X6, X7
	VADDPS X7, X6, X6
	VMOVSHDUP X6, X7
	VADDSS X7, X6, X6
	VMOVSS X6, 12(DX)

	VZEROUPPER
	RET
