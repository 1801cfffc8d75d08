package walk

import (
	"bytes"
	"encoding/binary"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"
)

// nonPrintableRef is the byte-at-a-time count nonPrintable must equal.
func nonPrintableRef(head []byte, atEOF bool) int {
	bad := 0
	for i := 0; i < len(head); {
		b := head[i]
		if b < utf8.RuneSelf {
			if (b < 0x20 && !allowedControl(b)) || b == 0x7f {
				bad++
			}
			i++
			continue
		}
		r, size := utf8.DecodeRune(head[i:])
		if r == utf8.RuneError && size <= 1 {
			if !atEOF && !utf8.FullRune(head[i:]) {
				break
			}
			bad++
			i++
			continue
		}
		i += size
	}
	return bad
}

func TestPlainWordEveryByte(t *testing.T) {
	for b := 0; b < 256; b++ {
		want := b == '\t' || b == '\n' || (b >= 0x20 && b < 0x7f)
		for lane := 0; lane < 8; lane++ {
			word := bytes.Repeat([]byte("a"), 8)
			word[lane] = byte(b)
			require.Equal(t, want, plainWord(binary.LittleEndian.Uint64(word)), "byte %#x in lane %d", b, lane)
		}
	}
}

// TestPlainBlockEveryByte: a block of 32 bytes is plain exactly when each
// of its bytes is, whatever byte stands in whatever position.
func TestPlainBlockEveryByte(t *testing.T) {
	for b := 0; b < 256; b++ {
		want := b == '\t' || b == '\n' || (b >= 0x20 && b < 0x7f)
		for pos := 0; pos < 32; pos++ {
			block := bytes.Repeat([]byte("a\tb\n"), 8)
			block[pos] = byte(b)
			require.Equal(t, want, plainBlock(block), "byte %#x at %d", b, pos)
		}
	}
}

func TestNonPrintableMatchesByteLoop(t *testing.T) {
	tests := []struct {
		name string
		head string
	}{
		{"ascii", "package main\n\tfunc main() {}\n"},
		{"controls across words", "abcdefg\x01hijklmn\x7fopq\rrs\x1b"},
		{"utf8 across a word edge", "abcdefg€hijklmn中文"},
		{"cut sequence at end", "abcdefgh\xe2\x82"},
		{"latin1", "caf\xe9 \xe0\xe8\xf9\xfc\n1234567"},
	}
	for _, tc := range tests {
		for _, atEOF := range []bool{false, true} {
			t.Run(tc.name, func(t *testing.T) {
				require.Equal(t, nonPrintableRef([]byte(tc.head), atEOF), first(nonPrintable([]byte(tc.head), atEOF)))
			})
		}
	}
}

func FuzzNonPrintable(f *testing.F) {
	f.Add([]byte("package main\n\tfunc main() {}\n"), true)
	f.Add([]byte("abcdefg\x01hijklmn\x7f\xe2\x82"), false)
	f.Add([]byte("abcdefg€hijklmn中文\r\n"), true)
	f.Fuzz(func(t *testing.T, head []byte, atEOF bool) {
		require.Equal(t, nonPrintableRef(head, atEOF), first(nonPrintable(head, atEOF)))
	})
}

func first(bad, _ int) int { return bad }
