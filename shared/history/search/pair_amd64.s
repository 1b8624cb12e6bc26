//go:build amd64 && !purego

#include "textflag.h"

// The kernels of indexPair (pair.go): for each position i of s in whole
// blocks, t1 = (s[i]|m1) == c1, t2 = ((s[i+d]|m2) - c2) <= r2 unsigned
// (as min(x, r2) == x) and t3 = (s[i+d3]|m3) == c3. They return the
// first i where all three hold, or -(first position not tested)-1. The
// caller guarantees len(s)-d >= one block and d3 <= d, so every load is
// inside s.

// func indexPairAVX2(s []byte, d, d3 int, c1, m1, c2, m2, r2, c3, m3 byte) int
TEXT ·indexPairAVX2(SB), NOSPLIT, $0-56
	MOVQ s_base+0(FP), AX
	MOVQ s_len+8(FP), CX
	MOVQ d+24(FP), DX
	MOVQ d3+32(FP), R11
	VPBROADCASTB c1+40(FP), Y1
	VPBROADCASTB m1+41(FP), Y2
	VPBROADCASTB c2+42(FP), Y3
	VPBROADCASTB m2+43(FP), Y4
	VPBROADCASTB r2+44(FP), Y5
	VPBROADCASTB c3+45(FP), Y13
	VPBROADCASTB m3+46(FP), Y14
	LEAQ (AX)(DX*1), BX  // BX+i is s[i+d]
	LEAQ (AX)(R11*1), DI // DI+i is s[i+d3]
	SUBQ DX, CX          // CX = positions to test
	XORQ SI, SI
	// Two blocks per step while they fit: one branch per 64 positions.
	MOVQ CX, R10
	SUBQ $64, R10
avx2loop64:
	CMPQ SI, R10
	JGT avx2loop32
	VPOR (AX)(SI*1), Y2, Y6
	VPCMPEQB Y1, Y6, Y6
	VPOR (DI)(SI*1), Y14, Y15
	VPCMPEQB Y13, Y15, Y15
	VPAND Y15, Y6, Y6
	VPOR (BX)(SI*1), Y4, Y7
	VPSUBB Y3, Y7, Y7
	VPMINUB Y5, Y7, Y8
	VPCMPEQB Y7, Y8, Y8
	VPAND Y8, Y6, Y6
	VPOR 32(AX)(SI*1), Y2, Y9
	VPCMPEQB Y1, Y9, Y9
	VPOR 32(DI)(SI*1), Y14, Y15
	VPCMPEQB Y13, Y15, Y15
	VPAND Y15, Y9, Y9
	VPOR 32(BX)(SI*1), Y4, Y10
	VPSUBB Y3, Y10, Y10
	VPMINUB Y5, Y10, Y11
	VPCMPEQB Y10, Y11, Y11
	VPAND Y11, Y9, Y9
	VPOR Y6, Y9, Y12
	VPTEST Y12, Y12
	JNZ avx2found64
	ADDQ $64, SI
	JMP avx2loop64
avx2found64:
	VPMOVMSKB Y6, R9
	TESTL R9, R9
	JNZ avx2found
	ADDQ $32, SI
	VPMOVMSKB Y9, R9
	JMP avx2found
avx2loop32:
	MOVQ CX, R10
	SUBQ $32, R10
	CMPQ SI, R10
	JGT avx2none
	VPOR (AX)(SI*1), Y2, Y6
	VPCMPEQB Y1, Y6, Y6
	VPOR (DI)(SI*1), Y14, Y15
	VPCMPEQB Y13, Y15, Y15
	VPAND Y15, Y6, Y6
	VPOR (BX)(SI*1), Y4, Y7
	VPSUBB Y3, Y7, Y7
	VPMINUB Y5, Y7, Y8
	VPCMPEQB Y7, Y8, Y8
	VPAND Y8, Y6, Y6
	VPMOVMSKB Y6, R9
	TESTL R9, R9
	JNZ avx2found
	ADDQ $32, SI
	JMP avx2none
avx2found:
	VZEROUPPER
	BSFL R9, R9
	ADDQ SI, R9
	MOVQ R9, ret+48(FP)
	RET
avx2none:
	VZEROUPPER
	NOTQ SI // -SI-1
	MOVQ SI, ret+48(FP)
	RET

// func indexPairSSE2(s []byte, d, d3 int, c1, m1, c2, m2, r2, c3, m3 byte) int
TEXT ·indexPairSSE2(SB), NOSPLIT, $0-56
	MOVQ s_base+0(FP), AX
	MOVQ s_len+8(FP), CX
	MOVQ d+24(FP), DX
	MOVQ d3+32(FP), DI
	MOVQ $0x0101010101010101, R11
	MOVBQZX c1+40(FP), R8
	IMULQ R11, R8
	MOVQ R8, X1
	PUNPCKLQDQ X1, X1
	MOVBQZX m1+41(FP), R8
	IMULQ R11, R8
	MOVQ R8, X2
	PUNPCKLQDQ X2, X2
	MOVBQZX c2+42(FP), R8
	IMULQ R11, R8
	MOVQ R8, X3
	PUNPCKLQDQ X3, X3
	MOVBQZX m2+43(FP), R8
	IMULQ R11, R8
	MOVQ R8, X4
	PUNPCKLQDQ X4, X4
	MOVBQZX r2+44(FP), R8
	IMULQ R11, R8
	MOVQ R8, X5
	PUNPCKLQDQ X5, X5
	MOVBQZX c3+45(FP), R8
	IMULQ R11, R8
	MOVQ R8, X13
	PUNPCKLQDQ X13, X13
	MOVBQZX m3+46(FP), R8
	IMULQ R11, R8
	MOVQ R8, X14
	PUNPCKLQDQ X14, X14
	LEAQ (AX)(DX*1), BX
	ADDQ AX, DI
	SUBQ DX, CX
	SUBQ $16, CX
	XORQ SI, SI
sse2loop:
	CMPQ SI, CX
	JGT sse2none
	MOVOU (AX)(SI*1), X6
	POR X2, X6
	PCMPEQB X1, X6
	MOVOU (DI)(SI*1), X9
	POR X14, X9
	PCMPEQB X13, X9
	PAND X9, X6
	MOVOU (BX)(SI*1), X7
	POR X4, X7
	PSUBB X3, X7
	MOVO X7, X8
	PMINUB X5, X8
	PCMPEQB X7, X8
	PAND X8, X6
	PMOVMSKB X6, R9
	TESTL R9, R9
	JNZ sse2found
	ADDQ $16, SI
	JMP sse2loop
sse2found:
	BSFL R9, R9
	ADDQ SI, R9
	MOVQ R9, ret+48(FP)
	RET
sse2none:
	NOTQ SI
	MOVQ SI, ret+48(FP)
	RET

// func cpuid(eaxArg, ecxArg uint32) (eax, ebx, ecx, edx uint32)
TEXT ·cpuid(SB), NOSPLIT, $0-24
	MOVL eaxArg+0(FP), AX
	MOVL ecxArg+4(FP), CX
	CPUID
	MOVL AX, eax+8(FP)
	MOVL BX, ebx+12(FP)
	MOVL CX, ecx+16(FP)
	MOVL DX, edx+20(FP)
	RET

// func xgetbv() (eax, edx uint32)
TEXT ·xgetbv(SB), NOSPLIT, $0-8
	MOVL $0, CX
	XGETBV
	MOVL AX, eax+0(FP)
	MOVL DX, edx+4(FP)
	RET
