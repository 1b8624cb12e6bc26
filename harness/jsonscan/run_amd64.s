//go:build amd64 && !purego

#include "textflag.h"

// func run(b []byte) (n int, esc, high bool)
//
// Sixteen bytes at a time (SSE2, the amd64 baseline). A byte is special
// when it is a quote, a backslash or at most 0x1f (a saturating subtract
// of 0x1f leaves zero exactly for those). Simple escapes are stepped over
// inside the block, so a string with an escape every few dozen bytes is
// still one call; anything else special ends the run for Go to judge.
//
// Registers: SI base, BX len, AX block offset, DX special mask of the
// block, R11 its sign bits, R8 sign bits of the bytes taken, R10 esc,
// DI the simpleEscape table.
TEXT ·run(SB), NOSPLIT, $0-34
	MOVQ b_base+0(FP), SI
	MOVQ b_len+8(FP), BX
	XORQ AX, AX
	XORL R8, R8
	XORL R10, R10
	LEAQ ·simpleEscape(SB), DI
	MOVQ $0x2222222222222222, DX
	MOVQ DX, X1
	PUNPCKLQDQ X1, X1        // '"' x16
	MOVQ $0x5c5c5c5c5c5c5c5c, DX
	MOVQ DX, X2
	PUNPCKLQDQ X2, X2        // '\\' x16
	MOVQ $0x1f1f1f1f1f1f1f1f, DX
	MOVQ DX, X3
	PUNPCKLQDQ X3, X3        // 0x1f x16
	PXOR X4, X4              // zero

block:
	MOVQ BX, CX
	SUBQ AX, CX
	CMPQ CX, $16
	JLT tail
	MOVOU (SI)(AX*1), X0
	MOVO X0, X5
	PCMPEQB X1, X5
	MOVO X0, X6
	PCMPEQB X2, X6
	POR X6, X5
	MOVO X0, X6
	PSUBUSB X3, X6
	PCMPEQB X4, X6
	POR X6, X5
	PMOVMSKB X5, DX
	PMOVMSKB X0, R11
	TESTL DX, DX
	JNZ special
	ORL R11, R8
	ADDQ $16, AX
	JMP block

special:
	BSFL DX, CX              // position of the special byte in the block
	LEAQ (AX)(CX*1), R9
	MOVBLZX (SI)(R9*1), R12
	CMPL R12, $0x5c
	JNE stop                 // a quote or a control character
	LEAQ 1(R9), R13
	CMPQ R13, BX
	JGE stop
	MOVBLZX (SI)(R13*1), R12
	MOVBLZX (DI)(R12*1), R12 // simpleEscape[c]: one predictable branch
	TESTL R12, R12
	JNZ simple
	JMP stop                 // \u or an invalid escape

simple:
	MOVL $1, R10
	ADDL $2, CX              // first position after the escape
	CMPL CX, $16
	JGE past
	MOVL $-1, R12
	SHLL CX, R12
	ANDL R12, DX             // specials after the escape
	JNZ special
	ORL R11, R8              // the rest of the block is plain
	ADDQ $16, AX
	JMP block

past:
	ORL R11, R8
	ADDQ CX, AX
	JMP block

stop:
	MOVL $1, R12
	SHLL CX, R12
	DECL R12
	ANDL R11, R12            // sign bits of the bytes before the stop
	ORL R12, R8
	MOVQ R9, AX
	JMP done

tail:
	CMPQ AX, BX
	JGE done
	MOVBLZX (SI)(AX*1), CX
	CMPL CX, $0x5c
	JEQ tailesc
	CMPL CX, $0x22
	JEQ done
	CMPL CX, $0x20
	JLT done
	ANDL $0x80, CX
	ORL CX, R8
	INCQ AX
	JMP tail

tailesc:
	LEAQ 1(AX), R13
	CMPQ R13, BX
	JGE done
	MOVBLZX (SI)(R13*1), CX
	MOVBLZX (DI)(CX*1), CX
	TESTL CX, CX
	JNZ tailsimple
	JMP done

tailsimple:
	MOVL $1, R10
	ADDQ $2, AX
	JMP tail

done:
	MOVQ AX, n+24(FP)
	TESTL R10, R10
	SETNE esc+32(FP)
	TESTL R8, R8
	SETNE high+33(FP)
	RET

// func unescapeRun(dst, src []byte) (w, r int, high bool)
//
// Copies src to dst sixteen bytes at a time, translating the simple escapes
// on the way, until a \u escape (returned at src[r], for Go to decode) or
// the end of src. src is a validated string's contents; len(dst) must be
// at least len(src), so a whole block may be stored before it is known how
// much of it is plain (w never passes r). high ORs the sign bits of the
// bytes read.
//
// Registers: SI src, BX len(src), DI dst, AX r, CX w, R8 the unescapeByte
// table, R11 sign bits, X1 backslashes.
TEXT ·unescapeRun(SB), NOSPLIT, $0-65
	MOVQ dst_base+0(FP), DI
	MOVQ src_base+24(FP), SI
	MOVQ src_len+32(FP), BX
	XORQ AX, AX
	XORQ CX, CX
	XORL R11, R11
	LEAQ ·unescapeByte(SB), R8
	MOVQ $0x5c5c5c5c5c5c5c5c, DX
	MOVQ DX, X1
	PUNPCKLQDQ X1, X1        // '\\' x16

ublock:
	MOVQ BX, DX
	SUBQ AX, DX
	CMPQ DX, $16
	JLT utail
	MOVOU (SI)(AX*1), X0
	MOVOU X0, (DI)(CX*1)     // stored whole; only the plain part counts
	PMOVMSKB X0, R12         // sign bits of the block
	PCMPEQB X1, X0
	PMOVMSKB X0, DX
	TESTL DX, DX
	JNZ uesc
	ORL R12, R11
	ADDQ $16, AX
	ADDQ $16, CX
	JMP ublock

uesc:
	BSFL DX, DX
	MOVL $1, R13
	XCHGQ DX, CX             // the shift count must be in CL
	SHLL CX, R13
	XCHGQ DX, CX
	DECL R13
	ANDL R13, R12            // sign bits of the bytes before the backslash
	ORL R12, R11
	ADDQ DX, AX
	ADDQ DX, CX
	LEAQ 1(AX), R9
	CMPQ R9, BX
	JGE udone                // a lone backslash at the end: not a valid string
	MOVBLZX (SI)(R9*1), R10
	MOVBLZX (R8)(R10*1), R10
	TESTL R10, R10
	JZ udone                 // \u: Go decodes it
	MOVB R10, (DI)(CX*1)
	INCQ CX
	ADDQ $2, AX
	JMP ublock

utail:
	CMPQ AX, BX
	JGE udone
	MOVBLZX (SI)(AX*1), R10
	CMPL R10, $0x5c
	JEQ utailesc
	MOVL R10, R12
	ANDL $0x80, R12          // a tail byte's sign bit
	ORL R12, R11
	MOVB R10, (DI)(CX*1)
	INCQ AX
	INCQ CX
	JMP utail

utailesc:
	LEAQ 1(AX), R9
	CMPQ R9, BX
	JGE udone
	MOVBLZX (SI)(R9*1), R10
	MOVBLZX (R8)(R10*1), R10
	TESTL R10, R10
	JZ udone
	MOVB R10, (DI)(CX*1)
	INCQ CX
	ADDQ $2, AX
	JMP utail

udone:
	MOVQ CX, w+48(FP)
	MOVQ AX, r+56(FP)
	TESTL R11, R11
	SETNE high+64(FP)
	RET
