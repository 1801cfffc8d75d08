package lineedit

import (
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// FuzzReadShape checks that Read-formatted text strips back to its
// lines, and that anything stripped really was Read-shaped.
func FuzzReadShape(f *testing.F) {
	f.Add("a\nb", 1, true)
	f.Add("", 5, false)
	f.Add("12:x\n:y", 12, true)
	f.Fuzz(func(t *testing.T, text string, first int, header bool) {
		if first < 0 || first > 1<<30 {
			return
		}
		lines := strings.Split(text, "\n")
		var b strings.Builder
		if header {
			b.WriteString("[p#abcd]\n")
		}
		for i, l := range lines {
			b.WriteString(strconv.Itoa(first+i) + ":" + l + "\n")
		}
		got, gotFirst, ok := ReadShape(b.String())
		require.True(t, ok)
		require.Equal(t, first, gotFirst)
		require.Equal(t, lines, got)

		// Arbitrary text: if it strips, re-adding the prefixes gives it back.
		got, gotFirst, ok = ReadShape(text)
		if ok && len(got) > 0 {
			var r strings.Builder
			for i, l := range got {
				r.WriteString(strconv.Itoa(gotFirst+i) + ":" + l + "\n")
			}
			body := strings.TrimSuffix(text, "\n")
			if m := readHeader.FindStringIndex(strings.SplitN(body, "\n", 2)[0]); m != nil {
				body = strings.SplitN(body, "\n", 2)[1]
			}
			require.Equal(t, strings.TrimSuffix(r.String(), "\n"), normaliseNumbers(body))
		}
	})
}

// normaliseNumbers rewrites each line's numeric prefix in canonical form
// (leading zeros dropped), as strconv.Itoa would print it.
func normaliseNumbers(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		c := strings.IndexByte(l, ':')
		n, _ := strconv.Atoi(l[:c])
		lines[i] = strconv.Itoa(n) + l[c:]
	}
	return strings.Join(lines, "\n")
}
