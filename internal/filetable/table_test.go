//go:build linux && !toolrpc_portable

package filetable

import (
	"math/rand"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// testLog collects the table's log lines.
type testLog struct {
	t     testing.TB
	lines []string
}

func (l *testLog) logf(format string, args ...any) {
	l.t.Logf(format, args...)
}

// testSeed returns $FILETABLE_SEED, else a new seed, and logs it.
func testSeed(t testing.TB) int64 {
	seed := time.Now().UnixNano()
	if s := os.Getenv("FILETABLE_SEED"); s != "" {
		seed, _ = strconv.ParseInt(s, 10, 64)
	}
	t.Logf("FILETABLE_SEED=%d", seed)
	return seed
}

// roundTree returns the random source and the tree of one round of a
// random test (a git repository in even rounds).
func roundTree(t testing.TB, seed int64, round int) (*rand.Rand, *mutator) {
	r := rand.New(rand.NewSource(seed + int64(round)))
	return r, newMutatorTree(t, randChooser{r}, round%2 == 0)
}

// TestTableMatchesWalk interleaves random tree changes with listings and
// requires every listing the table gives to equal a cold walk.Walk.
func TestTableMatchesWalk(t *testing.T) {
	seed := testSeed(t)
	rounds, steps := 4, 60
	if testing.Short() {
		rounds, steps = 2, 40
	}
	for round := range rounds {
		r, m := roundTree(t, seed, round)
		l := &testLog{t: t}
		tab := newTable(m.root, l.logf)
		t.Cleanup(tab.Close)
		m.check(tab)
		for range steps {
			for range 1 + r.Intn(4) {
				m.step()
			}
			m.check(tab)
		}
		st := tab.Stats()
		t.Logf("round %d: %+v", round, st)
		require.Equal(t, "live", st.State)
		tab.Close()
		require.Equal(t, "closed", tab.Stats().State)
	}
}

// FuzzTableMatchesWalk drives the same changes from fuzz bytes.
func FuzzTableMatchesWalk(f *testing.F) {
	f.Add([]byte{0, 1, 2, 0, 5, 3, 1, 1, 7, 0, 3, 1, 1})
	f.Add([]byte{11, 4, 5, 0, 2, 2, 8, 1, 2, 3, 3, 0, 0, 9, 1, 9, 2, 2})
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 400 {
			return
		}
		c := &byteChooser{b: data}
		m := newMutatorTree(t, c, len(data)%2 == 0)
		tab := newTable(m.root, (&testLog{t: t}).logf)
		t.Cleanup(tab.Close)
		for {
			m.check(tab)
			if !m.step() {
				break
			}
		}
		m.check(tab)
	})
}
