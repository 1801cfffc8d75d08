package textenc

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/encoding/japanese"
	"golang.org/x/text/encoding/korean"
	"golang.org/x/text/encoding/simplifiedchinese"
	"golang.org/x/text/encoding/traditionalchinese"
	"golang.org/x/text/encoding/unicode"
	"golang.org/x/text/transform"
)

// Encoding is a text file's encoding other than UTF-8 without a BOM. It is
// immutable and safe for concurrent use.
type Encoding struct {
	name string // WHATWG label
	bom  []byte
	unit int // bytes per code unit of a line ending: 1, or 2 for UTF-16
	be   bool
	enc  encoding.Encoding // nil for UTF-8 with a BOM
}

// The encodings Detect and Lookup return.
var (
	UTF8BOM     = &Encoding{name: "utf-8", bom: []byte{0xef, 0xbb, 0xbf}, unit: 1}
	UTF16LE     = &Encoding{name: "utf-16le", bom: []byte{0xff, 0xfe}, unit: 2, enc: unicode.UTF16(unicode.LittleEndian, unicode.IgnoreBOM)}
	UTF16BE     = &Encoding{name: "utf-16be", bom: []byte{0xfe, 0xff}, unit: 2, be: true, enc: unicode.UTF16(unicode.BigEndian, unicode.IgnoreBOM)}
	Windows1252 = &Encoding{name: "windows-1252", unit: 1, enc: charmap.Windows1252}
	ShiftJIS    = &Encoding{name: "shift_jis", unit: 1, enc: japanese.ShiftJIS}
	EUCJP       = &Encoding{name: "euc-jp", unit: 1, enc: japanese.EUCJP}
	GB18030     = &Encoding{name: "gb18030", unit: 1, enc: simplifiedchinese.GB18030}
	GBK         = &Encoding{name: "gbk", unit: 1, enc: simplifiedchinese.GBK}
	Big5        = &Encoding{name: "big5", unit: 1, enc: traditionalchinese.Big5}
	EUCKR       = &Encoding{name: "euc-kr", unit: 1, enc: korean.EUCKR}
)

// labels maps the labels Lookup accepts (lower case) to encodings: the
// WHATWG names and their common aliases.
var labels = map[string]*Encoding{
	"utf-8": nil, "utf8": nil, "utf-8-bom": UTF8BOM, "utf-8 bom": UTF8BOM, "utf-8-sig": UTF8BOM,
	"utf-16le": UTF16LE, "utf-16": UTF16LE, "utf-16be": UTF16BE,
	"windows-1252": Windows1252, "cp1252": Windows1252, "iso-8859-1": Windows1252, "latin1": Windows1252, "l1": Windows1252,
	"shift_jis": ShiftJIS, "shift-jis": ShiftJIS, "sjis": ShiftJIS, "ms932": ShiftJIS, "windows-31j": ShiftJIS,
	"euc-jp": EUCJP, "gb18030": GB18030, "gbk": GBK, "cp936": GBK, "gb2312": GBK,
	"big5": Big5, "big5-hkscs": Big5, "euc-kr": EUCKR, "cp949": EUCKR, "ks_c_5601-1987": EUCKR,
}

// Lookup returns the encoding a label names (case-insensitive; "utf-8" is
// nil, UTF-8 without a BOM; "utf-8-bom" is UTF8BOM; "utf-16" is UTF-16LE
// with a BOM). An unknown label is an error listing the known ones.
func Lookup(label string) (*Encoding, error) {
	e, ok := labels[strings.ToLower(strings.TrimSpace(label))]
	if !ok {
		return nil, fmt.Errorf("unknown encoding %q (known: utf-8, utf-8-bom, utf-16le, utf-16be, windows-1252, shift_jis, euc-jp, gb18030, gbk, big5, euc-kr)", label)
	}
	return e, nil
}

// Name returns the WHATWG label of e; "utf-8" for nil.
func (e *Encoding) Name() string {
	if e == nil {
		return "utf-8"
	}
	return e.name
}

// Label returns the label a result reports: "" for nil (UTF-8 without a
// BOM), else Name.
func (e *Encoding) Label() string {
	if e == nil {
		return ""
	}
	return e.name
}

// BOM returns the byte-order mark a file in e starts with (nil for none).
// The caller must not modify it.
func (e *Encoding) BOM() []byte {
	if e == nil {
		return nil
	}
	return e.bom
}

// Unit returns the width in bytes of the code unit "\n" is: 2 for UTF-16,
// else 1.
func (e *Encoding) Unit() int {
	if e == nil {
		return 1
	}
	return e.unit
}

// BigEndian reports UTF-16BE.
func (e *Encoding) BigEndian() bool { return e != nil && e.be }

// Transcoded reports whether e's bytes differ from UTF-8's (every encoding
// but UTF-8 with or without a BOM).
func (e *Encoding) Transcoded() bool { return e != nil && e.enc != nil }

// Describe returns the notice phrase for a file in e, e.g. "The file is
// windows-1252 (detected), shown decoded; edits keep that encoding."; ""
// for nil.
func (e *Encoding) Describe() string {
	switch {
	case e == nil:
		return ""
	case e.enc == nil:
		return "The file is UTF-8 with a byte-order mark (not shown); edits keep it."
	case e.bom != nil:
		return fmt.Sprintf("The file is %s (byte-order mark), shown decoded; edits keep that encoding.", e.name)
	}
	return fmt.Sprintf("The file is %s (detected), shown decoded; edits keep that encoding.", e.name)
}

// Decode returns the text of b, bytes of a file in e without its BOM (UTF-16
// of whole units; an odd trailing byte decodes as U+FFFD). exact reports that
// encoding the text gives back b; when it is false, text holds U+FFFD or
// characters that encode differently, and must not be editable.
func (e *Encoding) Decode(b []byte) (text string, exact bool) {
	if e == nil || e.enc == nil {
		if utf8.Valid(b) {
			return string(b), true
		}
		return strings.ToValidUTF8(string(b), "\uFFFD"), false
	}
	if e.unit == 1 && isASCII(b) {
		return string(b), true // every legacy encoding here is ASCII compatible
	}
	out, err := e.enc.NewDecoder().Bytes(b)
	if err != nil {
		return strings.ToValidUTF8(string(out), "\uFFFD"), false
	}
	back, err := e.enc.NewEncoder().Bytes(out)
	return string(out), err == nil && bytes.Equal(back, b)
}

// UnrepresentableError is text that an encoding cannot represent.
type UnrepresentableError struct {
	Char     rune
	Encoding string
}

func (e *UnrepresentableError) Error() string {
	return fmt.Sprintf("%q (U+%04X) cannot be written in %s", e.Char, e.Char, e.Encoding)
}

// Encode returns the bytes of text in e (no BOM). Text e cannot represent is
// an *UnrepresentableError naming the first such character; so is invalid
// UTF-8 in text for a transcoded e.
func (e *Encoding) Encode(text string) ([]byte, error) {
	if e == nil || e.enc == nil || (e.unit == 1 && isASCII([]byte(text))) {
		return []byte(text), nil
	}
	out, err := e.enc.NewEncoder().Bytes([]byte(text))
	if err == nil {
		return out, nil
	}
	if !errors.Is(err, encoding.ErrInvalidUTF8) && !isRepertoire(err) {
		return nil, fmt.Errorf("encode %s: %w", e.name, err)
	}
	return nil, &UnrepresentableError{Char: firstUnrepresentable(e, text), Encoding: e.name}
}

// isRepertoire reports x/text's "rune not supported by encoding" error.
func isRepertoire(err error) bool {
	return strings.Contains(err.Error(), "not supported")
}

// firstUnrepresentable finds the character of text that e cannot encode.
func firstUnrepresentable(e *Encoding, text string) rune {
	enc := e.enc.NewEncoder()
	for _, r := range text {
		if r == utf8.RuneError {
			return r
		}
		if _, err := enc.String(string(r)); err != nil {
			return r
		}
	}
	return utf8.RuneError
}

func isASCII(b []byte) bool {
	for _, c := range b {
		if c >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// Reader returns a reader of the UTF-8 text of r, bytes of a file in e
// without its BOM (invalid input decodes as U+FFFD). For UTF-8 with or
// without a BOM it returns r.
func (e *Encoding) Reader(r io.Reader) io.Reader {
	if e == nil || e.enc == nil {
		return r
	}
	return e.enc.NewDecoder().Reader(r)
}

// Writer returns a writer that encodes UTF-8 text into w in e (no BOM);
// Close flushes it and must be called. Text e cannot represent fails the
// write. For UTF-8 it passes the text through.
func (e *Encoding) Writer(w io.Writer) io.WriteCloser {
	if e == nil || e.enc == nil {
		return nopCloser{w}
	}
	return transform.NewWriter(w, e.enc.NewEncoder())
}

type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }

// AppendText appends the text of b (as Decode decodes it) to dst, without
// Decode's exactness check: for matching, not for editing.
func (e *Encoding) AppendText(dst, b []byte) []byte {
	if e == nil || e.enc == nil || e.unit == 1 && isASCII(b) {
		return append(dst, b...)
	}
	out, err := e.enc.NewDecoder().Bytes(b)
	if err != nil {
		return append(dst, strings.ToValidUTF8(string(out), "\uFFFD")...)
	}
	return append(dst, out...)
}
