package contentindex

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// blockEnds returns where blockCutter ends the blocks of text read in one
// piece, but the last: after the first line break at least blockSize past
// a block's start that leaves blockOverlap bytes after it.
func blockEnds(text []byte) []int {
	var ends []int
	start := 0
	for {
		from := start + blockSize(int64(len(text))) - 1
		if from >= len(text) {
			return ends
		}
		j := strings.IndexByte(string(text[from:]), '\n')
		if j < 0 || from+j+1+blockOverlap > len(text) {
			return ends
		}
		start = from + j + 1
		ends = append(ends, start)
	}
}

// boundaryPatterns returns patterns made of the text around block end e:
// literals ending at, starting at and crossing e (so holding its line
// break), and regexps joining a literal before e to one after it.
func boundaryPatterns(r *rand.Rand, text []byte, e int) []string {
	lit := func(a, b int) string {
		a, b = max(a, 0), min(b, len(text))
		if a >= b {
			return ""
		}
		return regexp.QuoteMeta(strings.ToValidUTF8(string(text[a:b]), ""))
	}
	before := lit(e-1-3-r.IntN(8), e-1) // up to the line break ending the block
	after := lit(e, e+3+r.IntN(8))
	across := lit(e-1-r.IntN(6), e+1+r.IntN(6))
	near := lit(e-r.IntN(16), e+r.IntN(16))
	return []string{before, after, across, near, before + "$", "^" + after,
		before + `.*` + after, before + `[\s\S]*` + after, before + `\n` + after,
		before + `\W*` + after, "(?:" + before + "|" + after + ")"}
}

// TestDifferentialBlocks: files larger than a block, split at line breaks,
// keep every file that holds a match of patterns made of the text on and
// near the blocks' ends, case-sensitive or not, line by line or multiline,
// as grep's matcher decides on the whole file.
func TestDifferentialBlocks(t *testing.T) {
	defer func(b, p int) { blockBytes, runPairs = b, p }(blockBytes, runPairs)
	// Under the race detector the test takes 7.5× as long (468 s against
	// 62 s alone on this machine): two of the twelve trees run there, and
	// CI's run without it (the portable run) runs all twelve.
	seeds := uint64(12)
	if raceBuilt {
		seeds = 2
	}
	narrowed := 0
	for seed := range seeds {
		r := rand.New(rand.NewPCG(seed, 0x5eed))
		blockBytes = 16 + r.IntN(48)
		runPairs = 32 + r.IntN(256) // runs are written while a file is read
		tr := &tree{t: t, r: r, clock: time.Now().Add(-time.Hour)}
		tr.root = t.TempDir()
		root, err := filepath.EvalSymlinks(tr.root)
		require.NoError(t, err)
		tr.root = root
		texts := map[string][]byte{}
		for i := range 6 + r.IntN(6) {
			rel := filepath.Join("d", strings.Repeat("x", i%3), "f"+string(rune('a'+i))+".txt")
			text := []byte(genFrom(r, tokens, 60+r.IntN(200)))
			texts[rel] = text
			abs := filepath.Join(tr.root, rel)
			require.NoError(t, os.MkdirAll(filepath.Dir(abs), 0o755))
			require.NoError(t, os.WriteFile(abs, text, 0o644))
			tr.clock = tr.clock.Add(time.Second)
			require.NoError(t, os.Chtimes(abs, tr.clock, tr.clock))
		}
		mgr := Open(Options{DataDir: t.TempDir(), Root: tr.root, CPUPercent: 100, Logf: t.Logf})
		waitReady(t, mgr, tr)
		// The test must be able to fail: files were split into blocks.
		require.Greater(t, mgr.base.f.nblocks, mgr.base.f.ndocs, "files were read as several blocks")
		for _, text := range texts {
			ends := blockEnds(text)
			r.Shuffle(len(ends), func(i, j int) { ends[i], ends[j] = ends[j], ends[i] })
			for _, e := range ends[:min(len(ends), 4)] {
				for _, p := range boundaryPatterns(r, text, e) {
					for _, mode := range [][2]bool{{false, false}, {true, false}, {false, true}, {true, true}} {
						if checkCandidates(t, mgr, tr, p, mode[0], mode[1]) {
							narrowed++
						}
					}
				}
			}
		}
		mgr.Close()
	}
	require.Greater(t, narrowed, 100, "the index narrowed searches")
	require.Greater(t, spansChecked.Load(), int64(100), "candidates were given spans")
}
