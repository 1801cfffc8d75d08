package textenc

import (
	"bytes"
	"unicode/utf8"

	"github.com/saintfish/chardet"
)

// Confidence thresholds of the detector (0..100). Multi-byte legacy text
// scores 100 when its sequences are all valid and common; single-byte text
// scores far lower, so windows-1252 also has a rule of its own (latinLike).
var (
	minMultiByteConfidence  = 50
	minSingleByteConfidence = 30
)

// detected maps the detector's charset names to the encodings it may name.
var detected = map[string]*Encoding{
	"ISO-8859-1": Windows1252, "windows-1252": Windows1252,
	"Shift_JIS": ShiftJIS, "EUC-JP": EUCJP, "GB-18030": GB18030,
	"Big5": Big5, "EUC-KR": EUCKR,
}

// Detect returns the encoding of a file whose first bytes are head (atEOF:
// head is the whole file), or nil for UTF-8 without a BOM, which includes
// every file Detect is unsure of. A BOM decides. A head that is valid UTF-8
// (a sequence cut by the end of head aside) or holds a NUL byte is nil. Else
// a legacy encoding is named only when the detector is confident (for
// windows-1252: and the head holds no valid multi-byte UTF-8 sequence, the
// mark of damaged UTF-8), and decoding then re-encoding
// the head (up to its last newline, when not atEOF) gives it back exactly.
func Detect(head []byte, atEOF bool) *Encoding {
	if e := ByBOM(head); e != nil {
		return e
	}
	return DetectLegacy(head, atEOF)
}

// ByBOM returns the encoding the BOM at the start of head names, or nil.
func ByBOM(head []byte) *Encoding {
	switch {
	case bytes.HasPrefix(head, UTF8BOM.bom):
		return UTF8BOM
	case bytes.HasPrefix(head, UTF16LE.bom):
		return UTF16LE
	case bytes.HasPrefix(head, UTF16BE.bom):
		return UTF16BE
	}
	return nil
}

// DetectLegacy is Detect without the BOM rule: a legacy encoding or nil.
func DetectLegacy(head []byte, atEOF bool) *Encoding {
	whole := head // scored whole: its last line may be cut, but it tells most
	if !atEOF {
		if i := bytes.LastIndexByte(head, '\n'); i >= 0 {
			head = head[:i+1]
		} else {
			head = trimCut(head)
		}
	}
	if len(head) == 0 || bytes.IndexByte(whole, 0) >= 0 || utf8.Valid(head) && utf8.Valid(trimCut(whole)) {
		return nil
	}
	e := guess(whole)
	if e == nil || e == Windows1252 && hasUTF8Sequence(whole) {
		return nil
	}
	if _, exact := e.Decode(head); !exact {
		return nil
	}
	return e
}

// guess asks the detector for head's charset and applies the thresholds.
// Western European text (latinLike) is windows-1252 without asking: the
// detector costs milliseconds a file, and scores such text low anyway.
func guess(head []byte) *Encoding {
	if latinLike(head) {
		return Windows1252
	}
	r, err := chardet.NewTextDetector().DetectBest(head)
	if err == nil {
		e := detected[r.Charset]
		switch {
		case e == nil:
		case e == Windows1252 && r.Confidence >= minSingleByteConfidence && allLatin(head):
			return e
		case e != Windows1252 && r.Confidence >= minMultiByteConfidence:
			return e
		}
	}
	return nil
}

// latinLike reports text the detector has too little of to score: mostly
// printable ASCII, no C0 controls but tab, newline, carriage return and form
// feed, and every byte above 0x7f a letter or sign of windows-1252 standing
// next to an ASCII letter or another such byte (as in "café", "naïve").
func latinLike(b []byte) bool {
	high := 0
	for i, c := range b {
		switch {
		case c < 0x20 && c != '\t' && c != '\n' && c != '\r' && c != '\f', c == 0x7f:
			return false
		case c < 0x80:
			continue
		case !latinByte(c):
			return false
		}
		high++
		if !latinNeighbour(b, i-1) && !latinNeighbour(b, i+1) {
			return false
		}
	}
	return high > 0 && high*4 <= len(b) && allLatin(b)
}

// allLatin reports whether every byte of b above 0x7f is a latinByte, and
// they are few beside the ASCII letters (at most one in three), as in Western
// European text, never four in a row; Cyrillic or Greek in a single-byte
// code page is mostly such bytes, in runs.
func allLatin(b []byte) bool {
	high, letters, run := 0, 0, 0
	for _, c := range b {
		if c < 0x80 {
			run = 0
		}
		switch {
		case c >= 0x80 && !latinByte(c):
			return false
		case c >= 0x80:
			if run++; run >= 4 {
				return false // a word of such bytes: another script
			}
			high++
		case 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z':
			letters++
		}
	}
	return high*3 <= letters
}

// latinByte reports the bytes above 0x7f that Western European text uses:
// the accented letters (not ×, ÷, ÿ), common signs (€ £ § © « ° · » ¿ ¡),
// and windows-1252's quotes, dashes, ellipsis, Š š Œ œ Ž ž.
func latinByte(c byte) bool {
	switch {
	case c >= 0xc0 && c <= 0xfe && c != 0xd7 && c != 0xf7:
		return true
	}
	switch c {
	case 0x80, 0x85, 0x8a, 0x8c, 0x8e, 0x91, 0x92, 0x93, 0x94, 0x96, 0x97, 0x9a, 0x9c, 0x9e,
		0xa1, 0xa3, 0xa7, 0xa9, 0xab, 0xb0, 0xb7, 0xbb, 0xbf:
		return true
	}
	return false
}

func latinNeighbour(b []byte, i int) bool {
	if i < 0 || i >= len(b) {
		return false
	}
	c := b[i]
	return c >= 0xc0 || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || c == ' ' || c == '"' || c == '\'' || c >= 0x80 && c < 0xc0
}

// hasUTF8Sequence reports a valid multi-byte UTF-8 sequence in b: a file
// mixing them with invalid bytes is damaged UTF-8, not a legacy encoding.
func hasUTF8Sequence(b []byte) bool {
	for i := 0; i < len(b); {
		if b[i] < utf8.RuneSelf {
			i++
			continue
		}
		r, size := utf8.DecodeRune(b[i:])
		if r != utf8.RuneError && size > 1 {
			return true
		}
		i++
	}
	return false
}

// trimCut drops an incomplete multi-byte sequence at the end of b (at most
// three bytes, so a legacy double-byte character cut in half goes too).
func trimCut(b []byte) []byte {
	for k := 1; k <= 3 && k <= len(b); k++ {
		if b[len(b)-k] < utf8.RuneSelf {
			return b[:len(b)-k+1]
		}
	}
	return b
}
