//go:build linux

package contentindex

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/toolrpc/toolrpc/walk"
)

// benchTree is the tree the benchmarks index: $CONTENTINDEX_BENCH_TREE,
// else the Go tree.
func benchTree(b testing.TB) (string, []walk.File) {
	root := os.Getenv("CONTENTINDEX_BENCH_TREE")
	if root == "" {
		root = runtime.GOROOT()
	}
	root, err := filepath.EvalSymlinks(root)
	if err != nil {
		b.Fatal(err)
	}
	files, err := walk.Walk(context.Background(), walk.Options{Start: root, Boundary: root})
	if err != nil {
		b.Fatal(err)
	}
	walk.SortNewestFirst(files)
	return root, files
}

// benchIndex lists the bench tree and maps its index, built unthrottled in
// $CONTENTINDEX_BENCH_DATA (kept between runs) or a temporary directory.
func benchIndex(tb testing.TB) ([]walk.File, *Manager) {
	root, files := benchTree(tb)
	dataDir := os.Getenv("CONTENTINDEX_BENCH_DATA")
	if dataDir == "" {
		dataDir = tb.TempDir()
	}
	mgr := Open(Options{DataDir: dataDir, Root: root, CPUPercent: 100, Logf: tb.Logf})
	for !mgr.Ready() {
		if mgr.isOff() {
			mgr.Close()
			tb.Fatal("no index: see the log")
		}
		mgr.Candidates(&Query{Op: OpAnd, Tri: []uint64{1}}, walk.FileList(files))
		mgr.settle()
	}
	return files, mgr
}

func cpuTime() time.Duration {
	var ru unix.Rusage
	_ = unix.Getrusage(unix.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkBuild builds the index of the bench tree unthrottled and reports
// its CPU time, size and share of the text.
func BenchmarkBuild(b *testing.B) {
	root, files := benchTree(b)
	var paths []string
	for _, f := range files {
		paths = append(paths, f.Rel)
	}
	paths = sortedCopy(paths)
	for b.Loop() {
		dir := b.TempDir()
		cpu0 := cpuTime()
		if _, err := build(context.Background(), root, dir, paths, &pacer{}); err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(cpuTime()-cpu0)/1e9, "cpu-s")
		ix, err := openIndex(filepath.Join(dir, indexName), root)
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(ix.SizeBytes())/(1<<20), "index-MB")
		b.ReportMetric(float64(ix.TextBytes())/(1<<20), "text-MB")
		b.ReportMetric(100*float64(ix.SizeBytes())/float64(ix.TextBytes()), "size-%")
		ix.Close()
	}
}

// BenchmarkCandidates times Candidates (query evaluation and the pass over
// the file list) on the bench tree, per $CONTENTINDEX_BENCH_QUERIES
// (patterns separated by newlines; a leading "(?i)" sets caseInsensitive).
func BenchmarkCandidates(b *testing.B) {
	files, mgr := benchIndex(b)
	defer mgr.Close()
	queries := os.Getenv("CONTENTINDEX_BENCH_QUERIES")
	if queries == "" {
		queries = "errors\\.New\n(?i)nil pointer dereference\n\\w+_RESUME\n[0-9]{10}"
	}
	for _, p := range strings.Split(queries, "\n") {
		b.Run(p, func(b *testing.B) {
			ci := strings.HasPrefix(p, "(?i)")
			q, err := plan(strings.TrimPrefix(p, "(?i)"), ci, false)
			if err != nil {
				b.Fatal(err)
			}
			n := 0
			for b.Loop() {
				c, _ := mgr.Candidates(q, walk.FileList(files))
				n = c.Len()
			}
			b.ReportMetric(float64(n), "candidates")
			b.ReportMetric(float64(len(files)), "files")
		})
	}
}
