// Benchmarks of grep and glob answered from a warm file table, on the tree
// named by $TOOLRPC_BENCH_TREE (e.g. the extracted Linux source).

package search

import (
	"context"
	"os"
	"testing"

	"github.com/toolrpc/toolrpc/internal/filetable"
	"github.com/toolrpc/toolrpc/internal/sourceset"
	"github.com/toolrpc/toolrpc/limits"
)

func BenchmarkGrepTableWarm(b *testing.B) {
	root := os.Getenv("TOOLRPC_BENCH_TREE")
	if root == "" {
		b.Skip()
	}
	set := filetable.NewSet([]string{root}, b.Logf)
	defer set.Close()
	m, err := Compile(benchPattern(), false, false)
	if err != nil {
		b.Fatal(err)
	}
	q := &Query{Mode: Count, Matcher: m, HeadLimit: 1000000, ChunkBytes: limits.SearchLineChunkBytes, List: set.Walk}
	if _, err := grepIn(q, root, root, func(s string) string { return s }, nil); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for range b.N {
		if _, err := grepIn(q, root, root, func(s string) string { return s }, nil); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkGlobTableWarm(b *testing.B) {
	root := os.Getenv("TOOLRPC_BENCH_TREE")
	if root == "" {
		b.Skip()
	}
	set := filetable.NewSet([]string{root}, b.Logf)
	defer set.Close()
	if _, err := Glob(context.Background(), set.Walk, "**/*.c", root, root, nil); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for range b.N {
		if _, err := Glob(context.Background(), set.Walk, "**/*.c", root, root, nil); err != nil {
			b.Fatal(err)
		}
	}
}

// benchPattern is $TOOLRPC_BENCH_PATTERN, else PM_RESUME.
func benchPattern() string {
	if p := os.Getenv("TOOLRPC_BENCH_PATTERN"); p != "" {
		return p
	}
	return "PM_RESUME"
}

// BenchmarkGrepTableNewest is the newest-first first page of a content
// search, answered from a warm table.
func BenchmarkGrepTableNewest(b *testing.B) {
	root := os.Getenv("TOOLRPC_BENCH_TREE")
	if root == "" {
		b.Skip()
	}
	set := filetable.NewSet([]string{root}, b.Logf)
	defer set.Close()
	m, err := Compile(benchPattern(), false, false)
	if err != nil {
		b.Fatal(err)
	}
	q := &Query{Mode: Content, Matcher: m, HeadLimit: limits.GrepDefaultHeadLimit, ChunkBytes: limits.SearchLineChunkBytes, List: set.Walk}
	display := func(s string) string { return s }
	sources := sourceset.New()
	if _, err := grepIn(q, root, root, display, sources); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for range b.N {
		if _, err := grepIn(q, root, root, display, sources); err != nil {
			b.Fatal(err)
		}
	}
}
