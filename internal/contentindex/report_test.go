//go:build linux

package contentindex

import (
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/toolrpc/toolrpc/internal/search"
	"github.com/toolrpc/toolrpc/walk"
)

// TestCandidatesReport logs, per pattern of $CONTENTINDEX_BENCH_QUERIES (a
// leading "(?i)" sets caseInsensitive), how many files of
// $CONTENTINDEX_REPORT_TREE the index keeps and how many match: the
// selectivity figures of the index. It is skipped without the variable.
func TestCandidatesReport(t *testing.T) {
	if os.Getenv("CONTENTINDEX_REPORT_TREE") == "" {
		t.Skip("CONTENTINDEX_REPORT_TREE is not set")
	}
	t.Setenv("CONTENTINDEX_BENCH_TREE", os.Getenv("CONTENTINDEX_REPORT_TREE"))
	files, mgr := benchIndex(t)
	defer mgr.Close()
	for _, p := range strings.Split(reportQueries(), "\n") {
		ci := strings.HasPrefix(p, "(?i)")
		pattern := strings.TrimPrefix(p, "(?i)")
		m, err := search.Compile(pattern, ci, false)
		require.NoError(t, err)
		q := Plan(m.Syntax(), len(pattern))
		c, _ := mgr.Candidates(q, walk.FileList(files))
		n := 0
		for i := range c.Len() {
			if b, err := os.ReadFile(c.At(i).Abs); err == nil && matches(m, decoded(b)) {
				n++
			}
		}
		t.Logf("%-32q candidates %6d matching %6d ratio %.2f", p, c.Len(), n, float64(c.Len())/float64(max(n, 1)))
	}
}

func reportQueries() string {
	if q := os.Getenv("CONTENTINDEX_BENCH_QUERIES"); q != "" {
		return q
	}
	return strings.Join([]string{
		"pm_resume", "(?i)pm_resume", "errors.New", "(?i)errors.new", "ErrUnexpectedEOF", "(?i)errunexpectedeof",
		"func main", "(?i)func main", "Kelvin", "(?i)kelvin", "NewReader", "(?i)newreader", "TODO", "(?i)todo",
		"http.StatusOK", "(?i)http.statusok", "strconv.Itoa", "(?i)strconv.itoa", "unsafe.Pointer", "(?i)unsafe.pointer",
		"SIGSEGV", "(?i)sigsegv", "(?i)copyright", "Copyright 2009", "(?i)mutex", "sync.Mutex",
	}, "\n")
}
