package filetable

import (
	"encoding/binary"
	"math"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
)

// FuzzSortRefs requires sortRefs to order refs as a comparison sort by
// time, newest first, ties by pos does, for times drawn from the fuzz
// bytes: few distinct ones (ties), extremes and negative ones.
func FuzzSortRefs(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte{1, 2, 3, 4, 5, 6, 7, 8, 9})
	f.Add([]byte{0, 5, 0, 5}) // times alike in their low bytes
	f.Add([]byte{0, 0, 0, 255, 255, 128, 7, 7, 7, 7, 3})
	f.Add(binary.LittleEndian.AppendUint64([]byte{9, 9, 200, 1}, math.MaxUint64))
	f.Fuzz(func(t *testing.T, data []byte) {
		times := []int64{0, 1, -1, math.MaxInt64, math.MinInt64, 1 << 40, 1<<40 + 1, 1_700_000_000_000_000_000}
		var refs []ref
		for len(data) > 0 {
			var m int64
			if data[0] >= 200 && len(data) >= 9 {
				m = int64(binary.LittleEndian.Uint64(data[1:9]))
				data = data[9:]
			} else {
				m = times[int(data[0])%len(times)]
				data = data[1:]
			}
			refs = append(refs, ref{mtime: m, i: int32(len(refs)), pos: int32(len(refs))})
		}
		want := slices.Clone(refs)
		slices.SortFunc(want, func(a, b ref) int {
			switch {
			case a.mtime > b.mtime:
				return -1
			case a.mtime < b.mtime:
				return 1
			}
			return int(a.pos - b.pos)
		})
		sortRefs(refs)
		require.Equal(t, want, refs)
	})
}
