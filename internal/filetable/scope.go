package filetable

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"

	"github.com/toolrpc/toolrpc/walk"
)

// scope is one walk of the root that re-lists some directories of the table.
// It decides, directory by directory, what walk.Walk enters, and records what
// it found; splice then puts the findings into the tree.
//
// Modes: with all, everything is walked. Otherwise a directory is listed in
// full (entered, watched, everything below it walked again) when it is a
// subtree root, lies below one, or is a subdirectory a relisted directory did
// not have before; a relisted directory is listed without entering its known
// subdirectories; a strict ancestor of any of these is entered only so the
// walk reaches them.
type scope struct {
	t       *Table
	all     bool
	relist  map[string]*dirNode // rel -> node: list its entries again
	subtree map[string]*dirNode // rel -> node: walk everything below it again
	enter   map[string]bool     // strict ancestors of relist and subtree dirs

	mu      sync.Mutex
	full    map[string]*dirNode // rel -> new node of every directory listed in full
	present map[string]bool     // rel of every other directory the walk reached
	printed map[string]dirPrint // rel -> the print of each relisted directory, taken before its listing
	err     error               // a reason the table cannot go on (watch limit, unreliable fs)

	found listener // the caller's of a build, or none

	excl map[string][]walk.Exclusion // by directory rel: what the rules excluded (s.mu)
}

func newScope(t *Table) *scope {
	return &scope{
		t: t, relist: map[string]*dirNode{}, subtree: map[string]*dirNode{}, enter: map[string]bool{},
		full: map[string]*dirNode{}, present: map[string]bool{}, printed: map[string]dirPrint{},
		excl: map[string][]walk.Exclusion{},
	}
}

// flag adds node n (at rel) to the scope, as a subtree root or to relist.
func (s *scope) flag(n *dirNode, rel string, whole bool) {
	if whole {
		s.subtree[rel] = n
	} else {
		s.relist[rel] = n
	}
	for rel != "" {
		rel, _ = parentRel(rel)
		s.enter[rel] = true
	}
}

type dirMode int

const (
	modeSkip    dirMode = iota // not reached
	modePresent                // reached, not entered (a known subdirectory of a relisted dir)
	modeEnter                  // entered on the way to a flagged directory
	modeFull                   // listed in full
)

// dir is walk.Options.Dir.
func (s *scope) dir(rel string) bool {
	p, name := parentRel(rel)
	s.mu.Lock()
	mode := s.decide(rel, p, name)
	switch mode {
	case modeFull:
		path := strings.Clone(rel)
		s.full[rel] = &dirNode{path: path, name: path[len(path)-len(name):], wd: -1}
		s.present[rel] = true
	case modePresent, modeEnter:
		s.present[rel] = true
	}
	failed := s.err != nil
	relisted := s.relist[rel] != nil
	s.mu.Unlock()
	if failed {
		return false
	}
	switch {
	case mode == modeFull:
		// Watch before the walk lists the directory: whatever changes
		// after the watch is an event, whatever changed before is listed.
		wd, pr, err := s.t.watchDir(rel)
		s.mu.Lock()
		n := s.full[rel]
		n.wd, n.repo, n.print = wd, pr.git.mode != 0, pr
		if err != nil && s.err == nil {
			s.err = err
		}
		failed = s.err != nil
		s.mu.Unlock()
		return !failed
	case relisted:
		s.stampRelisted(rel)
	}
	return mode == modeEnter
}

// stampRelisted takes the print of the relisted directory rel before the
// walk lists it again; splice gives it to the node with the new listing.
func (s *scope) stampRelisted(rel string) {
	p := stampDir(s.t.abs(rel))
	s.mu.Lock()
	s.printed[rel] = p
	s.mu.Unlock()
}

// decide picks the mode of directory rel (parent p, base name name); s.mu held.
func (s *scope) decide(rel, p, name string) dirMode {
	if _, ok := s.full[p]; ok || s.all || s.subtree[rel] != nil {
		return modeFull
	}
	if n := s.relist[p]; n != nil {
		if n.child(name) == nil {
			return modeFull
		}
		if s.enter[rel] || s.relist[rel] != nil {
			return modeEnter
		}
		return modePresent
	}
	if s.enter[rel] || s.relist[rel] != nil {
		return modeEnter
	}
	return modeSkip
}

// keep is walk.Options.Keep: the files of listed directories are wanted.
func (s *scope) keep(rel, _ string) bool {
	if s.all {
		return true
	}
	p, _ := parentRel(rel)
	if s.relist[p] != nil {
		return true
	}
	s.mu.Lock()
	_, ok := s.full[p]
	s.mu.Unlock()
	return ok
}

// exclude is walk.Options.Exclude: the exclusions of the directories whose
// listing the scope refreshes are kept, with rules interned so that one
// rule of one ignore file is one pointer across walks (as in a single
// cold walk, which counts exclusions by rule pointer).
func (s *scope) exclude(dirRel string, x walk.Exclusion) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.full[dirRel]; !ok && s.relist[dirRel] == nil {
		return
	}
	x.Name = strings.Clone(x.Name)
	x.Rule = s.t.intern(x.Rule)
	s.excl[dirRel] = append(s.excl[dirRel], x)
}

// run walks the root. The root's own node is prepared by the caller when all
// is set.
func (s *scope) run(ctx context.Context) ([]walk.File, error) {
	if !s.all && s.relist[""] != nil {
		s.stampRelisted("") // the walk asks Dir of every directory but its start
	}
	opts := walk.Options{Start: s.t.root, Boundary: s.t.root, Dir: s.dir, Keep: s.keep, Exclude: s.exclude, Unsorted: true}
	s.found.options(&opts)
	files, err := walk.Walk(ctx, opts)
	if s.err != nil {
		return nil, s.err
	}
	return files, err
}

// errUnreliable reports a directory on a file system without reliable events.
type errUnreliable struct{ dir, fs string }

func (e *errUnreliable) Error() string {
	return fmt.Sprintf("%s is on %s, whose change events are not reliable", e.dir, e.fs)
}

// watchDir watches the directory at rel and stamps it (its print tells
// whether it holds a .git entry), in that order: the print is what the
// listing that follows can have missed at most, and a change after the
// watch is an event. A directory that cannot be watched for want of
// permission or because it is gone is no error (-1): it has no listing
// either, and its parent's events report when that changes. During a whole
// walk only the root and the mount points below it are asked for their
// file system.
func (t *Table) watchDir(rel string) (int32, dirPrint, error) {
	abs := t.abs(rel)
	if rel == "" || !t.mountsKnown || t.mounts[abs] {
		if fs := fsUnreliable(abs); fs != "" {
			if _, err := os.Lstat(abs); err != nil {
				return -1, dirPrint{}, nil
			}
			return -1, dirPrint{}, &errUnreliable{dir: abs, fs: fs}
		}
	}
	wd, err := t.w.add(abs, dirMask)
	if err != nil {
		if errors.Is(err, errWatchLimit) {
			return -1, dirPrint{}, err
		}
		wd = -1
	}
	p := stampDir(abs)
	if p.git.mode != 0 && rel != "" {
		t.watchGitDir(abs, rel)
	}
	return wd, p, nil
}

// abs returns the absolute path of rel.
func (t *Table) abs(rel string) string {
	if rel == "" {
		return t.root
	}
	return t.root + "/" + rel
}
