package lineedit

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"hash"
	"io"
	"os"

	"github.com/toolrpc/toolrpc/internal/sourceset"
	"github.com/toolrpc/toolrpc/internal/textenc"
	"github.com/toolrpc/toolrpc/walk"
)

// Edits keep a file's encoding (SPEC §4.1). UTF-8 with a BOM and the
// ASCII-compatible legacy encodings are patched byte for byte: the BOM is
// copied ahead of line 1, old lines are copied as they are, and new lines
// are encoded before any byte is written. UTF-16 is patched as text: the
// file is decoded on the way in and encoded on the way out, which is
// byte-exact only for a file whose bytes decode and encode back exactly, so
// the first pass checks that and refuses any other.

// fileEncoding returns the encoding of the open file f (walk.SniffText),
// nil for UTF-8 without a BOM and for a file the sniff calls binary.
func fileEncoding(f *os.File) *textenc.Encoding {
	enc, _ := fileEncodingOf(f)
	return enc
}

// fileEncodingOf is fileEncoding that also reports a file the sniff calls
// binary.
func fileEncodingOf(f *os.File) (enc *textenc.Encoding, binary bool) {
	enc, binary, _, err := walk.SniffFileText(f)
	if err != nil || binary {
		return nil, binary
	}
	return enc, false
}

// counter counts and hashes what is written to it.
type counter struct {
	h hash.Hash32
	n int64
}

func (c *counter) Write(p []byte) (int, error) {
	c.h.Write(p)
	c.n += int64(len(p))
	return len(p), nil
}

// scanEnc is Scan for a file in enc: size and sum are the file's bytes',
// the line stats its text's (after the BOM). For UTF-16 it also checks that
// the text encodes back to exactly the file's bytes; exact is false when not.
func scanEnc(ctx context.Context, r io.Reader, enc *textenc.Encoding) (st Stats, exact bool, err error) {
	if enc == nil {
		st, err = Scan(ctx, r)
		return st, true, err
	}
	raw := &counter{h: sourceset.NewHash()}
	tee := io.TeeReader(r, raw)
	bom := make([]byte, len(enc.BOM()))
	n, _ := io.ReadFull(tee, bom)
	body := io.Reader(tee)
	if !bytes.Equal(bom[:n], enc.BOM()) {
		body = io.MultiReader(bytes.NewReader(bom[:n]), tee) // a BOM-less file named by its writer
	}
	back := &counter{h: sourceset.NewHash()}
	back.Write(enc.BOM())
	var ew io.WriteCloser
	if enc.Unit() == 2 {
		ew = enc.Writer(back)
		body = io.TeeReader(enc.Reader(body), ew)
	}
	st, err = Scan(ctx, body)
	if err != nil {
		return Stats{}, false, err
	}
	exact = true
	if ew != nil {
		exact = ew.Close() == nil && back.n == raw.n && back.h.Sum32() == raw.h.Sum32()
	}
	st.size, st.sum = raw.n, raw.h.Sum32()
	return st, exact, nil
}

// encodeHunks returns hunks with their new lines in enc's bytes, for the
// byte-for-byte patch (UTF-16 is encoded on the way out instead). A line enc
// cannot represent is an Unencodable refusal naming the character.
func encodeHunks(name string, enc *textenc.Encoding, hunks []Hunk) ([]Hunk, error) {
	if enc == nil || !enc.Transcoded() {
		return hunks, nil
	}
	out := make([]Hunk, len(hunks))
	for i, h := range hunks {
		out[i] = h
		out[i].lines = make([]string, len(h.lines))
		for j, l := range h.lines {
			b, err := enc.Encode(l)
			if err != nil {
				return nil, unencodable("edit", name, err)
			}
			out[i].lines[j] = string(b)
		}
		if enc.Unit() == 2 {
			out[i].lines = h.lines
		}
	}
	return out, nil
}

// unencodable is the refusal of text the file's encoding cannot represent.
func unencodable(tool, name string, err error) error {
	var ue *textenc.UnrepresentableError
	if errors.As(err, &ue) {
		return &Error{Refusal: Unencodable,
			Msg: fmt.Sprintf("%s %s: %v; the file is unchanged (use characters %s has, or tools/write with another encoding)", tool, name, ue, ue.Encoding)}
	}
	return fmt.Errorf("%s %s: %w", tool, name, err)
}

// notExact is the refusal of a UTF-16 file that does not decode and encode
// back to the same bytes.
func notExact(name string, enc *textenc.Encoding) error {
	return &Error{Refusal: Unencodable,
		Msg: fmt.Sprintf("edit %s: the file is %s but holds bytes that are not valid %s (a lone surrogate or an odd length); it cannot be edited without changing them, so nothing was written",
			name, enc.Name(), enc.Name())}
}

// wideStreams wraps the old file r and the replacement w of a UTF-16 edit:
// the patcher reads r's text and writes w's text; raw counts and hashes r's
// bytes, and finish flushes the encoder.
func wideStreams(r io.Reader, w io.Writer, enc *textenc.Encoding) (text io.Reader, out io.Writer, raw *counter, finish func() error, err error) {
	raw = &counter{h: sourceset.NewHash()}
	tee := io.TeeReader(r, raw)
	bom := make([]byte, len(enc.BOM()))
	n, _ := io.ReadFull(tee, bom)
	var body io.Reader = tee
	if !bytes.Equal(bom[:n], enc.BOM()) {
		body = io.MultiReader(bytes.NewReader(bom[:n]), tee)
	}
	if _, err := w.Write(enc.BOM()); err != nil {
		return nil, nil, nil, nil, err
	}
	ew := enc.Writer(w)
	return enc.Reader(body), ew, raw, ew.Close, nil
}
