package walk

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"

	"github.com/toolrpc/toolrpc/internal/textenc"
	"github.com/toolrpc/toolrpc/limits"
)

// blobLegacyAllowed is how many blobs of the committed corpus
// (testdata/fuzz/FuzzSniffBlob: NUL-stripped chunks of the Go toolchain's
// binaries, gzip streams, random bytes) SniffText may call text in a legacy
// encoding. Raise it only with a reason in the commit message.
const blobLegacyAllowed = 0

// readFuzzCorpus returns the []byte argument of each file of a fuzz corpus.
func readFuzzCorpus(t *testing.T, dir string) [][]byte {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*"))
	require.NoError(t, err)
	require.NotEmpty(t, files)
	var out [][]byte
	for _, p := range files {
		b, err := os.ReadFile(p)
		require.NoError(t, err)
		lines := strings.Split(string(b), "\n")
		require.True(t, len(lines) > 1 && strings.HasPrefix(lines[1], "[]byte("), p)
		s, err := strconv.Unquote(strings.TrimSuffix(strings.TrimPrefix(lines[1], "[]byte("), ")"))
		require.NoError(t, err, p)
		out = append(out, []byte(s))
	}
	return out
}

// TestSniffBlobCorpus: the detector calls at most blobLegacyAllowed of the
// committed blobs text in a legacy encoding.
func TestSniffBlobCorpus(t *testing.T) {
	blobs := readFuzzCorpus(t, filepath.Join("testdata", "fuzz", "FuzzSniffBlob"))
	legacy := 0
	for _, b := range blobs {
		require.NotContains(t, string(b), "\x00", "the corpus is NUL-free, so the NUL rule decides none")
		if enc, binary, _ := SniffText(b, false); !binary && enc.Transcoded() {
			legacy++
		}
	}
	require.LessOrEqual(t, legacy, blobLegacyAllowed, "of %d blobs", len(blobs))
}

// FuzzSniffBlob: whenever SniffText names a legacy encoding, the head holds
// no NUL byte, decodes and encodes back exactly, and its characters pass
// the printable rule; a UTF-16 BOM is judged by its characters.
func FuzzSniffBlob(f *testing.F) {
	f.Add([]byte("caf\xe9 au lait\r\n"), true)
	f.Add([]byte{0xff, 0xfe, 0x00, 0xd8, 'a', 0}, true) // lone surrogate
	f.Add([]byte{0xff, 0xfe, 'a'}, true)                // odd length
	f.Add(append([]byte{0xfe, 0xff}, bytes.Repeat([]byte{0x01, 0x02}, 40)...), false)
	f.Fuzz(func(t *testing.T, head []byte, atEOF bool) {
		enc, binary, reason := SniffText(head, atEOF)
		require.Equal(t, binary, reason != "")
		if binary {
			require.Nil(t, enc)
			return
		}
		window := head[:min(len(head), limits.SniffBytes)]
		if !enc.Transcoded() {
			return
		}
		body := bytes.TrimPrefix(window, enc.BOM())
		text, _ := enc.Decode(body)
		require.NotContains(t, text, "\x00")
		require.True(t, utf8.ValidString(text))
		if enc.BOM() != nil {
			return // a BOM decides; U+FFFD marks what does not decode
		}
		require.NotContains(t, string(window), "\x00")
		require.NotNil(t, textenc.DetectLegacy(window, atEOF), "the sniff's encoding is the detector's")
	})
}
