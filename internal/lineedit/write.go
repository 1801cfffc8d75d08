package lineedit

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/toolrpc/toolrpc/internal/atomicfile"
	"github.com/toolrpc/toolrpc/internal/beneath"
	"github.com/toolrpc/toolrpc/internal/cut"
	"github.com/toolrpc/toolrpc/internal/sourceset"
	"github.com/toolrpc/toolrpc/internal/textenc"
	"github.com/toolrpc/toolrpc/wire"
)

// Modes of what Write creates; private ones are for the session's scratch dir.
const (
	fileMode        fs.FileMode = 0o644
	dirMode         fs.FileMode = 0o755
	privateFileMode fs.FileMode = 0o600
	privateDirMode  fs.FileMode = 0o700
)

// Write creates or replaces abs (called name in messages) with content,
// atomically, creating missing parent directories (private ones, and a
// private file, when private is set). An existing file keeps its mode.
// Content shaped like a Read result is stripped back to the file's text with
// the replaced file's line endings and final newline (see ReadShape). The new
// version's tag is forgotten in sources: an older version with that tag says
// nothing of it. The result is whole but Root, which the caller knows (Path
// is name). A refusal is an *Error.
func Write(ctx context.Context, abs, name, content string, private bool, sources *sourceset.Set) (*wire.WriteResult, error) {
	return WriteEncoded(ctx, abs, name, content, "", private, sources)
}

// WriteEncoded is Write in the encoding label names (textenc.Lookup; with
// its BOM, if it has one); "" keeps the existing file's encoding, and a new
// file is UTF-8. Content the encoding cannot represent is an Unencodable
// refusal naming the character, and nothing is written (SPEC §4.1).
func WriteEncoded(ctx context.Context, abs, name, content, label string, private bool, sources *sourceset.Set) (*wire.WriteResult, error) {
	fi, err := os.Stat(abs)
	switch {
	case err == nil && fi.IsDir():
		return nil, &Error{Refusal: IsDirectory, Msg: fmt.Sprintf("write %s: is a directory", name)}
	case err == nil && !fi.Mode().IsRegular():
		return nil, &Error{Refusal: NotRegular, Msg: fmt.Sprintf("write %s: not a regular file", name)}
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("write %s: %w", name, err)
	}
	exists := err == nil
	enc, err := writeEncoding(abs, label, exists)
	if err != nil {
		return nil, &Error{Refusal: BadEncoding, Msg: fmt.Sprintf("write %s: %v", name, err)}
	}
	text, notice := unshape(ctx, abs, content, exists)
	body, err := enc.Encode(string(text))
	if err != nil {
		return nil, unencodable("write", name, err)
	}
	data := append(append([]byte(nil), enc.BOM()...), body...)
	if err := create(ctx, abs, name, data, fi, private); err != nil {
		return nil, err
	}
	tag := sourceset.TagOf(data)
	sources.Forget(abs, tag)
	return &wire.WriteResult{Path: name, Tag: tag, FileBytes: len(data), TotalLines: cut.CountLines(text), Created: !exists, Notice: notice, Encoding: enc.Label()}, nil
}

// writeEncoding returns the encoding a write uses: label's, else the
// existing file's, else UTF-8 (nil).
func writeEncoding(abs, label string, exists bool) (*textenc.Encoding, error) {
	if label != "" {
		return textenc.Lookup(label)
	}
	if !exists {
		return nil, nil
	}
	f, err := beneath.Open(abs, os.O_RDONLY, 0)
	if err != nil {
		return nil, nil // create reports the error
	}
	defer f.Close()
	return fileEncoding(f), nil
}

// unshape returns the bytes to write for content and a notice when content
// was a Read result.
func unshape(ctx context.Context, abs, content string, exists bool) ([]byte, string) {
	lines, first, ok := ReadShape(content)
	if !ok {
		return []byte(content), ""
	}
	ending, final := "\n", true
	if exists {
		if f, err := beneath.Open(abs, os.O_RDONLY, 0); err == nil {
			st, _, serr := scanEnc(ctx, f, fileEncoding(f))
			f.Close()
			if serr == nil && st.lines > 0 {
				ending, final = st.ending(), st.finalNewline
			}
		}
	}
	return reshape(lines, first, ending, final)
}

// reshape joins the lines of a Read-shaped content (from line first) with
// ending, and a final one when final is set.
func reshape(lines []string, first int, ending string, final bool) ([]byte, string) {
	var b bytes.Buffer
	for i, l := range lines {
		b.WriteString(l)
		if i < len(lines)-1 || final {
			b.WriteString(ending)
		}
	}
	if len(lines) == 0 {
		return b.Bytes(), "Content was the header of an empty Read result: wrote an empty file."
	}
	return b.Bytes(), fmt.Sprintf("Content looked like a Read result: stripped its header and line-number prefixes (lines %d-%d) and wrote the text.",
		first, first+len(lines)-1)
}

// create writes data to abs atomically: a replacement of the existing file
// fi, or a new file in (new) parent directories.
func create(ctx context.Context, abs, name string, data []byte, fi fs.FileInfo, private bool) error {
	if err := ctx.Err(); err != nil { // a cancelled call touches no file
		return fmt.Errorf("write %s: cancelled; nothing was written: %w", name, err)
	}
	fm, dm := fileMode, dirMode
	if private {
		fm, dm = privateFileMode, privateDirMode
	}
	// abs has every symlink resolved (the file tools resolve it before the
	// sandbox's check): its directory is opened, or made, through no
	// symlink and held, so the file lands where it was checked even if a
	// directory on the way is swapped for a symlink meanwhile (SPEC §14).
	var dir *beneath.Dir
	var err error
	if fi != nil {
		dir, err = beneath.OpenDirNoFollow(filepath.Dir(abs))
	} else {
		dir, err = beneath.MkdirAll(filepath.Dir(abs), dm)
	}
	if err != nil {
		return fmt.Errorf("write %s: create parent directories: %w", name, err)
	}
	defer dir.Close()
	var af *atomicfile.File
	if fi != nil {
		af, err = atomicfile.ReplaceIn(dir, filepath.Base(abs), fi)
	} else {
		af, err = atomicfile.CreateIn(dir, filepath.Base(abs), fm)
	}
	if err != nil {
		return fmt.Errorf("write %s: %w", name, err)
	}
	defer af.Abort()
	if _, err := af.Write(data); err != nil {
		return fmt.Errorf("write %s: %w", name, err)
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("write %s: cancelled; the file is unchanged: %w", name, err)
	}
	if err := af.Commit(); err != nil {
		return fmt.Errorf("write %s: %w", name, err)
	}
	return nil
}

var readHeader = regexp.MustCompile(`^\[.+#([0-9a-f]{4})\]$`)

// ReadShape reports whether content is a Read result's content: an
// optional [path#TAG] header, then lines that each carry an N: prefix with N
// rising by one. It returns the lines without their prefixes and the first
// line number. A lone header is Read-shaped only with the empty file's tag.
func ReadShape(content string) (lines []string, first int, ok bool) {
	if content == "" {
		return nil, 0, false
	}
	all := strings.Split(strings.TrimSuffix(content, "\n"), "\n")
	header := readHeader.FindStringSubmatch(all[0])
	if header != nil {
		all = all[1:]
		if len(all) == 0 || len(all) == 1 && all[0] == "" {
			return nil, 0, header[1] == sourceset.TagOf(nil)
		}
	}
	lines = make([]string, len(all))
	for i, l := range all {
		colon := strings.IndexByte(l, ':')
		if colon < 1 {
			return nil, 0, false
		}
		n, err := strconv.Atoi(l[:colon])
		if err != nil || l[0] == '+' || l[0] == '-' {
			return nil, 0, false
		}
		if i == 0 {
			first = n
		} else if n != first+i {
			return nil, 0, false
		}
		lines[i] = l[colon+1:]
	}
	return lines, first, true
}
