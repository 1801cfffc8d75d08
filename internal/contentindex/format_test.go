package contentindex

import (
	"context"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestListRoundTrip: every list encoding answers, for every term, exactly
// the documents whose masks allow it.
func TestListRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 22))
	for range 300 {
		ndocs := 1 + r.IntN(3000)
		var ids []uint32
		var masks []uint16
		density := r.Float64()
		for id := range ndocs {
			if r.Float64() < density {
				ids = append(ids, uint32(id))
				masks = append(masks, randomMask(r))
			}
		}
		data := encodeList(nil, ids, masks, ndocs)
		withMasks := len(ids)*masksFrom >= ndocs
		for f := range 9 {
			cases := uint64(r.IntN(4)) // any, caseLower, caseUpper, both
			tm := uint64(pack('a', 'b', 'c')) | uint64(f)<<followShift | cases<<caseShift
			got := make([]uint64, (ndocs+63)/64)
			require.NoError(t, matchList(got, data, len(ids), ndocs, tm, nil))
			for k, id := range ids {
				want := !withMasks || termAllowsSpec(tm, masks[k])
				require.Equal(t, want, has(got, id), "doc %d of %d, follower %d, cases %#x", id, ndocs, f, cases)
			}
			for id := range ndocs {
				if _, in := slices.BinarySearch(ids, uint32(id)); !in {
					require.False(t, has(got, uint32(id)), "doc %d is not in the list", id)
				}
			}
			// With a keep set (sparse, dense, or whole words empty), the
			// documents it holds are answered as without it, and no
			// document outside the answer without it appears.
			keep := make([]uint64, (ndocs+63)/64)
			keepDensity := []float64{0.001, 0.05, 0.5}[r.IntN(3)]
			for id := range ndocs {
				if r.Float64() < keepDensity {
					keep[id>>6] |= 1 << (id & 63)
				}
			}
			kept := make([]uint64, (ndocs+63)/64)
			require.NoError(t, matchList(kept, data, len(ids), ndocs, tm, keep))
			for id := range uint32(ndocs) {
				if has(keep, id) {
					require.Equal(t, has(got, id), has(kept, id), "kept doc %d of %d", id, ndocs)
				} else if has(kept, id) {
					require.True(t, has(got, id), "doc %d answered with keep only", id)
				}
			}
		}
	}
}

// termAllowsSpec is termAllows as the mask format states it: one of the
// halves the term allows (the low byte caseLower's, the high caseUpper's)
// is not empty and has every follower bit the term asks for.
func termAllowsSpec(t uint64, mask uint16) bool {
	if t&^triMask == 0 {
		return true
	}
	halves := uint8(t >> caseShift)
	if halves == 0 {
		halves = caseLower | caseUpper
	}
	var want uint8
	for _, shift := range []uint64{followShift, follow3Shift} {
		if f := t >> shift & followMask; f != 0 {
			want |= 1 << (f - 1)
		}
	}
	for h, half := range [2]uint8{uint8(mask), uint8(mask >> caseMaskShift)} {
		if halves&(1<<h) != 0 && half != 0 && half&want == want {
			return true
		}
	}
	return false
}

// randomMask returns a mask with followers of lower-case occurrences,
// upper-case ones, both, or (never in an index, yet encodable) none.
func randomMask(r *rand.Rand) uint16 {
	low, high := uint16(r.IntN(256)), uint16(r.IntN(256))<<caseMaskShift
	return []uint16{low, high, low | high, 0}[r.IntN(4)]
}

// FuzzIndexFile: a damaged index file is refused or answered, never a
// crash.
func FuzzIndexFile(f *testing.F) {
	root, err := filepath.EvalSymlinks(f.TempDir())
	require.NoError(f, err)
	for i, text := range []string{"foo bar baz\n", "PM_RESUME pm_runtime\n", "\xff\x00binary"} {
		p := filepath.Join(root, string(rune('a'+i))+".txt")
		require.NoError(f, os.WriteFile(p, []byte(text), 0o644))
		require.NoError(f, os.Chtimes(p, oldTime, oldTime))
	}
	dir := f.TempDir()
	_, err = build(context.Background(), root, dir, []string{"a.txt", "b.txt", "c.txt"}, &pacer{})
	require.NoError(f, err)
	valid, err := os.ReadFile(filepath.Join(dir, indexName))
	require.NoError(f, err)
	f.Add(valid, 0, byte(0))
	f.Add(valid, 9, byte(0xff))
	f.Add(valid[:len(valid)/2], 0, byte(0))
	queries := []string{"foo", "PM_RESUME", "(?i)bar baz", "pm_r"}
	f.Fuzz(func(t *testing.T, data []byte, at int, b byte) {
		data = slices.Clone(data)
		if len(data) > 0 {
			data[(at%len(data)+len(data))%len(data)] = b
		}
		p := filepath.Join(t.TempDir(), indexName)
		require.NoError(t, os.WriteFile(p, data, 0o600))
		ix, err := openIndex(p, root)
		if err != nil {
			return
		}
		defer ix.Close()
		for _, pat := range queries {
			q, err := plan(pat, false, false)
			require.NoError(t, err)
			_, _, _, _ = ix.Match(q)
		}
		_, _ = ix.Lookup("a.txt")
	})
}

// oldTime is an mtime well outside the racy window.
var oldTime = time.Now().Add(-time.Hour)

// oldMagics are the magics of earlier index formats (004: exact-case
// trigrams with 8-bit follower masks; 005: folded trigrams with one-byte
// masks; 006: masks without three-byte followers; 008: blocks without
// their starts), which the current reader would misread.
var oldMagics = []string{"TRIDX001", "TRIDX002", "TRIDX003", "TRIDX004", "TRIDX005", "TRIDX006", "TRIDX007", "TRIDX008"}

// TestOldFormatIsRebuilt: an index file of an earlier format is never
// mapped as the current one; a server finding one builds anew and narrows
// by the new index.
func TestOldFormatIsRebuilt(t *testing.T) {
	require.NotContains(t, oldMagics, magic, "a format change bumps the magic")
	for _, old := range oldMagics {
		t.Run(old, func(t *testing.T) {
			r := rand.New(rand.NewPCG(31, 32))
			tr := newTree(t, r)
			dataDir, first := builtIndex(t, tr)
			p := filepath.Join(first.dir, indexName)
			data, err := os.ReadFile(p)
			require.NoError(t, err)
			copy(data[len(data)-footerSize:], old)
			require.NoError(t, os.WriteFile(p, data, 0o600))
			_, err = openIndex(p, tr.root)
			require.ErrorIs(t, err, errCorrupt, "a %s file is refused", old)

			second := Open(Options{DataDir: dataDir, Root: tr.root, CPUPercent: 100, Logf: t.Logf})
			defer second.Close()
			waitReady(t, second, tr)
			require.Equal(t, 1, second.Builds(), "the old index is rebuilt")
			data, err = os.ReadFile(p)
			require.NoError(t, err)
			require.Equal(t, magic, string(data[len(data)-footerSize:][:len(magic)]))
			for _, pattern := range []string{"pm_resume", "PM_RESUME", "Foo", "kelvin"} {
				checkCandidates(t, second, tr, pattern, r.IntN(2) == 0, false)
			}
		})
	}
}
