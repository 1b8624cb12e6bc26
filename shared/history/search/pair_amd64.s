//go:build amd64 && !purego

#include "textflag.h"

// The kernels of indexPair (pair.go): for each position i of s in whole
// blocks, t1 = (s[i]|m1) == c1 and t2 = ((s[i+d]|m2) - c2) <= r2
// unsigned, the latter as min(x, r2) == x. They return the first i where
// both hold, or -(first position not tested)-1. The caller guarantees
// len(s)-d >= one block, so every load is inside s.

// func indexPairAVX2(s []byte, d int, c1, m1, c2, m2, r2 byte) int
TEXT ·indexPairAVX2(SB), NOSPLIT, $0-48
	MOVQ s_base+0(FP), AX
	MOVQ s_len+8(FP), CX
	MOVQ d+24(FP), DX
	VPBROADCASTB c1+32(FP), Y1
	VPBROADCASTB m1+33(FP), Y2
	VPBROADCASTB c2+34(FP), Y3
	VPBROADCASTB m2+35(FP), Y4
	VPBROADCASTB r2+36(FP), Y5
	LEAQ (AX)(DX*1), BX // BX+i is s[i+d]
	SUBQ DX, CX         // CX = positions to test
	XORQ SI, SI
	// Two blocks per step while they fit: one branch per 64 positions.
	MOVQ CX, R10
	SUBQ $64, R10
avx2loop64:
	CMPQ SI, R10
	JGT avx2loop32
	VPOR (AX)(SI*1), Y2, Y6
	VPCMPEQB Y1, Y6, Y6
	VPOR (BX)(SI*1), Y4, Y7
	VPSUBB Y3, Y7, Y7
	VPMINUB Y5, Y7, Y8
	VPCMPEQB Y7, Y8, Y8
	VPAND Y8, Y6, Y6
	VPOR 32(AX)(SI*1), Y2, Y9
	VPCMPEQB Y1, Y9, Y9
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
	MOVQ R9, ret+40(FP)
	RET
avx2none:
	VZEROUPPER
	NOTQ SI // -SI-1
	MOVQ SI, ret+40(FP)
	RET

// func indexPairSSE2(s []byte, d int, c1, m1, c2, m2, r2 byte) int
TEXT ·indexPairSSE2(SB), NOSPLIT, $0-48
	MOVQ s_base+0(FP), AX
	MOVQ s_len+8(FP), CX
	MOVQ d+24(FP), DX
	MOVQ $0x0101010101010101, R11
	MOVBQZX c1+32(FP), R8
	IMULQ R11, R8
	MOVQ R8, X1
	PUNPCKLQDQ X1, X1
	MOVBQZX m1+33(FP), R8
	IMULQ R11, R8
	MOVQ R8, X2
	PUNPCKLQDQ X2, X2
	MOVBQZX c2+34(FP), R8
	IMULQ R11, R8
	MOVQ R8, X3
	PUNPCKLQDQ X3, X3
	MOVBQZX m2+35(FP), R8
	IMULQ R11, R8
	MOVQ R8, X4
	PUNPCKLQDQ X4, X4
	MOVBQZX r2+36(FP), R8
	IMULQ R11, R8
	MOVQ R8, X5
	PUNPCKLQDQ X5, X5
	LEAQ (AX)(DX*1), BX
	SUBQ DX, CX
	SUBQ $32, CX
	XORQ SI, SI
sse2loop:
	CMPQ SI, CX
	JGT sse2none
	MOVOU (AX)(SI*1), X6
	POR X2, X6
	PCMPEQB X1, X6
	MOVOU (BX)(SI*1), X7
	POR X4, X7
	PSUBB X3, X7
	MOVO X7, X8
	PMINUB X5, X8
	PCMPEQB X7, X8
	PAND X8, X6
	PMOVMSKB X6, R9
	MOVOU 16(AX)(SI*1), X9
	POR X2, X9
	PCMPEQB X1, X9
	MOVOU 16(BX)(SI*1), X10
	POR X4, X10
	PSUBB X3, X10
	MOVO X10, X11
	PMINUB X5, X11
	PCMPEQB X10, X11
	PAND X11, X9
	PMOVMSKB X9, R10
	SHLL $16, R10
	ORL R10, R9
	TESTL R9, R9
	JNZ sse2found
	ADDQ $32, SI
	JMP sse2loop
sse2found:
	BSFL R9, R9
	ADDQ SI, R9
	MOVQ R9, ret+40(FP)
	RET
sse2none:
	NOTQ SI
	MOVQ SI, ret+40(FP)
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
