package methods

import (
	"fmt"
	"os"
	"strings"

	"github.com/toolrpc/toolrpc/internal/documents"
	"github.com/toolrpc/toolrpc/limits"
)

// unsavedWatch is what the files of the unsaved buffers were before a
// command ran, so its result can name those it changed on disk (SPEC §15).
type unsavedWatch struct {
	s      *Session
	docs   []*documents.Doc
	before []os.FileInfo // nil: no file
}

// watchUnsaved notes the unsaved buffers and their files now.
func watchUnsaved(s *Session) *unsavedWatch {
	w := &unsavedWatch{s: s}
	if s.docs == nil {
		return w
	}
	w.docs = s.docs.UnsavedAll()
	for _, d := range w.docs {
		fi, _ := os.Stat(d.Abs)
		w.before = append(w.before, fi)
	}
	return w
}

// notice says the command saw the disk, not the unsaved buffers, naming
// them, and names the files of unsaved buffers it changed; "" when no
// buffer was unsaved.
func (w *unsavedWatch) notice() string {
	if len(w.docs) == 0 {
		return ""
	}
	var changed []string
	for i, d := range w.docs {
		after, _ := os.Stat(d.Abs)
		if !sameFile(w.before[i], after) {
			changed = append(changed, w.s.roots.DisplayOf(d.Abs))
		}
	}
	buffers := "buffers"
	if len(w.docs) == 1 {
		buffers = "buffer"
	}
	paths := make([]string, len(w.docs))
	for i, d := range w.docs {
		paths[i] = d.Abs
	}
	n := fmt.Sprintf("Commands see the files on disk, not the %d unsaved editor %s: %s.", len(w.docs), buffers, w.names(paths))
	if len(changed) > 0 {
		n += fmt.Sprintf(" The command changed on disk %s, open in the editor with unsaved changes: the user's buffer and the disk now differ.",
			strings.Join(bounded(changed), ", "))
	}
	return n
}

// names returns the display names of paths, bounded.
func (w *unsavedWatch) names(paths []string) string {
	names := make([]string, len(paths))
	for i, p := range paths {
		names[i] = w.s.roots.DisplayOf(p)
	}
	return strings.Join(bounded(names), ", ")
}

// bounded keeps limits.UnsavedNamesInNotice names and counts the rest.
func bounded(names []string) []string {
	if len(names) <= limits.UnsavedNamesInNotice {
		return names
	}
	return append(names[:limits.UnsavedNamesInNotice:limits.UnsavedNamesInNotice], fmt.Sprintf("and %d more", len(names)-limits.UnsavedNamesInNotice))
}

// sameFile reports whether two stats are of one version of a file (both
// absent counts as the same).
func sameFile(a, b os.FileInfo) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return a.Size() == b.Size() && a.ModTime().Equal(b.ModTime()) && os.SameFile(a, b)
}
