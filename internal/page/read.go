package page

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"unicode/utf8"

	"github.com/toolrpc/toolrpc/internal/beneath"
	"github.com/toolrpc/toolrpc/internal/lineindex"
	"github.com/toolrpc/toolrpc/internal/sourceset"
	"github.com/toolrpc/toolrpc/internal/textenc"
	"github.com/toolrpc/toolrpc/limits"
	"github.com/toolrpc/toolrpc/walk"
	"github.com/toolrpc/toolrpc/wire"
)

// linePrefix is how many bytes of a line Read looks at: enough for
// MaxLineChars+1 whole characters however wide, so a longer line is always
// seen to be clipped and the character cut by the prefix is never shown.
const linePrefix = utf8.UTFMax * (limits.MaxLineChars + 2)

// Read returns limit lines of the text file abs (called name in messages;
// asked is the path the caller gave) starting at line offset, bounded by
// limits.SearchBudgetBytes and SearchBudgetLines, with long lines clipped.
// Every line shown whole joins sources. The line index comes from cache. A
// file rewritten while it is read is read again, up to
// limits.ReadChangedRetries times. It fills the wire result whole but Root,
// which the caller's resolution of the path knows (Path is name). A refusal is
// an *Error.
func Read(ctx context.Context, abs, name, asked string, offset, limit int64, cache *lineindex.Cache, sources *sourceset.Set) (*wire.ReadResult, error) {
	return ReadChecked(ctx, abs, name, asked, offset, limit, cache, sources, nil)
}

// ReadChecked is Read whose open file is judged by check (nil: none) before
// a byte of it is read: the sandbox's judgement of what was opened, under
// whatever name (SPEC §14). check's error is returned as it is.
func ReadChecked(ctx context.Context, abs, name, asked string, offset, limit int64, cache *lineindex.Cache, sources *sourceset.Set, check func(*os.File) error) (*wire.ReadResult, error) {
	// Stat first so a FIFO or device is refused before an open could block.
	fi, err := os.Stat(abs)
	if err != nil {
		return nil, openError(name, err)
	}
	if err := checkMode(name, fi); err != nil {
		return nil, err
	}
	for _, n := range []string{asked, abs} {
		if reason := walk.NameReason(n); reason != "" {
			return nil, binary(name, fi.Size(), reason)
		}
	}
	// O_NONBLOCK: should the path have become a FIFO since the Stat, the open
	// still returns at once and the Fstat below refuses it.
	// abs has every symlink resolved: it is opened through none, so what
	// is read is what the sandbox checked (SPEC §14).
	f, err := beneath.Open(abs, os.O_RDONLY|oNonblock, 0)
	if err != nil {
		return nil, openError(name, err)
	}
	defer f.Close()
	if check != nil {
		if err := check(f); err != nil {
			return nil, err
		}
	}
	if fi, err = f.Stat(); err != nil {
		return nil, fmt.Errorf("read %s: %w", name, err)
	}
	if err := checkMode(name, fi); err != nil {
		return nil, err
	}
	ix, w, err := scan(ctx, f, fi, name, offset, limit, cache)
	if err != nil {
		return nil, err
	}
	res := w.result(abs, name, offset, ix, sources)
	res.Encoding = w.enc.Label()
	return res, nil
}

// result is the filled window w of version ix of abs as a Read result; the
// lines it shows whole join sources.
func (w *window) result(abs, name string, offset int64, ix *lineindex.Index, sources *sourceset.Set) *wire.ReadResult {
	w.flushRun()
	tag := sourceset.TagSum(ix.CRC)
	for _, r := range w.runs {
		sources.Add(abs, tag, int(r[0]), int(r[1]))
	}
	return &wire.ReadResult{
		Path: name, Content: w.content.String(), Tag: tag, Offset: offset, LineCount: w.count,
		TotalLines: ix.Lines, FileBytes: ix.Size,
		Truncated:    w.stopped || len(w.clipped) > 0,
		ClippedLines: w.clipped,
		Notice:       w.notice(ix.Lines),
	}
}

// scan indexes the open file and fills the window. The index, the window and
// the bytes must all come from one version of the file: a rewrite in place
// during the pass or the scan shows up as a changed size, mtime or ctime of
// the open file, and the attempt is redone.
func scan(ctx context.Context, f *os.File, fi fs.FileInfo, name string, offset, limit int64, cache *lineindex.Cache) (*lineindex.Index, *window, error) {
	for attempt := 0; ; attempt++ {
		enc, isBinary, reason, err := walk.SniffFileText(f)
		if err != nil {
			return nil, nil, fmt.Errorf("read %s: %w", name, err)
		}
		if isBinary {
			return nil, nil, binary(name, fi.Size(), reason)
		}
		ix, src, cut, err := index(ctx, f, fi, cache, form(enc))
		if err != nil {
			return nil, nil, fmt.Errorf("read %s: %w", name, err)
		}
		w := newWindow(name, sourceset.TagSum(ix.CRC), offset, limit)
		w.enc = enc
		w.unsizedCut = cut
		if err := ix.Scan(ctx, src, offset, linePrefix, w.add); err != nil {
			return nil, nil, fmt.Errorf("read %s: %w", name, err)
		}
		after, err := f.Stat()
		if err != nil {
			return nil, nil, fmt.Errorf("read %s: %w", name, err)
		}
		if sameVersion(fi, after) {
			return ix, w, nil
		}
		if attempt+1 >= limits.ReadChangedRetries {
			return nil, nil, &Error{Refusal: Changing,
				Msg: fmt.Sprintf("read %s: the file kept changing while it was read (%d attempts); read it again", name, limits.ReadChangedRetries)}
		}
		fi = after
	}
}

// index returns the line index of the open file and what to scan it from:
// the file itself, through the identity-keyed cache; or, for a regular file
// whose stat size is 0 (a /proc file), a snapshot read to its end (up to
// limits.UnsizedFileMaxBytes; cut reports a longer file), never cached
// (SPEC §4).
func index(ctx context.Context, f *os.File, fi fs.FileInfo, cache *lineindex.Cache, form lineindex.Form) (ix *lineindex.Index, src io.ReaderAt, cut bool, err error) {
	if fi.Size() != 0 {
		ix, err = cache.IndexForm(ctx, f, fi, form)
		return ix, f, false, err
	}
	data, cut, err := lineindex.ReadUnsized(f, limits.UnsizedFileMaxBytes)
	if err != nil {
		return nil, nil, false, err
	}
	ix, err = lineindex.BuildForm(ctx, bytes.NewReader(data), form)
	return ix, bytes.NewReader(data), cut, err
}

// form returns how the lines of a file in enc end.
func form(enc *textenc.Encoding) lineindex.Form {
	switch {
	case enc.Unit() == 1:
		return lineindex.Bytes
	case enc.BigEndian():
		return lineindex.UTF16BE
	}
	return lineindex.UTF16LE
}

// checkMode refuses directories and anything that is not a regular file.
func checkMode(name string, fi fs.FileInfo) error {
	switch m := fi.Mode(); {
	case m.IsDir():
		return &Error{Refusal: IsDirectory, Msg: fmt.Sprintf("read %s: is a directory", name)}
	case !m.IsRegular():
		return &Error{Refusal: NotRegular, FileType: fileType(m),
			Msg: fmt.Sprintf("read %s: not a regular file (%s); only regular files can be read", name, fileType(m))}
	}
	return nil
}

func fileType(m fs.FileMode) string {
	switch {
	case m&fs.ModeNamedPipe != 0:
		return "named pipe"
	case m&fs.ModeCharDevice != 0:
		return "character device"
	case m&fs.ModeDevice != 0:
		return "block device"
	case m&fs.ModeSocket != 0:
		return "socket"
	}
	return "irregular file"
}

func binary(name string, size int64, reason string) error {
	return &Error{Refusal: Binary, Reason: reason, Size: size,
		Msg: fmt.Sprintf("read %s: binary content (%s)", name, reason)}
}

func openError(name string, err error) error {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return &Error{Refusal: NotFound, Msg: fmt.Sprintf("read %s: no such file", name)}
	case errors.Is(err, fs.ErrPermission):
		return &Error{Refusal: PermissionDenied, Msg: fmt.Sprintf("read %s: %v", name, errors.Unwrap(err))}
	}
	return fmt.Errorf("read %s: %w", name, err)
}

// sameVersion reports whether two stats of one open file show the same
// version: same size, modification time and status-change time.
func sameVersion(a, b fs.FileInfo) bool {
	if a.Size() != b.Size() || !a.ModTime().Equal(b.ModTime()) {
		return false
	}
	ca, okA := lineindex.ChangeTime(a)
	cb, okB := lineindex.ChangeTime(b)
	return okA == okB && ca == cb // Windows has no change time: size and mtime decide
}
