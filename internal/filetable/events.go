package filetable

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"

	"github.com/toolrpc/toolrpc/walk"
)

// changeMask is the events that add, remove or rename a directory entry.
const changeMask = inCreate | inDelete | inMovedFrom | inMovedTo

// ruleNames are the entries whose change alters the ignore verdicts of the
// whole directory holding them: its ignore files, and .git, which makes it a
// repository with its own scope.
var ruleNames = map[string]bool{".gitignore": true, ".ignore": true, ".git": true}

// missEvent, when set, makes the table ignore each event it reports, as if
// the kernel had held it back (tests set it, to make a live table stale).
var missEvent func(event) bool

// record notes what one event asks the next listing to do; t.mu held.
func (t *Table) record(ev event) {
	if missEvent != nil && missEvent(ev) {
		return
	}
	t.stats.Events++
	if ev.mask&inQOverflow != 0 {
		t.stats.Overflows++
		if !t.pend.rebuild {
			t.note("inotify queue overflowed (fs.inotify.max_queued_events): walking the root again")
		}
		t.pend.rebuild = true
		return
	}
	for _, sp := range t.special[ev.wd] {
		if t.state == stateLive {
			t.recordSpecial(sp, ev)
		}
	}
	n := t.byWD[ev.wd]
	if n == nil {
		return
	}
	switch {
	case ev.mask&inIgnored != 0:
		// The kernel dropped the watch: the directory is gone or was
		// replaced. Walk it again (which drops it if it is gone).
		delete(t.byWD, ev.wd)
		n.wd = -1
		t.markSubtree(n)
	case ev.mask&(inDeleteSelf|inMoveSelf) != 0:
		if n == t.top {
			t.gone("the root was deleted or renamed")
		}
	case ev.name == "":
		if ev.mask&inAttrib != 0 {
			t.markSubtree(n) // its permissions may decide whether it can be listed
		}
	case ruleNames[ev.name]:
		t.markSubtree(n)
	case ev.mask&inIsdir != 0:
		if c := n.child(ev.name); c != nil {
			t.markSubtree(c)
		}
		if ev.mask&changeMask != 0 {
			t.markRelist(n)
		}
	case ev.mask&changeMask != 0:
		t.markRelist(n)
	default:
		if n.file(ev.name) >= 0 {
			if t.pend.restat == nil {
				t.pend.restat = map[*dirNode]map[string]bool{}
			}
			if t.pend.restat[n] == nil {
				t.pend.restat[n] = map[string]bool{}
			}
			t.pend.restat[n][ev.name] = true
		}
	}
}

func (t *Table) markSubtree(n *dirNode) {
	if n == t.top {
		t.pend.rebuild = true
		return
	}
	if t.pend.subtree == nil {
		t.pend.subtree = map[*dirNode]bool{}
	}
	t.pend.subtree[n] = true
}

func (t *Table) markRelist(n *dirNode) {
	if t.pend.relist == nil {
		t.pend.relist = map[*dirNode]bool{}
	}
	t.pend.relist[n] = true
}

// gone drops the table because its root disappeared; t.mu held.
func (t *Table) gone(why string) {
	if t.state == stateLive {
		t.note("%s: table dropped", why)
		t.state = stateGone
	}
}

// apply brings the tree up to date with the pending events; t.mu held.
func (t *Table) apply(ctx context.Context) error {
	if t.pend.empty() || t.state != stateLive {
		return nil
	}
	p := t.pend
	t.pend = pending{}
	if p.rebuild {
		return t.rewalk(ctx, nil, p)
	}
	for n, names := range p.restat {
		if p.relist[n] || p.subtree[n] {
			continue
		}
		rel := n.rel()
		for name := range names {
			if !t.restat(n, rel, name) {
				if p.relist == nil {
					p.relist = map[*dirNode]bool{}
				}
				p.relist[n] = true
				break
			}
		}
	}
	if len(p.relist) == 0 && len(p.subtree) == 0 {
		return nil
	}
	s := newScope(t)
	for n := range p.subtree {
		if !coveredBy(n.parent, p.subtree) {
			s.flag(n, n.rel(), true)
		}
	}
	for n := range p.relist {
		if !p.subtree[n] && !coveredBy(n.parent, p.subtree) {
			s.flag(n, n.rel(), false)
		}
	}
	return t.rewalk(ctx, s, p)
}

// coveredBy reports whether n or one of its parents is in set.
func coveredBy(n *dirNode, set map[*dirNode]bool) bool {
	for ; n != nil; n = n.parent {
		if set[n] {
			return true
		}
	}
	return false
}

// rewalk runs scope s (nil: the whole root) and splices its findings. A
// cancelled walk leaves the tree as it was and asks the next listing to
// walk the whole root; t.mu held.
func (t *Table) rewalk(ctx context.Context, s *scope, p pending) error {
	if s == nil {
		err := t.rebuild(ctx, listener{})
		if err != nil && t.state == stateLive {
			if ctx.Err() == nil {
				t.gone(err.Error())
				return nil
			}
			t.pend.rebuild = true
		}
		if t.state != stateLive {
			return nil
		}
		return err
	}
	t.stats.Rewalks++
	files, err := s.run(ctx)
	if err != nil {
		var unrel *errUnreliable
		switch {
		case errors.Is(err, errWatchLimit) || errors.As(err, &unrel):
			t.turnOff(err.Error())
			return nil
		case ctx.Err() != nil:
			t.pend.rebuild = true
			return err
		default:
			t.gone(err.Error())
			return nil
		}
	}
	t.splice(s, files)
	return nil
}

// specialKind tells what a watch outside the tree guards.
type specialKind int

const (
	specialAncestor specialKind = iota // a directory above the root: its ignore files, .git, itself
	specialGitDir                      // a repository's git dir: info/ appearing
	specialGitInfo                     // its info/: exclude
	specialGlobal                      // the directory of the global excludes file
)

// specialWatch is a watch outside the tree; rel is the directory whose
// verdicts it guards ("" for the root and everything above). next is, for a
// directory above the root, the name of its entry on the way to the root.
type specialWatch struct {
	kind specialKind
	rel  string
	next string
}

// specialNames are the entry names that matter to each kind.
var specialNames = map[specialKind]map[string]bool{
	specialAncestor: ruleNames,
	specialGitDir:   {"info": true},
	specialGitInfo:  {"exclude": true},
	specialGlobal:   {"ignore": true},
}

// recordSpecial handles an event of a watch outside the tree for one of
// its roles; t.mu held.
func (t *Table) recordSpecial(sp specialWatch, ev event) {
	if ev.mask&inIgnored != 0 {
		delete(t.special, ev.wd)
		return
	}
	if sp.kind == specialAncestor && ev.mask&(inDeleteSelf|inMoveSelf) != 0 {
		t.gone("a directory above the root was deleted or renamed")
		return
	}
	// The entry leading to the root was deleted, renamed or replaced. The
	// root's own DELETE_SELF cannot be waited for: the kernel holds it back
	// while a process keeps the old root open (a command's cwd), and the
	// old root's watch then hears nothing of the new one, so a listing by
	// path would mix the two.
	if sp.kind == specialAncestor && ev.name == sp.next && ev.mask&changeMask != 0 {
		t.gone("the root was deleted, renamed or replaced")
		return
	}
	if !specialNames[sp.kind][ev.name] {
		return
	}
	if sp.rel == "" {
		t.pend.rebuild = true
		return
	}
	if n := t.lookup(sp.rel); n != nil {
		t.markSubtree(n)
	}
}

// lookup returns the node at rel, or nil.
func (t *Table) lookup(rel string) *dirNode {
	n := t.top
	if rel == "" {
		return n
	}
	for _, c := range strings.Split(rel, "/") {
		if n = n.child(c); n == nil {
			return nil
		}
	}
	return n
}

// specialMask is what a watch outside the tree asks for.
const specialMask = changeMask | inModify | inCloseWrite | inAttrib |
	inDeleteSelf | inMoveSelf | inOnlydir | inMaskAdd

// addSpecial watches dir for sp. One directory can have several roles (the
// global excludes directory above the root, say): its one watch carries
// each. A directory that cannot be watched is skipped, except when the
// watch limit is reached; a directory above the root that cannot be is
// named in t.unguarded.
func (t *Table) addSpecial(dir string, sp specialWatch) error {
	wd, err := t.w.add(dir, specialMask)
	if err != nil {
		if errors.Is(err, errWatchLimit) {
			return err
		}
		if sp.kind == specialAncestor && t.unguarded == "" {
			t.unguarded = dir
		}
		return nil
	}
	t.specialMu.Lock()
	defer t.specialMu.Unlock()
	if !slices.Contains(t.special[wd], sp) {
		t.special[wd] = append(t.special[wd], sp)
	}
	return nil
}

// checkRoot drops the table when the root is no longer the directory it
// listed; t.mu held. It is asked only when a directory above the root
// could not be watched (t.unguarded), whose events would have said so.
func (t *Table) checkRoot() {
	if t.unguarded == "" || t.state != stateLive || t.top == nil {
		return
	}
	cur := lstatStamp(t.root, false)
	if !cur.isDir() || cur.ino != t.top.print.self.ino {
		t.gone("the root was replaced (" + t.unguarded + " above it cannot be watched)")
	}
}

// watchOutside watches what decides verdicts from outside the tree: every
// directory above the root (ignore files between the root and its
// repository, a repository appearing), the git dir of the repository holding
// the root, and the directory of the global excludes file.
func (t *Table) watchOutside() error {
	t.unguarded = ""
	repoFound := false
	for d, next := t.root, ""; ; {
		if d != t.root {
			if err := t.addSpecial(d, specialWatch{kind: specialAncestor, next: next}); err != nil {
				return err
			}
		}
		if !repoFound {
			if fi, err := os.Lstat(d + "/.git"); err == nil {
				repoFound = true
				if fi.IsDir() {
					if err := t.watchGitDirAt(d+"/.git", ""); err != nil {
						return err
					}
				}
			}
		}
		p := filepath.Dir(d)
		if p == d {
			break
		}
		d, next = p, filepath.Base(d)
	}
	if dir := globalExcludesDir(); dir != "" {
		return t.addSpecial(dir, specialWatch{kind: specialGlobal})
	}
	return nil
}

// watchGitDir watches the git dir of the nested repository at rel (abs).
func (t *Table) watchGitDir(abs, rel string) {
	fi, err := os.Lstat(abs + "/.git")
	if err != nil || !fi.IsDir() {
		return
	}
	_ = t.watchGitDirAt(abs+"/.git", rel)
}

func (t *Table) watchGitDirAt(gitDir, rel string) error {
	if err := t.addSpecial(gitDir, specialWatch{kind: specialGitDir, rel: rel}); err != nil {
		return err
	}
	return t.addSpecial(gitDir+"/info", specialWatch{kind: specialGitInfo, rel: rel})
}

// globalExcludesDir returns the directory of git's default global excludes
// file ($XDG_CONFIG_HOME/git, else ~/.config/git), or "".
func globalExcludesDir() string {
	if x := os.Getenv("XDG_CONFIG_HOME"); x != "" {
		return filepath.Join(x, "git")
	}
	if h, err := os.UserHomeDir(); err == nil {
		return filepath.Join(h, ".config", "git")
	}
	return ""
}

// checkRootIgnored reports whether the root lies in a directory ignored by
// the rules of the repository above it, by asking walk.Walk whether a walk
// of that repository reaches the root.
func (t *Table) checkRootIgnored(ctx context.Context) bool {
	if _, err := os.Lstat(t.root + "/.git"); err == nil {
		return false // the root is its repository's top: nothing above it is read
	}
	base := ""
	for d := filepath.Dir(t.root); ; {
		if _, err := os.Lstat(d + "/.git"); err == nil {
			base = d
			break
		}
		p := filepath.Dir(d)
		if p == d {
			break
		}
		d = p
	}
	if base == "" {
		return false // outside a repository no ignore file above the root is read
	}
	want, err := filepath.Rel(base, t.root)
	if err != nil {
		return true
	}
	want = filepath.ToSlash(want)
	var reached atomic.Bool
	_, err = walk.Walk(ctx, walk.Options{Start: base, Boundary: base,
		Keep: func(string, string) bool { return false },
		Dir: func(rel string) bool {
			if rel == want {
				reached.Store(true)
				return false
			}
			return strings.HasPrefix(want, rel+"/")
		}})
	return err != nil || !reached.Load()
}
