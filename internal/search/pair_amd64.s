//go:build amd64 && !purego

#include "textflag.h"

// func pairBlock(hay []byte, i, d int, orA, orB, wantA, wantB byte) (j int, mask uint32)
//
// Y1..Y4 hold orA, orB, wantA, wantB in all 32 lanes. Each step loads the
// 32 bytes at i and the 32 at i+d, ORs each with its mask, compares each
// with its wanted byte and ANDs the two compares: lane k is 0xff when both
// bytes of position i+k agree. A step runs only while i+d+32 <= len(hay),
// so no load reads past the slice.
TEXT ·pairBlock(SB), NOSPLIT, $0-60
	MOVQ hay_base+0(FP), SI
	MOVQ hay_len+8(FP), BX
	MOVQ i+24(FP), AX
	MOVQ d+32(FP), DX
	VPBROADCASTB orA+40(FP), Y1
	VPBROADCASTB orB+41(FP), Y2
	VPBROADCASTB wantA+42(FP), Y3
	VPBROADCASTB wantB+43(FP), Y4
	LEAQ (SI)(DX*1), DI // the second window's base: hay[d:]
	SUBQ DX, BX
	SUBQ $32, BX        // BX: the last i whose two windows fit

loop:
	CMPQ AX, BX
	JGT  none
	VMOVDQU   (SI)(AX*1), Y5
	VMOVDQU   (DI)(AX*1), Y6
	VPOR      Y1, Y5, Y5
	VPOR      Y2, Y6, Y6
	VPCMPEQB  Y3, Y5, Y5
	VPCMPEQB  Y4, Y6, Y6
	VPAND     Y5, Y6, Y5
	VPMOVMSKB Y5, CX
	TESTL     CX, CX
	JNZ       found
	ADDQ      $32, AX
	JMP       loop

found:
	MOVQ AX, j+48(FP)
	MOVL CX, mask+56(FP)
	VZEROUPPER
	RET

none:
	MOVQ AX, j+48(FP)
	MOVL $0, mask+56(FP)
	VZEROUPPER
	RET
