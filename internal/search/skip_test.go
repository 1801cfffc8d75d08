package search

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"golang.org/x/text/encoding/japanese"
	"golang.org/x/text/encoding/unicode"
)

// grepBothWays greps content (one file) for pattern in every mode, with the
// unsniffed skip of files that cannot match and without it (the sniff
// first, always), and requires the same results.
func grepBothWays(t *testing.T, content []byte, pattern string, ci bool) {
	t.Helper()
	m, err := Compile(pattern, ci, false)
	if err != nil {
		return
	}
	root := engineTree(t, [][2]string{{"f.txt", string(content)}})
	for _, mode := range []Mode{Content, Count, FilesWithMatches} {
		grep := func(skip bool) Result {
			defer func(old bool) { skipUnmatched = old }(skipUnmatched)
			skipUnmatched = skip
			q := engineQuery(t, root, "", "x", mode)
			q.Matcher, q.HeadLimit = m, 100000
			return engineGrep(t, q)
		}
		require.Equal(t, grep(false), grep(true), "pattern %q mode %d content %q", pattern, mode, content)
	}
}

// TestSkipUnmatchedAnswersAsSniffFirst (SPEC §4, §4.1, §5): a file the
// pattern's ASCII literal does not occur in goes unsniffed, and every
// grep answers as when each file is sniffed first: text in a legacy
// encoding (whose trail bytes may be ASCII), UTF-16 with its BOM (the
// literal's bytes are not adjacent there: it must be decoded), UTF-8 with
// a BOM, binary files, and literals that only case folding finds.
func TestSkipUnmatchedAnswersAsSniffFirst(t *testing.T) {
	sjis, err := japanese.ShiftJIS.NewEncoder().String("表示 needle 予定 ソース\nsecond 能力 line\n")
	require.NoError(t, err)
	utf16, err := unicode.UTF16(unicode.LittleEndian, unicode.UseBOM).NewEncoder().String("a needle here\nno\n")
	require.NoError(t, err)
	contents := []string{
		"plain needle\nnothing\n",
		sjis,
		utf16,
		"\xef\xbb\xbfneedle with a UTF-8 BOM\n",
		"caf\xe9 needle in windows-1252\n",
		"bin\x00ary needle\n",
		strings.Repeat("\x01\x02\x03", 100) + " needle\n",
		"NEEDLE upper\n",
	}
	for _, c := range contents {
		for _, p := range []string{"needle", "NEEDLE", `\bneedle\b`, "ne+dle", "second", "\\\\", "表示", "x"} {
			grepBothWays(t, []byte(c), p, false)
			grepBothWays(t, []byte(c), p, true)
		}
	}
}

// FuzzSkipUnmatched is TestSkipUnmatchedAnswersAsSniffFirst on any bytes
// and any pattern.
func FuzzSkipUnmatched(f *testing.F) {
	f.Add([]byte("\xff\xfea\x00b\x00"), "ab", false)
	f.Add([]byte("\x95\x5cabc\n"), `\abc`, true)
	f.Add([]byte("caf\xe9 x\n"), "x", false)
	f.Fuzz(func(t *testing.T, content []byte, pattern string, ci bool) {
		if len(content) > 1<<14 {
			return
		}
		grepBothWays(t, content, pattern, ci)
	})
}
