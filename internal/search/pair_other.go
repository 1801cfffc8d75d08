//go:build !amd64 || purego

package search

// pairAsm is false: there is no vector pair scan on this architecture (or
// in purego builds); bytePair.index scans eight positions per step in Go.
const pairAsm = false

// pairBlock is never called: pairAsm is false.
func pairBlock(hay []byte, i, d int, orA, orB, wantA, wantB byte) (j int, mask uint32) {
	panic("search: pairBlock without assembly")
}
