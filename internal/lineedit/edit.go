package lineedit

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/toolrpc/toolrpc/internal/atomicfile"
	"github.com/toolrpc/toolrpc/internal/beneath"
	"github.com/toolrpc/toolrpc/internal/sourceset"
	"github.com/toolrpc/toolrpc/internal/textenc"
	"github.com/toolrpc/toolrpc/limits"
	"github.com/toolrpc/toolrpc/wire"
)

// Edit applies hunks to the file abs (called name in messages), all or
// nothing and atomically, if its tag is still tag and every line the hunks
// touch was shown whole in that version (sources). The lines of the new
// version that were shown, and those the result shows whole, join sources
// under the new tag. A refusal is an *Error; a cancelled ctx leaves the file
// unchanged and returns an error wrapping the context's. The result (Path is
// name) shows each changed region with limits.EditContextLines lines of
// context, in Read's format, bounded by limits.SearchBudgetBytes and
// SearchBudgetLines.
func Edit(ctx context.Context, abs, name, tag string, hunks []Hunk, sources *sourceset.Set) (*wire.EditResult, error) {
	f, fi, err := openRegular(abs, name, "edit")
	if err != nil {
		return nil, err
	}
	defer f.Close()
	enc := fileEncoding(f)
	st, exact, err := scanEnc(ctx, f, enc)
	if err != nil {
		return nil, fmt.Errorf("edit %s: read: %w", name, err)
	}
	if cur := sourceset.TagSum(st.sum); cur != tag {
		return nil, &Error{Refusal: Stale, Tag: cur,
			Msg: fmt.Sprintf("edit %s: tag %s is stale; the file's tag is now %s: Read it again", name, tag, cur)}
	}
	if !exact {
		return nil, notExact(name, enc)
	}
	if err := checkHunks(abs, name, tag, st, hunks, sources); err != nil {
		return nil, err
	}
	shown := hunks
	if hunks, err = encodeHunks(name, enc, hunks); err != nil {
		return nil, err
	}
	newTotal := st.lines
	for _, h := range hunks {
		newTotal += len(h.lines) - h.oldCount
	}
	v := &view{show: showRanges(hunks, newTotal)}
	if enc.Unit() == 1 && enc.Transcoded() {
		v.enc = enc // the view sees the file's bytes
	}
	ap, err := rewrite(ctx, f, fi, abs, name, st, hunks, v, enc)
	if err != nil {
		return nil, err
	}
	res := editedResult(name, ap, v)
	moveSources(abs, tag, res.Tag, shown, v, sources)
	return res, nil
}

// editedResult returns the result of the edit ap applied, v its view.
func editedResult(name string, ap applied, v *view) *wire.EditResult {
	newTag := sourceset.TagSum(ap.newSum)
	return &wire.EditResult{
		Path:         name,
		Tag:          newTag,
		Content:      "[" + name + "#" + newTag + "]\n" + v.content.String(),
		TotalLines:   ap.newLines,
		ClippedLines: v.clipped,
		Notice:       v.notice(),
	}
}

// moveSources moves the source set of abs from version tag to the edited
// version newTag: the old lines renumbered by shown, the lines v showed
// added.
func moveSources(abs, tag, newTag string, shown []Hunk, v *view, sources *sourceset.Set) {
	shifted := Shift(sources.Spans(abs, tag), shown)
	sources.Forget(abs, tag)
	sources.Forget(abs, newTag) // a colliding older version's lines say nothing of this one
	for _, sp := range shifted {
		sources.Add(abs, newTag, sp.From, sp.To)
	}
	for _, n := range v.whole {
		sources.Add(abs, newTag, n, n)
	}
}

// openRegular opens the regular file abs for tool.
// abs has every symlink resolved: it is opened through none (SPEC §14).
func openRegular(abs, name, tool string) (*os.File, fs.FileInfo, error) {
	f, err := beneath.Open(abs, os.O_RDONLY, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, &Error{Refusal: NotFound, Msg: fmt.Sprintf("%s %s: no such file", tool, name)}
	}
	if err != nil {
		return nil, nil, fmt.Errorf("%s %s: %w", tool, name, err)
	}
	fi, err := f.Stat()
	switch {
	case err != nil:
		err = fmt.Errorf("%s %s: %w", tool, name, err)
	case fi.IsDir():
		err = &Error{Refusal: IsDirectory, Msg: fmt.Sprintf("%s %s: is a directory", tool, name)}
	case !fi.Mode().IsRegular():
		err = &Error{Refusal: NotRegular, Msg: fmt.Sprintf("%s %s: not a regular file", tool, name)}
	}
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	return f, fi, nil
}

// checkHunks checks the hunks' line ranges against this version (st), then
// that every line they touch was shown whole.
func checkHunks(abs, name, tag string, st Stats, hunks []Hunk, sources *sourceset.Set) error {
	for _, h := range hunks {
		if h.oldCount > 0 && h.oldStart+h.oldCount-1 > st.lines || h.oldCount == 0 && h.oldStart-1 > st.lines {
			return &Error{Refusal: BadRange, Msg: fmt.Sprintf("edit %s: ops[%d] reaches past the last line (%d)", name, h.op, st.lines)}
		}
	}
	var notVisible []int
	more := 0
	for _, h := range hunks {
		lines, count := sources.Missing(abs, tag, h.touchFrom, h.touchTo, limits.EditMaxListedLines-len(notVisible))
		notVisible = append(notVisible, lines...)
		more += count - len(lines)
	}
	if len(notVisible) == 0 {
		return nil
	}
	sort.Ints(notVisible)
	lines, were, them := "lines", "were", "them"
	if len(notVisible)+more == 1 {
		lines, were, them = "line", "was", "it"
	}
	return &Error{Refusal: NotVisible, Lines: notVisible, More: more,
		Msg: fmt.Sprintf("edit %s: %s %s %s not shown whole in version %s (never read, or clipped at %d characters); Read %s (narrow wide lines first) before editing",
			name, lines, lineList(notVisible, more), were, tag, limits.MaxLineChars, them)}
}

// rewrite runs the second pass from f's start into a replacement of abs and
// commits it, unless the file changed since the first pass (st) or ctx ends.
func rewrite(ctx context.Context, f *os.File, fi fs.FileInfo, abs, name string, st Stats, hunks []Hunk, v *view, enc *textenc.Encoding) (applied, error) {
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return applied{}, fmt.Errorf("edit %s: %w", name, err)
	}
	if err := ctx.Err(); err != nil { // a cancelled call touches no file
		return applied{}, fmt.Errorf("edit %s: cancelled; the file is unchanged: %w", name, err)
	}
	dir, err := beneath.OpenDirNoFollow(filepath.Dir(abs))
	if err != nil {
		return applied{}, fmt.Errorf("edit %s: %w", name, err)
	}
	defer dir.Close()
	af, err := atomicfile.ReplaceIn(dir, filepath.Base(abs), fi)
	if err != nil {
		return applied{}, fmt.Errorf("edit %s: %w", name, err)
	}
	defer af.Abort()
	ap, err := apply(ctx, f, af, st, hunks, v, enc)
	if err != nil && !errors.Is(err, errChanged) {
		return applied{}, fmt.Errorf("edit %s: %w", name, err)
	}
	if err != nil || ap.readSum != st.sum || ap.readBytes != st.size {
		now := ""
		if cur, _ := beneath.Open(abs, os.O_RDONLY, 0); cur != nil {
			now, _ = sourceset.Tag(cur)
			cur.Close()
		}
		return applied{}, &Error{Refusal: Stale, Tag: now,
			Msg: fmt.Sprintf("edit %s: the file changed while it was being edited; nothing was written: Read it again", name)}
	}
	if err := ctx.Err(); err != nil {
		return applied{}, fmt.Errorf("edit %s: cancelled; the file is unchanged: %w", name, err)
	}
	// The source is read; close it before the rename over it. Windows
	// refuses to rename over a file open without FILE_SHARE_DELETE, which
	// os.Open does not ask for ("Access denied", issue 34 A). The caller's
	// deferred Close then fails harmlessly.
	_ = f.Close()
	if err := af.Commit(); err != nil {
		return applied{}, fmt.Errorf("edit %s: %w", name, err)
	}
	return ap, nil
}

// lineList formats line numbers for a message.
func lineList(lines []int, more int) string {
	parts := make([]string, len(lines))
	for i, n := range lines {
		parts[i] = strconv.Itoa(n)
	}
	s := strings.Join(parts, ", ")
	if more > 0 {
		s += fmt.Sprintf(" and %d more", more)
	}
	return s
}
