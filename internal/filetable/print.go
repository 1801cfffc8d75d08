package filetable

import (
	"os"
	"path/filepath"

	"github.com/toolrpc/toolrpc/internal/gitignore"
	"github.com/toolrpc/toolrpc/limits"
)

// racyWindow is limits.FileTableRacyWindow as a duration in nanoseconds;
// tests shorten it.
var racyWindow = int64(limits.FileTableRacyWindow)

// stamp is what one lstat says of an entry, compared across servers: any
// field that differs is a change. mode 0 means the entry is absent.
type stamp struct {
	ino                uint64
	size, mtime, ctime int64
	mode               uint32
}

// The file type bits of stamp.mode, as stat's st_mode has them.
const (
	modeType    = 0o170000
	modeDir     = 0o040000
	modeRegular = 0o100000
)

// isDir reports whether s is of a directory.
func (s stamp) isDir() bool { return s.mode&modeType == modeDir }

// isRegular reports whether s is of a regular file.
func (s stamp) isRegular() bool { return s.mode&modeType == modeRegular }

// racy reports whether s changed so close to the moment saved (Unix ns)
// that a later change in the same timestamp tick could have left it as it
// is.
func (s stamp) racy(saved int64) bool {
	return s.mode != 0 && max(s.mtime, s.ctime) >= saved-racyWindow
}

// sameAs reports whether s, saved at saved, still describes the entry now
// stamped cur.
func (s stamp) sameAs(cur stamp, saved int64) bool { return s == cur && !s.racy(saved) }

// gitStamp keeps of a .git entry what decides the rules: whether it is
// there, its kind and identity, and for a .git file (a pointer to the git
// dir) its content's stamp. A .git directory changes with every git command;
// its info/exclude is stamped on its own.
func gitStamp(s stamp) stamp {
	if s.isDir() {
		return stamp{ino: s.ino, mode: s.mode}
	}
	return s
}

// pathStamp is the stamp of a file named by its absolute path.
type pathStamp struct {
	path string
	st   stamp
}

// dirPrint is what the listing of a directory and the rules below it
// depend on, besides its files: the directory itself, its ignore files and
// .git entry, and the info/exclude file that entry names.
type dirPrint struct {
	self    stamp
	rules   [2]stamp // .gitignore, .ignore
	git     stamp    // gitStamp of .git
	exclude pathStamp
}

// printDir stamps the directory abs; ds is open on it (ok false: it is
// not a directory, and the print says so).
func printDir(abs string, ds dirStamper, ok bool) dirPrint {
	if !ok {
		return dirPrint{}
	}
	return printDirWith(abs, ds, ds.stamp(""), ds.stamp(".git"), [2]bool{})
}

// ignoreFiles are the names of the ignore files a dirPrint stamps, in the
// order of its rules.
var ignoreFiles = [2]string{".gitignore", ".ignore"}

// printDirWith is printDir of a directory whose own stamp and .git stamp
// were taken already; the ignore files absent says are known to be absent
// are not stamped.
func printDirWith(abs string, ds dirStamper, self, git stamp, absent [2]bool) dirPrint {
	p := dirPrint{self: self, git: gitStamp(git)}
	for i, name := range ignoreFiles {
		if !absent[i] {
			p.rules[i] = ds.stamp(name)
		}
	}
	if p.git.mode != 0 {
		if x := gitignore.ExcludeFile(abs); x != "" {
			p.exclude = pathStamp{path: x, st: lstatStamp(x, true)}
		}
	}
	return p
}

// stampDir opens the directory abs and stamps it.
func stampDir(abs string) dirPrint {
	ds, ok := openStamper(abs)
	if ok {
		defer ds.close()
	}
	return printDir(abs, ds, ok)
}

// printVerdict is what a directory's stamps say it needs.
type printVerdict int

const (
	printSame    printVerdict = iota // nothing: its listing stands
	printRelist                      // its entries changed: list it again
	printSubtree                     // its rules, kind or permissions changed: walk it again
	printGone                        // it is no longer a directory: its parent lists again
)

// compare judges the directory stamped old at saved against its stamps
// now. A directory whose entries or permissions changed is listed again
// (the walk decides whether it can be); one replaced by another, or whose
// rules changed, is walked again with everything below it.
func (old dirPrint) compare(cur dirPrint, saved int64) printVerdict {
	switch {
	case !cur.self.isDir():
		return printGone
	case old.self.ino != cur.self.ino,
		!old.rules[0].sameAs(cur.rules[0], saved), !old.rules[1].sameAs(cur.rules[1], saved),
		!old.git.sameAs(cur.git, saved), old.exclude.path != cur.exclude.path,
		!old.exclude.st.sameAs(cur.exclude.st, saved):
		return printSubtree
	case !old.self.sameAs(cur.self, saved):
		return printRelist
	}
	return printSame
}

// outsidePrint stamps what decides verdicts from outside the tree of root:
// the ignore files and .git entries of every directory above it, the
// info/exclude of the repository holding it and the global excludes file
// (its path too: it moves with the environment and git's config). ok is
// false when the global excludes file is relative to each repository's top
// (then no table is persisted).
func outsidePrint(root string) (ps []pathStamp, ok bool) {
	repo, found := "", false
	for d := root; ; {
		if d != root {
			for _, n := range []string{".gitignore", ".ignore"} {
				ps = append(ps, pathStamp{path: d + "/" + n, st: lstatStamp(d+"/"+n, false)})
			}
			ps = append(ps, pathStamp{path: d + "/.git", st: gitStamp(lstatStamp(d+"/.git", false))})
		}
		if _, err := os.Lstat(d + "/.git"); err == nil && !found {
			found = true
			if d != root { // the root's own is in its dirPrint
				repo = d
			}
		}
		p := filepath.Dir(d)
		if p == d {
			break
		}
		d = p
	}
	if repo != "" {
		if x := gitignore.ExcludeFile(repo); x != "" {
			ps = append(ps, pathStamp{path: x, st: lstatStamp(x, true)})
		}
	}
	g := gitignore.GlobalExcludesFile(os.Getenv)
	if g != "" && !filepath.IsAbs(g) {
		return nil, false
	}
	ps = append(ps, pathStamp{path: "global:" + g, st: lstatStamp(g, true)})
	return ps, true
}
