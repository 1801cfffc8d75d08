package cut

import (
	"encoding/binary"
	"math/bits"
	"unicode/utf8"

	"github.com/toolrpc/toolrpc/limits"
)

// replacement is U+FFFD, the text every invalid byte becomes.
const replacement = "\uFFFD"

// ClipLine returns one line, given without its line ending, as valid UTF-8 of at
// most limits.MaxLineChars characters (Unicode code points), cut at a character
// boundary. clipped reports that characters past limits.MaxLineChars were dropped;
// lossy reports that bytes of the returned part were not valid UTF-8 and were
// each replaced by U+FFFD (one per byte; a replaced byte counts as one
// character). A line that is clipped or lossy is not shown whole: callers
// count it as clipped and keep it out of the edit source set (SPEC §8).
//
// ClipLine reads at most the bytes of the first limits.MaxLineChars characters, so a
// multi-megabyte line costs no more than a short one, and a valid line of at
// most limits.MaxLineChars bytes costs only the string conversion.
func ClipLine(line []byte) (text string, clipped bool, lossy bool) {
	return clipLine(line, limits.MaxLineChars)
}

// clipLine is ClipLine for a limit of maxChars characters (maxChars ≥ 0).
func clipLine(line []byte, maxChars int) (string, bool, bool) {
	if len(line) <= maxChars {
		// A line has no more characters than bytes: nothing to clip.
		if utf8.Valid(line) {
			return string(line), false, false
		}
		return string(repairBytes(line)), false, true
	}
	// Find the start of character maxChars+1 by counting the bytes that are
	// not continuation bytes (10xxxxxx), eight at a time; valid text has one
	// per character. Only if the kept part is not valid does it need decoding.
	i, n := 0, 0
	for i+8 <= len(line) && n+8 <= maxChars {
		x := binary.LittleEndian.Uint64(line[i:])
		n += 8 - bits.OnesCount64(x&^(x<<1)&0x8080808080808080)
		i += 8
	}
	for ; i < len(line); i++ {
		if utf8.RuneStart(line[i]) {
			if n == maxChars {
				break
			}
			n++
		}
	}
	if utf8.Valid(line[:i]) {
		return string(line[:i]), i < len(line), false
	}
	return clipDecoding(line, maxChars)
}

// clipDecoding is clipLine for text that is not valid UTF-8: it decodes up to
// maxChars characters, each invalid byte counting as one.
func clipDecoding(line []byte, maxChars int) (string, bool, bool) {
	i := asciiPrefix(line[:min(len(line), maxChars)])
	n := i // characters counted so far: each ASCII byte is one
	lossy := false
	for n < maxChars && i < len(line) {
		if line[i] < utf8.RuneSelf {
			i++
			n++
			continue
		}
		r, size := utf8.DecodeRune(line[i:])
		if r == utf8.RuneError && size == 1 {
			lossy = true
		}
		i += size
		n++
	}
	kept := line[:i]
	if lossy {
		return string(repairBytes(kept)), i < len(line), true
	}
	return string(kept), i < len(line), false
}

// asciiPrefix returns the length of the longest prefix of b that is ASCII.
func asciiPrefix(b []byte) int {
	i := 0
	for ; i+8 <= len(b); i += 8 {
		if binary.LittleEndian.Uint64(b[i:])&0x8080808080808080 != 0 {
			break
		}
	}
	for i < len(b) && b[i] < utf8.RuneSelf {
		i++
	}
	return i
}

// Repair returns b as valid UTF-8: every byte that is not part of a valid UTF-8
// encoding becomes U+FFFD, one replacement per byte, as encoding/json and a Go
// range loop treat it (strings.ToValidUTF8, by contrast, merges runs). Valid
// input is returned unchanged. The result may be up to three times as long as b.
func Repair(b []byte) string {
	if utf8.Valid(b) {
		return string(b)
	}
	return string(repairBytes(b))
}

// repairBytes returns a copy of b with each invalid byte replaced by U+FFFD.
func repairBytes(b []byte) []byte {
	out := make([]byte, 0, len(b)+len(b)/2)
	start := 0
	eachInvalid(b, func(i int) {
		out = append(out, b[start:i]...)
		out = append(out, replacement...)
		start = i + 1
	})
	return append(out, b[start:]...)
}

// repairedLen returns len(Repair(b)) without building it.
func repairedLen(b []byte) int {
	n := len(b)
	eachInvalid(b, func(int) { n += len(replacement) - 1 })
	return n
}

// eachInvalid calls fn, in order, with the index of each byte of b that is
// not part of a valid UTF-8 character.
func eachInvalid(b []byte, fn func(i int)) {
	for i := 0; i < len(b); {
		if b[i] < utf8.RuneSelf {
			i++
			continue
		}
		r, size := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && size == 1 {
			fn(i)
		}
		i += size
	}
}

// PrefixWithin returns the length of the longest prefix of b that has at most
// n bytes and does not end inside a valid UTF-8 character: b[:PrefixWithin(b, n)].
// Bytes that are not part of a valid character are single units, so a cut may
// fall between them. The prefix is empty only when n ≤ 0, b is empty, or the
// first character of b is longer than n bytes (never when n ≥ utf8.UTFMax).
func PrefixWithin(b []byte, n int) int {
	if n >= len(b) {
		return len(b)
	}
	if n <= 0 {
		return 0
	}
	if j, _, ok := charAround(b, n); ok {
		return j
	}
	return n
}

// SuffixWithin returns the start of the longest suffix of b that has at most n
// bytes and does not begin inside a valid UTF-8 character: b[SuffixWithin(b, n):].
// The suffix is empty only when n ≤ 0, b is empty, or the last character of b
// is longer than n bytes (never when n ≥ utf8.UTFMax).
func SuffixWithin(b []byte, n int) int {
	if n >= len(b) {
		return 0
	}
	if n <= 0 {
		return len(b)
	}
	s := len(b) - n
	if j, size, ok := charAround(b, s); ok {
		return j + size
	}
	return s
}

// charAround reports whether offset i (0 < i < len(b)) falls inside a valid
// UTF-8 character of b, and if so where that character starts and its size.
func charAround(b []byte, i int) (start, size int, inside bool) {
	if utf8.RuneStart(b[i]) {
		return 0, 0, false // no valid character continues across i
	}
	for j := i - 1; j >= 0 && j > i-utf8.UTFMax; j-- {
		if !utf8.RuneStart(b[j]) {
			continue
		}
		// An invalid byte decodes with size 1, so only a valid character
		// can reach past i.
		if _, size := utf8.DecodeRune(b[j:]); j+size > i {
			return j, size, true
		}
		return 0, 0, false
	}
	return 0, 0, false
}

// CompletePrefix returns the length of b without a trailing incomplete UTF-8
// sequence that further bytes could still complete into a valid character.
// A streaming writer sends b[:CompletePrefix(b)] now and holds the rest (at
// most utf8.UTFMax-1 bytes) for the next chunk, so no chunk splits a character;
// at the end of the stream the held bytes are sent as they are (Repair turns
// them into U+FFFD).
func CompletePrefix(b []byte) int {
	for j := len(b) - 1; j >= 0 && j > len(b)-utf8.UTFMax; j-- {
		if utf8.RuneStart(b[j]) {
			if !utf8.FullRune(b[j:]) {
				return j
			}
			return len(b)
		}
	}
	return len(b)
}
