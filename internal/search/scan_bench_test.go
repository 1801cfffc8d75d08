// Benchmarks of grep answered by walking the tree (no file table, no
// index): the first call on a tree, on $TOOLRPC_BENCH_TREE.

package search

import (
	"os"
	"testing"

	"github.com/toolrpc/toolrpc/limits"
)

// BenchmarkGrepWalk is a count grep of $TOOLRPC_BENCH_PATTERN (folding case
// when $TOOLRPC_BENCH_FOLD is set) that walks the whole tree.
func BenchmarkGrepWalk(b *testing.B) {
	root := os.Getenv("TOOLRPC_BENCH_TREE")
	if root == "" {
		b.Skip()
	}
	m, err := Compile(benchPattern(), os.Getenv("TOOLRPC_BENCH_FOLD") != "", false)
	if err != nil {
		b.Fatal(err)
	}
	mode := Count
	if os.Getenv("TOOLRPC_BENCH_FILES") != "" {
		mode = FilesWithMatches
	}
	q := &Query{Mode: mode, Matcher: m, HeadLimit: 1000000, ChunkBytes: limits.SearchLineChunkBytes}
	for range b.N {
		if _, err := grepIn(q, root, root, func(s string) string { return s }, nil); err != nil {
			b.Fatal(err)
		}
	}
}
