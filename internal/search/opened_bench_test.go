//go:build unix

package search

import (
	"context"
	"os"
	"testing"

	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

	"github.com/toolrpc/toolrpc/internal/filetable"
	"github.com/toolrpc/toolrpc/internal/sourceset"
)

// BenchmarkGrepOpenedJudged runs a count grep over $TOOLRPC_BENCH_CORPUS
// (e.g. /usr/local/go) without and with Query.Opened judging every opened
// file by an fstat — the worst case: the sandbox fstats only the files of a
// denied file's size (SPEC §14). The rows' ratio bounds the judgement's cost.
func BenchmarkGrepOpenedJudged(b *testing.B) {
	root := os.Getenv("TOOLRPC_BENCH_CORPUS")
	if root == "" {
		b.Skip("TOOLRPC_BENCH_CORPUS not set")
	}
	set := filetable.NewSet([]string{root}, b.Logf)
	b.Cleanup(set.Close)
	judge := func(fd int, _ int64) bool {
		var st unix.Stat_t
		return unix.Fstat(fd, &st) != nil || st.Ino != 1
	}
	for _, row := range []struct {
		name   string
		opened func(int, int64) bool
	}{{"plain", nil}, {"judged", judge}, {"plain2", nil}, {"judged2", judge}} {
		b.Run(row.name, func(b *testing.B) {
			m, err := Compile("func main", false, false)
			require.NoError(b, err)
			q := &Query{Start: root, Boundary: root, Display: func(s string) string { return s }, Sources: sourceset.New(),
				Mode: Count, Matcher: m, HeadLimit: 100000, List: set.Walk, Opened: row.opened}
			for i := 0; i < b.N; i++ {
				if _, err := Grep(context.Background(), q); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
