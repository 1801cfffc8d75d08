package lineedit

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/toolrpc/toolrpc/internal/sourceset"
	"github.com/toolrpc/toolrpc/internal/textenc"
)

// errChanged reports a file that ended before the line count its first
// pass found: it changed between the passes.
var errChanged = errors.New("the file changed while it was being edited")

// applied is what the second pass produced.
type applied struct {
	readBytes int64
	readSum   uint32 // CRC-32C of the old file as the second pass read it
	newSum    uint32
	newLines  int
}

// patcher is the state of one streaming pass: old lines in, new lines out.
type patcher struct {
	ctx     context.Context
	lr      *lineReader
	bw      *bufio.Writer
	v       *view // lines to show, or nil
	nl      string
	pending string // the ending of the last line written, held until we know it is not the last
	started bool
	newN    int
	oldN    int
	curLen  int // text bytes of the current line
	werr    error
}

func (p *patcher) write(b []byte) {
	if p.werr == nil {
		_, p.werr = p.bw.Write(b)
	}
}

func (p *patcher) writeString(s string) {
	if p.werr == nil {
		_, p.werr = p.bw.WriteString(s)
	}
}

// startLine ends the previous new line and starts the next.
func (p *patcher) startLine() {
	if p.started {
		if p.pending == "" {
			p.pending = p.nl // the old last line is no longer last
		}
		p.writeString(p.pending)
	}
	p.started = true
	p.newN++
	p.curLen = 0
}

// copyOld copies (keep) or skips old lines up to and including line upto
// (upto < 0: to the end of the file).
func (p *patcher) copyOld(upto int, keep bool) error {
	for upto < 0 || p.oldN < upto {
		if p.oldN%checkEvery == 0 && p.ctx.Err() != nil {
			return p.ctx.Err()
		}
		if _, err := p.lr.br.Peek(1); err != nil {
			if !errors.Is(err, io.EOF) {
				return err
			}
			if upto >= 0 {
				return errChanged
			}
			return nil
		}
		show := false
		if keep {
			p.startLine()
			if show = p.v != nil && p.v.wants(p.newN); show {
				p.v.begin()
			}
		}
		ending, _, err := p.lr.next(func(b []byte) {
			if keep {
				p.curLen += len(b)
				p.write(b)
				if show {
					p.v.piece(b)
				}
			}
		})
		if err != nil {
			return err
		}
		p.oldN++
		if keep {
			p.pending = ending
			if show {
				p.v.add(p.newN)
			}
		}
	}
	return nil
}

// insert writes one new line.
func (p *patcher) insert(l string) {
	p.startLine()
	p.curLen += len(l)
	p.writeString(l)
	p.pending = p.nl
	if p.v != nil && p.v.wants(p.newN) {
		p.v.begin()
		p.v.piece([]byte(l))
		p.v.add(p.newN)
	}
}

// apply streams the old file r to w with hunks applied (line numbers
// already checked against st), feeding v the lines it shows.
// The file is in enc: a UTF-16 file is patched as text (wideStreams), any
// other byte for byte with its BOM kept ahead of line 1 and hunks' lines
// already encoded.
func apply(ctx context.Context, r io.Reader, w io.Writer, st Stats, hunks []Hunk, v *view, enc *textenc.Encoding) (applied, error) {
	out := sourceset.NewHash()
	sink := io.MultiWriter(w, out)
	var raw *counter
	finish := func() error { return nil }
	if enc.Unit() == 2 {
		var err error
		if r, sink, raw, finish, err = wideStreams(r, sink, enc); err != nil {
			return applied{}, fmt.Errorf("write: %w", err)
		}
	}
	p := &patcher{
		ctx: ctx, v: v, nl: st.ending(),
		lr: &lineReader{br: bufio.NewReaderSize(r, bufBytes), h: sourceset.NewHash()},
		bw: bufio.NewWriterSize(sink, bufBytes),
	}
	if bom := enc.BOM(); raw == nil && len(bom) > 0 {
		if b, _ := p.lr.br.Peek(len(bom)); bytes.Equal(b, bom) {
			_, _ = p.lr.br.Discard(len(bom))
			p.lr.h.Write(bom)
			p.lr.n += int64(len(bom))
			p.write(bom)
		}
	}
	for _, h := range hunks {
		if err := p.copyOld(h.oldStart-1, true); err != nil {
			return applied{}, err
		}
		if err := p.copyOld(h.oldStart+h.oldCount-1, false); err != nil {
			return applied{}, err
		}
		for _, l := range h.lines {
			p.insert(l)
		}
	}
	if err := p.copyOld(-1, true); err != nil {
		return applied{}, err
	}
	if p.started && st.finalNewline {
		if p.pending == "" {
			p.pending = p.nl
		}
		p.writeString(p.pending)
	}
	if p.started && !st.finalNewline && p.curLen == 0 {
		// An empty last line without an ending is no line at all (SPEC §2):
		// the file now ends with the previous line's ending.
		if v != nil && len(v.whole) > 0 && v.whole[len(v.whole)-1] == p.newN {
			v.whole = v.whole[:len(v.whole)-1]
		}
		p.newN--
	}
	if p.werr == nil {
		p.werr = p.bw.Flush()
	}
	if p.werr == nil {
		p.werr = finish()
	}
	if p.werr != nil {
		return applied{}, fmt.Errorf("write: %w", p.werr)
	}
	ap := applied{readBytes: p.lr.n, readSum: p.lr.h.Sum32(), newSum: out.Sum32(), newLines: p.newN}
	if raw != nil {
		ap.readBytes, ap.readSum = raw.n, raw.h.Sum32()
	}
	return ap, nil
}
