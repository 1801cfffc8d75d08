package search

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"

	"github.com/toolrpc/toolrpc/walk"
)

// Overlay is text that stands in for files, by absolute path: an editor's
// unsaved buffers (SPEC §15). Grep searches an overlay's text instead of its
// file's, whatever an index or listing says of the file, and lists those
// files first: an unsaved change is the newest. A text whose file does not
// exist on disk is searched too, where the walk would have listed it.
type Overlay map[string][]byte

// split moves the listed files the overlay holds to the front (by path),
// adds the overlay's files that exist only in it, and returns them apart
// from the rest of the listing.
func (ov Overlay) split(ctx context.Context, files walk.Files, opts walk.Options, filter ListFilter) (front []walk.File, rest walk.Files) {
	seen := map[string]bool{}
	var others walk.FileList
	for i := range files.Len() {
		f := files.At(i)
		if text, ok := ov[f.Abs]; ok {
			f.Size = int64(len(text))
			front = append(front, f)
			seen[f.Abs] = true
			continue
		}
		others = append(others, f)
	}
	for abs, text := range ov {
		if seen[abs] || ctx.Err() != nil {
			continue
		}
		if _, err := os.Lstat(abs); !errors.Is(err, fs.ErrNotExist) {
			continue // on disk, and the listing left it out (ignored, filtered)
		}
		rel, ok := below(opts.Start, abs)
		if !ok || !keeps(rel, opts, filter) {
			continue
		}
		front = append(front, walk.File{Abs: abs, Rel: rel, Size: int64(len(text))})
	}
	sort.Slice(front, func(i, j int) bool { return front[i].Abs < front[j].Abs })
	return front, others
}

// below returns abs relative to start, slash-separated, when it is below it
// (or is it: its base name, as a walk of one file names it).
func below(start, abs string) (string, bool) {
	if abs == start {
		return filepath.Base(abs), true
	}
	rel, err := filepath.Rel(start, abs)
	if err != nil || rel == ".." || len(rel) > 2 && rel[:3] == ".."+string(filepath.Separator) {
		return "", false
	}
	return filepath.ToSlash(rel), true
}

// keeps reports whether the glob and the filter keep the file rel and every
// directory above it.
func keeps(rel string, opts walk.Options, filter ListFilter) bool {
	for dir := path.Dir(rel); dir != "."; dir = path.Dir(dir) {
		if opts.Dir != nil && !opts.Dir(dir) || filter != nil && !filter.Dir(dir) {
			return false
		}
	}
	name := path.Base(rel)
	return (opts.Keep == nil || opts.Keep(rel, name)) && (filter == nil || filter.Keep(rel, name))
}

// overlayText searches the overlay's text of a file, all of it one chunk.
func (g *worker) overlayText(ctx context.Context, text []byte) fileResult {
	if ctx.Err() != nil {
		return fileResult{}
	}
	return g.search(ctx, &reader{}, text, true)
}

// GlobFront returns the glob's files with the overlay's files that exist
// only in it (not on disk) first, where the glob of pattern below start
// would list them, and the paths it added.
func (ov Overlay) GlobFront(ctx context.Context, files walk.Files, pattern, start string, filter ListFilter) (walk.Files, []string) {
	opts := walk.Options{Start: start, Dir: GlobDirs(pattern), Keep: globMatch(pattern)}
	var only []walk.File
	for abs := range ov {
		if _, err := os.Lstat(abs); !errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if rel, ok := below(start, abs); ok && keeps(rel, opts, filter) {
			only = append(only, walk.File{Abs: abs, Rel: rel, Size: int64(len(ov[abs]))})
		}
	}
	if len(only) == 0 {
		return files, nil
	}
	sort.Slice(only, func(i, j int) bool { return only[i].Abs < only[j].Abs })
	paths := make([]string, len(only))
	for i, f := range only {
		paths[i] = f.Abs
	}
	return prepend(only, files), paths
}
