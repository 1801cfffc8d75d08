//go:build linux

// Benchmarks of an indexed grep and of the first grep of a new server on a
// known tree (its content index and file table left on disk by an earlier
// server), on the tree named by $TOOLRPC_BENCH_TREE, with the data dir
// $TOOLRPC_BENCH_DATA (kept between runs; else a temporary one).

package search

import (
	"context"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/toolrpc/toolrpc/internal/contentindex"
	"github.com/toolrpc/toolrpc/internal/filetable"
	"github.com/toolrpc/toolrpc/limits"
	"github.com/toolrpc/toolrpc/walk"
)

// knownTree is a tree whose index and file table lie in a data dir.
type knownTree struct{ root, data string }

// benchKnownTree returns the bench tree after building its index
// (unthrottled) and persisting its file table, unless both are there.
func benchKnownTree(b *testing.B) knownTree {
	root := os.Getenv("TOOLRPC_BENCH_TREE")
	if root == "" {
		b.Skip("TOOLRPC_BENCH_TREE is not set")
	}
	root, err := filepath.EvalSymlinks(root)
	if err != nil {
		b.Fatal(err)
	}
	k := knownTree{root: root, data: os.Getenv("TOOLRPC_BENCH_DATA")}
	if k.data == "" {
		k.data = b.TempDir()
	}
	idx := contentindex.NewSet(contentindex.Options{DataDir: k.data, CPUPercent: 100, Logf: b.Logf})
	files := k.newFiles(b)
	list, err := files.Walk(context.Background(), walk.Options{Start: root, Boundary: root})
	if err != nil {
		b.Fatal(err)
	}
	m := idx.Manager(root)
	for !m.Ready() {
		idx.Narrow(root, mustCompile(b, "PM_RESUME").Syntax(), 9, list)
		time.Sleep(100 * time.Millisecond)
	}
	idx.Close()
	files.Close()
	return k
}

func (k knownTree) newFiles(b *testing.B) *filetable.Set {
	return filetable.NewStoredSet([]string{k.root}, func(root string) string {
		return filepath.Join(contentindex.Dir(k.data, root), "filetable")
	}, b.Logf)
}

// query is a count grep of benchPattern narrowed by idx.
func (k knownTree) query(b *testing.B, files *filetable.Set, idx *contentindex.Set) *Query {
	m := mustCompile(b, benchPattern())
	return &Query{Mode: Count, Matcher: m, HeadLimit: 1 << 20, ChunkBytes: limits.SearchLineChunkBytes, List: files.Walk,
		Index: idx, Start: k.root, Boundary: k.root, Display: func(s string) string { return s }}
}

func (k knownTree) grep(b *testing.B, q *Query) {
	if _, err := Grep(context.Background(), q); err != nil {
		b.Fatal(err)
	}
}

func mustCompile(b *testing.B, p string) *Matcher {
	m, err := Compile(p, false, false)
	if err != nil {
		b.Fatal(err)
	}
	return m
}

// BenchmarkGrepKnownTree is the first grep of a new session on a known
// tree: a new file table loads and revalidates the persisted one, and the
// persisted index narrows the search.
func BenchmarkGrepKnownTree(b *testing.B) {
	k := benchKnownTree(b)
	b.ResetTimer()
	defer reportCPU(b, cpuTime())
	for range b.N {
		files := k.newFiles(b)
		idx := contentindex.NewSet(contentindex.Options{DataDir: k.data, Logf: b.Logf})
		done := idx.Busy(k.root)
		k.grep(b, k.query(b, files, idx))
		done()
		b.StopTimer()
		if st, _ := files.Stats(k.root); st.Loads != 1 {
			b.Fatalf("the table was not loaded: %+v", st)
		}
		idx.Close()
		files.Close()
		b.StartTimer()
	}
}

// BenchmarkGrepIndexed is a grep of a warm session: table and index ready.
func BenchmarkGrepIndexed(b *testing.B) {
	k := benchKnownTree(b)
	files := k.newFiles(b)
	defer files.Close()
	idx := contentindex.NewSet(contentindex.Options{DataDir: k.data, Logf: b.Logf})
	defer idx.Close()
	q := k.query(b, files, idx)
	k.grep(b, q)
	for !idx.Manager(k.root).Ready() {
		time.Sleep(10 * time.Millisecond)
		k.grep(b, q)
	}
	b.ResetTimer()
	defer reportCPU(b, cpuTime())
	for range b.N {
		k.grep(b, q)
	}
}

// cpuTime is the process's CPU time (user and system).
func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// reportCPU reports the CPU time per op since start (timed or not).
func reportCPU(b *testing.B, start time.Duration) {
	b.ReportMetric(float64((cpuTime()-start).Microseconds())/1000/float64(b.N), "cpu-ms/op")
}
