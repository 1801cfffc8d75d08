package conformance

import (
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestBash_CutSpillSaysWhereCopyEnds (SPEC §6.2): when the spilled copy is
// itself cut by the 512 KB cap, the marker says which lines the copy holds,
// so a model that greps the file for the last line knows it is not there.
// seq 1 200000 prints 1,288,895 bytes; the first 512 KB end inside line
// 89233.
func TestBash_CutSpillSaysWhereCopyEnds(t *testing.T) {
	s := start(t)
	res := callBash(t, s, map[string]any{"command": "seq 1 200000"})
	require.NotNil(t, res.StdoutInfo.Spill)
	spill := *res.StdoutInfo.Spill
	require.True(t, strings.HasSuffix(res.Stdout, "\n[truncated: kept the first 4000 of 200000 lines; limit 4000 lines / 96KB. "+
		"Full output saved to "+spill+" — Grep it, or Read it with offset/limit. "+
		"The saved copy holds lines 1–89232 of 200000 (spill limit 512KB).]\n"), tail(res.Stdout, 400))
	b, err := os.ReadFile(spill)
	require.NoError(t, err)
	text := string(b)
	require.True(t, strings.HasPrefix(text[strings.LastIndex(text[:len(text)-1], "\n")+1:], "8923"), "the copy ends inside line 89233")
	require.Contains(t, text, "\n89232\n")
	require.NotContains(t, text, "\n89233\n")

	// A tail: stderr's copy holds the last lines, which the marker counts.
	res = callBash(t, s, map[string]any{"command": "seq 1 200000 >&2"})
	require.NotNil(t, res.StderrInfo.Spill)
	b, err = os.ReadFile(*res.StderrInfo.Spill)
	require.NoError(t, err)
	held := strings.Count(string(b), "\n")
	require.True(t, strings.HasSuffix(string(b), "\n200000\n"))
	require.True(t, strings.HasPrefix(res.Stderr, "[truncated: kept the last 4000 of 200000 lines; limit 4000 lines / 96KB. "+
		"Full output saved to "+*res.StderrInfo.Spill+" — Grep it, or Read it with offset/limit. "+
		"The saved copy holds the last "+strconv.Itoa(held)+" lines of 200000 (spill limit 512KB).]\n"), res.Stderr[:400])

	// A copy that is whole says nothing more.
	res = callBash(t, s, map[string]any{"command": "seq 1 50000"})
	require.True(t, strings.HasSuffix(res.Stdout, " — Grep it, or Read it with offset/limit.]\n"), tail(res.Stdout, 300))
}
