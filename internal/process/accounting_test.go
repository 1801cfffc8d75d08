//go:build linux

package process

import (
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// outputLen is the length of out without its leading markers.
func outputLen(out string) int64 {
	n := 0
	for _, prefix := range []string{"[omitted: ", "[truncated: "} {
		if strings.HasPrefix(out[n:], prefix) {
			n += strings.IndexByte(out[n:], '\n') + 1
		}
	}
	return int64(len(out) - n)
}

// TestProcess_AccountingAtRandomCursors reads a process printing 300 MB
// (under -race, 60 MB) at random cursors while it runs and after: every
// reply's delivered + omitted bytes equal its range, replies from the
// default cursor add up to what was produced, and the log file holds the
// last logKeep bytes in order.
func TestProcess_AccountingAtRandomCursors(t *testing.T) {
	size := 300 << 20
	if raceEnabled || testing.Short() {
		size = 60 << 20
	}
	saved := [2]int64{logKeep, logSlack}
	logKeep, logSlack = 16<<20, 8<<20
	t.Cleanup(func() { logKeep, logSlack = saved[0], saved[1] })
	p := startT(t, "yes 'the quick brown fox jumps over the lazy dog' | head -c "+strconv.Itoa(size), Pipe)
	rng := rand.New(rand.NewPCG(7, 9))
	var sum, end int64 // sum of the ranges of all replies, past the previous reply's end
	began := time.Now()
	for !p.Exited() || end < p.log.Produced() {
		out, err := p.Read(nil, 0)
		require.NoError(t, err)
		require.Equal(t, end, out.From, "the default cursor is where the last reply ended")
		require.Equal(t, out.To-out.From, outputLen(out.Text)+out.OmittedBytes)
		sum += out.To - out.From
		end = out.To
		if end > 0 {
			// A cursor already read past, so the default cursor stays put.
			since := rng.Int64N(end)
			held := p.log.Held() // before the read: the head only moves on
			o2, err := p.Read(&since, 0)
			require.NoError(t, err)
			require.Equal(t, since, o2.From)
			require.Equal(t, o2.To-o2.From, outputLen(o2.Text)+o2.OmittedBytes)
			sum += o2.To - end
			end = o2.To
			if since < held {
				require.True(t, strings.HasPrefix(o2.Text, "[omitted: "))
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	require.Equal(t, int64(size), p.log.Produced())
	require.Equal(t, int64(size), sum, "delivered + omitted over the default-cursor replies = produced")
	t.Logf("%d MB rendered and read in %v", size>>20, time.Since(began).Round(time.Millisecond))
}
