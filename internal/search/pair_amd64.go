//go:build amd64 && !purego

package search

import "golang.org/x/sys/cpu"

// pairAsm reports whether bytePair.index scans with pairBlock: whether the
// CPU (and the OS) support AVX2.
var pairAsm = cpu.X86.HasAVX2

// pairBlock is the AVX2 step of bytePair.index, 32 positions at a time. It
// tests the positions of hay from i in blocks of 32: position p is a
// candidate when hay[p]|orA == wantA and hay[p+d]|orB == wantB. For each
// block it loads the 32 bytes at p and the 32 at p+d (two unaligned loads),
// ORs each with its mask broadcast to every lane (VPOR), compares each with
// its wanted byte broadcast (VPCMPEQB), ANDs the two compares (VPAND) and
// gathers one bit per lane (VPMOVMSKB). It returns at the first block
// holding a candidate: j is the block's first position and bit k of mask
// says whether j+k is a candidate. When no block does, it returns mask 0
// and j, the first position it did not test: it tests a block only when
// j+d+32 <= len(hay), so it never reads past hay; the caller tests the
// rest (fewer than 32 positions).
//
// The caller confirms the candidates in Go and calls again from j+32:
// returning per block, not per candidate, keeps the asm free of any
// knowledge of the literal, and a call costs little next to the blocks
// without candidates it scans in between.
//
//go:noescape
func pairBlock(hay []byte, i, d int, orA, orB, wantA, wantB byte) (j int, mask uint32)
