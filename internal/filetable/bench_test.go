//go:build linux && !toolrpc_portable

package filetable

import (
	"context"
	"os"
	"runtime"
	"testing"

	"github.com/toolrpc/toolrpc/walk"
)

// benchRoot is the tree the benchmarks use: $FILETABLE_BENCH_ROOT, else the
// Go tree.
func benchRoot(b *testing.B) string {
	root := os.Getenv("FILETABLE_BENCH_ROOT")
	if root == "" {
		root = runtime.GOROOT()
	}
	if _, err := os.Stat(root); err != nil {
		b.Skip("no tree at", root)
	}
	return root
}

// BenchmarkBuild measures a table's first listing (walk, watches, tree) and
// reports the heap it keeps per file.
func BenchmarkBuild(b *testing.B) {
	root := benchRoot(b)
	for range b.N {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		tab := newTable(root, b.Logf)
		if _, ok, err := tab.List(context.Background(), Query{Start: root}); !ok || err != nil {
			b.Fatal("no table", err)
		}
		b.StopTimer()
		tab.mu.Lock()
		_ = 0 // what a listing caches is not the table
		tab.mu.Unlock()
		runtime.GC()
		runtime.ReadMemStats(&after)
		st := tab.Stats()
		b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/float64(st.Files), "heapB/file")
		b.ReportMetric(float64(st.Files), "files")
		b.ReportMetric(float64(st.Watches), "watches")
		tab.Close()
		b.StartTimer()
	}
}

// BenchmarkListWarm measures a listing of a warm table against a cold walk.
func BenchmarkListWarm(b *testing.B) {
	root := benchRoot(b)
	tab := newTable(root, b.Logf)
	defer tab.Close()
	if _, ok, _ := tab.List(context.Background(), Query{Start: root}); !ok {
		b.Fatal("no table")
	}
	b.Run("table", func(b *testing.B) {
		for range b.N {
			_, _, _ = tab.List(context.Background(), Query{Start: root})
		}
	})
	b.Run("walk", func(b *testing.B) {
		for range b.N {
			_, _ = walk.Walk(context.Background(), walk.Options{Start: root, Boundary: root})
		}
	})
}

// BenchmarkLoad measures the first listing of a new table that finds the
// table an earlier one persisted (read, watches, a stamp per directory and
// file, tree), against BenchmarkBuild's walk, and the heap it keeps.
func BenchmarkLoad(b *testing.B) {
	root := benchRoot(b)
	store := b.TempDir() + "/filetable"
	first := newTable(root, b.Logf)
	first.store = store
	if _, ok, _ := first.List(context.Background(), Query{Start: root}); !ok {
		b.Fatal("no table")
	}
	first.Close()
	b.ResetTimer()
	for range b.N {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		tab := newTable(root, b.Logf)
		tab.store = store
		if _, ok, err := tab.List(context.Background(), Query{Start: root}); !ok || err != nil {
			b.Fatal("no table", err)
		}
		b.StopTimer()
		runtime.GC()
		runtime.ReadMemStats(&after)
		st := tab.Stats()
		if st.Loads != 1 {
			b.Fatalf("not loaded: %+v", st)
		}
		b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/float64(st.Files), "heapB/file")
		b.ReportMetric(float64(st.Files), "files")
		tab.Close()
		b.StartTimer()
	}
}

// BenchmarkSave measures one save of a built table (encoding, atomic
// write) and reports the file's size per file.
func BenchmarkSave(b *testing.B) {
	root := benchRoot(b)
	store := b.TempDir() + "/filetable"
	tab := newTable(root, b.Logf)
	tab.store = store
	defer tab.Close()
	if _, ok, _ := tab.List(context.Background(), Query{Start: root}); !ok {
		b.Fatal("no table")
	}
	for range b.N {
		tab.mu.Lock()
		tab.savedGen = -1 // changed: write it again
		tab.mu.Unlock()
		if err := tab.saveOnce(true); err != nil {
			b.Fatalf("not saved: %v, %+v", err, tab.Stats())
		}
	}
	b.StopTimer()
	fi, err := os.Stat(store)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(fi.Size())/float64(tab.Stats().Files), "fileB/file")
}

// BenchmarkSortedOrder measures the newest-first order a listing computes
// after any change (traversal, sort, snapshot of the entries).
func BenchmarkSortedOrder(b *testing.B) {
	root := benchRoot(b)
	tab := newTable(root, b.Logf)
	defer tab.Close()
	if _, ok, _ := tab.List(context.Background(), Query{Start: root}); !ok {
		b.Fatal("no table")
	}
	tab.mu.Lock()
	defer tab.mu.Unlock()
	b.ResetTimer()
	for range b.N {
		tab.orderOK = false
		tab.sortedOrder()
	}
}
