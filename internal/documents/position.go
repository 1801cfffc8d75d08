package documents

import (
	"bytes"
	"fmt"
	"unicode/utf8"

	"github.com/toolrpc/toolrpc/internal/rope"
)

// Encoding is the unit an LSP position's character counts in (LSP 3.17
// positionEncoding).
type Encoding int

// The position encodings: UTF-16 code units (LSP's default), UTF-8 bytes,
// UTF-32 code points.
const (
	UTF16 Encoding = iota
	UTF8
	UTF32
)

// String returns the encoding's LSP name ("utf-16").
func (e Encoding) String() string {
	switch e {
	case UTF8:
		return "utf-8"
	case UTF32:
		return "utf-32"
	}
	return "utf-16"
}

// Negotiate picks the encoding of a session from the client's
// general.positionEncodings: utf-8 when offered, else utf-16 (offered, or
// nothing offered), else utf-32 when that alone is offered.
func Negotiate(offered []string) Encoding {
	has := map[string]bool{}
	for _, o := range offered {
		has[o] = true
	}
	switch {
	case has["utf-8"]:
		return UTF8
	case has["utf-16"] || !has["utf-32"]:
		return UTF16
	}
	return UTF32
}

// units is how many units of e the rune r (of UTF-8 width w) counts.
func (e Encoding) units(r rune, w int) int {
	switch e {
	case UTF8:
		return w
	case UTF16:
		if r >= 0x10000 {
			return 2
		}
	}
	return 1
}

// PositionError is a position that names no place in the text: a line past
// the last, or a UTF-16 character between the halves of a surrogate pair.
type PositionError struct{ Msg string }

// Error implements error.
func (e *PositionError) Error() string { return e.Msg }

// Offset returns the byte offset of the position (line, char), both 0-based,
// char counted in e. A char past the line's end means the end of the line
// (before its "\n" or "\r\n"), as LSP says.
func Offset(t rope.Text, line, char int, e Encoding) (int, error) {
	if line < 0 || char < 0 {
		return 0, &PositionError{fmt.Sprintf("position %d:%d is negative", line, char)}
	}
	start, ok := t.LineStart(line)
	if !ok {
		return 0, &PositionError{fmt.Sprintf("line %d is past the last line (%d)", line, t.Lines())}
	}
	// A char counts at least one byte per unit; four bytes a unit at most.
	b := t.Slice(start, start+4*char+4)
	if i := bytes.IndexByte(b, '\n'); i >= 0 {
		b = b[:i]
		if i > 0 && b[i-1] == '\r' {
			b = b[:i-1]
		}
	}
	n, i := 0, 0
	for n < char && i < len(b) {
		r, w := utf8.DecodeRune(b[i:])
		u := e.units(r, w)
		if n+u > char {
			return 0, &PositionError{fmt.Sprintf("position %d:%d splits a character (a lone surrogate)", line, char)}
		}
		n += u
		i += w
	}
	return start + i, nil
}

// Position returns the position of byte offset off (clamped to the text),
// char counted in e.
func Position(t rope.Text, off int, e Encoding) (line, char int) {
	off = max(0, min(off, t.Len()))
	line = t.LinesBefore(off)
	start, _ := t.LineStart(line)
	b := t.Slice(start, off)
	for i := 0; i < len(b); {
		r, w := utf8.DecodeRune(b[i:])
		char += e.units(r, w)
		i += w
	}
	return line, char
}
