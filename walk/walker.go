package walk

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/toolrpc/toolrpc/internal/gitignore"
)

// File is one regular file a walk found.
type File struct {
	// Abs is the file's absolute path (below the walk's start, no symlink on the way).
	Abs string
	// Rel is the slash-separated path relative to the walk's start ("" parts
	// never occur); for a walk of a single file it is the file's base name.
	Rel string
	// ModTime is the modification time in Unix nanoseconds.
	ModTime int64
	// Size is the file size in bytes.
	Size int64
}

// Options configures Walk.
type Options struct {
	// Start is the absolute, symlink-evaluated directory or file to walk.
	Start string
	// Boundary is the session root holding Start: outside a repository, no
	// ignore file above it is read.
	Boundary string
	// Keep, when set, is asked about each file (its Rel path and base name)
	// before the file is stat'ed; false drops it.
	Keep func(rel, name string) bool
	// Dir, when set, is asked about each subdirectory below Start that the
	// ignore rules keep (its Rel path; .git, .hg, .svn and symlinks never
	// reach it) before the walk queues it; false skips the directory, which
	// is then not listed. A directory Dir accepted is listed after Dir
	// returned. Dir may be called from several goroutines at once.
	Dir func(rel string) bool
	// Found, when set, is called with each file the walk returns as soon as
	// it is stat'ed, before the walk ends (so work on files can overlap the
	// walk). It may be called from several goroutines at once.
	Found func(File)
	// Open, when set, is called instead of Found, for a caller that reads
	// every file it is given: the walk opens each regular file it returns
	// through its directory's descriptor (not following a symlink, not
	// blocking on a FIFO; not one binary by its name, SPEC §4) and takes
	// its size and time from the open descriptor, so the file's path is
	// looked up once, not once to stat and again to open. fd is that
	// descriptor, read-only and closed when Open returns, or -1 when the
	// walk did not open the file (then it was stat'ed as without Open, and
	// the caller opens it by its path). It may be called from several
	// goroutines at once.
	Open func(f File, fd int)
	// Workers is the number of directories read in parallel (0 = one per core).
	Workers int
	// Excluded, when set, collects what the ignore rules excluded below
	// Start (see Excluded.Count).
	Excluded *Excluded
	// Unsorted returns the files in no particular order: for a caller that
	// orders them itself (a file table groups them by directory), the sort
	// newest first is not spent.
	Unsorted bool
	// Exclude, when set, is called with each entry the ignore rules exclude
	// in a directory the walk lists (dirRel: that directory's Rel path), Keep
	// or not, so a resident file table can later answer for Excluded (see
	// Excluded.Replay). It may be called from several goroutines at once.
	Exclude func(dirRel string, x Exclusion)
}

// dirBufSize is each worker's getdents buffer.
const dirBufSize = 32 * 1024

// Walk lists the regular files below opts.Start that the ignore rules keep
// (SPEC §3, §5), sorted newest first (ties: Abs ascending). Directories .git,
// .hg and .svn are never entered, symlinks are never followed (neither to
// directories nor to files), and FIFOs, sockets and devices are never opened.
// A Start that is a regular file yields that file whatever the ignore rules
// say. Unreadable directories below Start are skipped. Walk returns ctx's
// error as soon as it sees ctx cancelled.
func Walk(ctx context.Context, opts Options) ([]File, error) {
	st, err := os.Stat(opts.Start)
	if err != nil {
		return nil, fmt.Errorf("walk %s: %w", opts.Start, err)
	}
	switch {
	case st.Mode().IsRegular():
		f := File{Abs: opts.Start, Rel: filepath.Base(opts.Start), ModTime: st.ModTime().UnixNano(), Size: st.Size()}
		switch {
		case opts.Open != nil:
			opts.Open(f, -1)
		case opts.Found != nil:
			opts.Found(f)
		}
		return []File{f}, nil
	case st.IsDir():
	default:
		return nil, nil
	}
	w := &walker{ctx: ctx, keep: opts.Keep, dir: opts.Dir, found: opts.Found, open: opts.Open, excl: opts.Excluded, exclude: opts.Exclude}
	if opts.Excluded != nil {
		opts.Excluded.keep = opts.Keep
	}
	w.cond = sync.NewCond(&w.mu)
	w.push(dirJob{abs: opts.Start, set: startIgnores(opts.Start, opts.Boundary)})
	n := opts.Workers
	if n <= 0 {
		n = runtime.NumCPU()
	}
	results := make([]filePages, n)
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			results[i] = w.work()
		}(i)
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	total := 0
	for _, r := range results {
		total += r.n
	}
	out := make([]File, 0, total)
	for _, r := range results {
		for _, p := range r.pages {
			out = append(out, p...)
		}
	}
	if !opts.Unsorted {
		sortNewestFirstByRel(out)
	}
	return out, nil
}

// SortNewestFirst sorts files by ModTime descending, ties by Abs ascending —
// the order of every search result (SPEC §5).
func SortNewestFirst(files []File) {
	slices.SortFunc(files, func(a, b File) int {
		if c := cmp.Compare(b.ModTime, a.ModTime); c != 0 {
			return c
		}
		return strings.Compare(a.Abs, b.Abs)
	})
}

type dirJob struct {
	abs string
	rel string     // relative to the walk start, "" for the start
	set *ignoreSet // the rules for the directory's entries, before its own ignore files
}

type walker struct {
	ctx   context.Context
	keep  func(rel, name string) bool
	dir   func(rel string) bool
	found func(File)
	open  func(File, int) // Options.Open
	excl  *Excluded       // nil: exclusions are not collected
	// exclude is Options.Exclude.
	exclude func(dirRel string, x Exclusion)

	mu      sync.Mutex
	cond    *sync.Cond
	stack   []dirJob
	pending int // jobs pushed and not finished
}

func (w *walker) push(j dirJob) {
	w.mu.Lock()
	w.stack = append(w.stack, j)
	w.pending++
	w.mu.Unlock()
	w.cond.Signal()
}

// next returns the next job, or false when the walk is over.
func (w *walker) next() (dirJob, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for len(w.stack) == 0 {
		if w.pending == 0 {
			return dirJob{}, false
		}
		w.cond.Wait()
	}
	j := w.stack[len(w.stack)-1]
	w.stack = w.stack[:len(w.stack)-1]
	return j, true
}

func (w *walker) done() {
	w.mu.Lock()
	w.pending--
	last := w.pending == 0
	w.mu.Unlock()
	if last {
		w.cond.Broadcast()
	}
}

// dirent is one parsed directory entry.
type dirent struct {
	name string
	typ  uint8
}

func (w *walker) work() filePages {
	var out filePages
	buf := make([]byte, dirBufSize)
	var ents []dirent
	for {
		j, ok := w.next()
		if !ok {
			return out
		}
		if w.ctx.Err() == nil {
			ents = w.readDir(j, buf, ents[:0], &out)
		}
		w.done()
	}
}

// filePages is the files one walk goroutine found, in pages, so that they
// grow without copying what they hold (a slice grown by a quarter at a
// time copied about three times the listing of a large tree).
type filePages struct {
	pages [][]File
	n     int
}

// filePage is the files of one page of filePages.
const filePage = 1024

// add appends f.
func (p *filePages) add(f File) {
	if p.n%filePage == 0 {
		p.pages = append(p.pages, make([]File, 0, filePage))
	}
	last := &p.pages[len(p.pages)-1]
	*last = append(*last, f)
	p.n++
}

// readDir lists one directory, queues its subdirectories and adds its kept
// files to out.
func (w *walker) readDir(j dirJob, buf []byte, ents []dirent, out *filePages) []dirent {
	d, ok := openDir(j.abs)
	if !ok {
		return ents
	}
	defer d.close()
	ents = d.list(buf, ents)
	hasGit, hasIgnore, hasDotGit := markers(ents)
	set := j.set.enter(j.abs, hasGit, hasIgnore, hasDotGit)
	check := !set.empty()
	var ex exclusions
	for _, e := range ents {
		typ := e.typ
		var st fileStat
		statted := false
		if typ == typeUnknown {
			if e.name == dotGit {
				continue
			}
			if st, ok = d.stat(e.name); !ok {
				continue
			}
			statted = true
			typ = st.typ
		}
		abs := j.abs + string(filepath.Separator) + e.name
		switch typ {
		case typeDir:
			if skipDirs[e.name] {
				continue
			}
			if check && w.excluded(set, abs, j.rel, e.name, true, &ex) {
				continue
			}
			rel := relOf(abs, j.rel, e.name)
			if w.dir != nil && !w.dir(rel) {
				continue
			}
			w.push(dirJob{abs: abs, rel: rel, set: set})
		case typeReg:
			if e.name == dotGit || (check && w.excluded(set, abs, j.rel, e.name, false, &ex)) {
				continue
			}
			if f, ok := w.file(d, abs, relOf(abs, j.rel, e.name), e.name, &st, statted); ok {
				out.add(f)
			}
		}
	}
	if w.excl != nil {
		w.excl.record(ex.files, ex.dirs)
	}
	return ents
}

// markers reports which of a directory's entries change its ignore rules:
// .gitignore, .ignore, and .git (a directory, or a linked worktree's file,
// marks a repository).
func markers(ents []dirent) (hasGit, hasIgnore, hasDotGit bool) {
	for _, e := range ents {
		switch e.name {
		case gitignoreName:
			hasGit = true
		case ignoreName:
			hasIgnore = true
		case dotGit:
			hasDotGit = true
		}
	}
	return hasGit, hasIgnore, hasDotGit
}

// file returns the regular file name of the directory d (abs, rel) unless
// Keep drops it or it is not a regular file; st holds its stat when statted.
// Found sees it first.
func (w *walker) file(d dirHandle, abs, rel, name string, st *fileStat, statted bool) (File, bool) {
	if w.keep != nil && !w.keep(rel, name) {
		return File{}, false
	}
	fd := -1
	if !statted && w.open != nil && !IsBinaryName(name) {
		var ok bool
		if fd, *st, ok = d.open(name); ok {
			defer closeFD(fd)
			statted = true
		} else {
			fd = -1
		}
	}
	if !statted {
		var ok bool
		if *st, ok = d.stat(name); !ok {
			return File{}, false
		}
	}
	if st.typ != typeReg {
		return File{}, false
	}
	f := File{Abs: abs, Rel: rel, ModTime: st.mtime, Size: st.size}
	switch {
	case w.open != nil:
		w.open(f, fd)
	case w.found != nil:
		w.found(f)
	}
	return f, true
}

// exclusions are what the ignore rules excluded in one directory.
type exclusions struct {
	files map[*gitignore.Rule]int
	dirs  []excludedDir
}

// excluded reports whether the rules in set exclude the entry name of the
// directory dirRel (abs: its absolute path) and, when the walk collects
// exclusions, notes it in ex.
func (w *walker) excluded(set *ignoreSet, abs, dirRel, name string, isDir bool, ex *exclusions) bool {
	r := set.rule(abs, isDir)
	if r == nil || r.Negate {
		return false
	}
	if w.exclude != nil {
		w.exclude(dirRel, Exclusion{Name: name, Dir: isDir, Rule: r})
	}
	if w.excl == nil {
		return true
	}
	rel := joinRel(dirRel, name)
	switch {
	case isDir:
		ex.dirs = append(ex.dirs, excludedDir{abs: abs, rel: rel, rule: r})
	case w.keep == nil || w.keep(rel, name):
		if ex.files == nil {
			ex.files = map[*gitignore.Rule]int{}
		}
		ex.files[r]++
	}
	return true
}

// relOf returns joinRel(dirRel, name) for the entry name of the directory
// dirRel, abs being its absolute path: where the separator is a slash, the
// tail of abs, sharing its bytes (a walk makes one string per file, not
// two).
func relOf(abs, dirRel, name string) string {
	if filepath.Separator != '/' {
		return joinRel(dirRel, name)
	}
	n := len(name)
	if dirRel != "" {
		n += len(dirRel) + 1
	}
	return abs[len(abs)-n:]
}

func joinRel(dir, name string) string {
	if dir == "" {
		return name
	}
	return dir + "/" + name
}
