package roots

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
)

// Kind classifies a resolved path by the root that holds it (SPEC §3).
type Kind string

// The three kinds of root a path may resolve into.
const (
	Workspace Kind = "workspace"
	Scratch   Kind = "scratch"
	External  Kind = "external"
)

// ErrOutsideRoots is returned (wrapped) when a path, after cleaning and symlink
// evaluation, lies in none of the session's roots.
var ErrOutsideRoots = errors.New("path is outside the workspace, scratch and approved external roots")

// ErrInvalidPath is returned (wrapped) for a path no file can have, such as one
// holding a NUL byte.
var ErrInvalidPath = errors.New("invalid path")

// Path is a resolved tool path.
type Path struct {
	// Abs is the cleaned absolute path with every symlink evaluated.
	Abs string
	// Display is how results report the path: relative to the first workspace
	// root (slash-separated) for files inside it, else absolute.
	Display string
	// Root is the kind of root that holds the path.
	Root Kind
	// RootDir is the (evaluated) root directory that holds the path.
	RootDir string
	// Exists reports whether the path existed when it was resolved.
	Exists bool
}

// Roots holds a session's workspace folders, its scratch directory and the
// external roots the host approved. The zero value resolves nothing.
type Roots struct {
	workspace []string // evaluated; workspace[0] is the first root
	scratch   string   // may not exist yet; stored cleaned and evaluated as far as it exists
	external  []string
}

// NewRoots returns Roots for the given directories. Workspace folders and
// external roots must exist; the scratch directory need not exist yet.
func NewRoots(workspace []string, scratch string, external []string) (*Roots, error) {
	if len(workspace) == 0 {
		return nil, errors.New("at least one workspace root is required")
	}
	r := &Roots{}
	for _, w := range workspace {
		ev, err := evalDir(w)
		if err != nil {
			return nil, fmt.Errorf("workspace root %s: %w", w, err)
		}
		r.workspace = append(r.workspace, ev)
	}
	for _, x := range external {
		if !filepath.IsAbs(x) {
			return nil, fmt.Errorf("external root %q is not absolute", x)
		}
		ev, err := evalDir(x)
		if err != nil {
			return nil, fmt.Errorf("external root %s: %w", x, err)
		}
		r.external = append(r.external, ev)
	}
	if scratch != "" {
		s, err := evalPartial(filepath.Clean(scratch))
		if err != nil {
			return nil, fmt.Errorf("scratch dir %s: %w", scratch, err)
		}
		r.scratch = s
	}
	return r, nil
}

func evalDir(p string) (string, error) {
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", err
	}
	ev, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return "", err
	}
	fi, err := os.Stat(ev)
	if err != nil {
		return "", err
	}
	if !fi.IsDir() {
		return "", fmt.Errorf("not a directory")
	}
	return ev, nil
}

// First returns the first workspace root, against which relative paths resolve.
func (r *Roots) First() string { return r.workspace[0] }

// Workspace returns the evaluated workspace roots.
func (r *Roots) Workspace() []string { return append([]string(nil), r.workspace...) }

// External returns the evaluated external roots.
func (r *Roots) External() []string { return append([]string(nil), r.external...) }

// ScratchDir returns the session's scratch directory.
func (r *Roots) ScratchDir() string { return r.scratch }

// Resolve cleans p (relative paths join the first workspace root), evaluates
// its symlinks and classifies it. A path that does not exist resolves through
// its longest existing ancestor, with Exists false, so callers can report
// NOT_FOUND or create it. A path that lands outside every root fails with
// ErrOutsideRoots, whether or not it exists.
func (r *Roots) Resolve(p string) (Path, error) {
	if strings.IndexByte(p, 0) >= 0 {
		return Path{}, fmt.Errorf("%q: %w: NUL byte", p, ErrInvalidPath)
	}
	if p == "" {
		p = "."
	}
	abs := p
	if !filepath.IsAbs(abs) {
		abs = filepath.Join(r.workspace[0], abs)
	}
	abs = filepath.Clean(abs)
	ev, err := evalPartial(abs)
	if err != nil {
		if isLinkLoop(err) {
			return Path{}, fmt.Errorf("resolve %s: %w: %v", p, ErrInvalidPath, err)
		}
		return Path{}, fmt.Errorf("resolve %s: %w", p, err)
	}
	_, statErr := os.Lstat(ev)
	out := Path{Abs: ev, Exists: statErr == nil}
	if err := r.classify(&out); err != nil {
		return Path{}, fmt.Errorf("%s: %w", p, err)
	}
	return out, nil
}

// Classify classifies an already evaluated absolute path, as a walk finds them,
// without touching the file system.
func (r *Roots) Classify(abs string) (Path, error) {
	out := Path{Abs: abs, Exists: true}
	if err := r.classify(&out); err != nil {
		return Path{}, err
	}
	return out, nil
}

func (r *Roots) classify(p *Path) error {
	if r.scratch != "" && Within(r.scratch, p.Abs) {
		p.Root, p.RootDir, p.Display = Scratch, r.scratch, p.Abs
		return nil
	}
	for i, w := range r.workspace {
		if Within(w, p.Abs) {
			p.Root, p.RootDir = Workspace, w
			if i == 0 {
				rel, _ := filepath.Rel(w, p.Abs)
				p.Display = filepath.ToSlash(rel)
			} else {
				p.Display = p.Abs
			}
			return nil
		}
	}
	for _, x := range r.external {
		if Within(x, p.Abs) {
			p.Root, p.RootDir, p.Display = External, x, p.Abs
			return nil
		}
	}
	return ErrOutsideRoots
}

// DisplayOf reports how a file found under a resolved path is shown.
func (r *Roots) DisplayOf(abs string) string {
	p := Path{Abs: abs}
	if err := r.classify(&p); err != nil {
		return abs
	}
	return p.Display
}

// Within reports whether p is dir or below it. Both must be clean, and
// both absolute or both relative to one directory (dir not ""). On Windows
// the comparison ignores case (NTFS and FAT volumes are case-insensitive;
// EvalSymlinks gives the existing part its stored case). Elsewhere it is
// exact: a macOS volume may be case-sensitive, so a differently cased path
// is refused rather than let through.
func Within(dir, p string) bool {
	if samePath(p, dir) {
		return true
	}
	if len(p) <= len(dir) || !samePath(p[:len(dir)], dir) {
		return false
	}
	// A root ("/", `C:\`) ends in a separator; any other dir must be followed by one.
	return dir[len(dir)-1] == filepath.Separator || p[len(dir)] == filepath.Separator
}

// samePath compares paths as the platform's file systems do (see Within).
func samePath(a, b string) bool {
	if runtime.GOOS == "windows" {
		return strings.EqualFold(a, b)
	}
	return a == b
}

// maxLinkDepth bounds the dangling-symlink chain evalPartial follows.
const maxLinkDepth = 40

// evalPartial evaluates the symlinks of the longest existing prefix of abs and
// appends the rest unchanged. A dangling symlink on the way is followed to its
// (missing) target, so a later create cannot escape through it.
func evalPartial(abs string) (string, error) { return evalPartialDepth(abs, 0) }

func evalPartialDepth(abs string, depth int) (string, error) {
	if depth > maxLinkDepth {
		return "", fmt.Errorf("%s: too many levels of symbolic links", abs)
	}
	rest := ""
	cur := abs
	for {
		ev, err := filepath.EvalSymlinks(cur)
		if err == nil {
			if rest == "" {
				return ev, nil
			}
			return filepath.Join(ev, rest), nil
		}
		if !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, syscallENOTDIR) {
			return "", err
		}
		if fi, lerr := os.Lstat(cur); lerr == nil && fi.Mode()&fs.ModeSymlink != 0 {
			target, rerr := os.Readlink(cur)
			if rerr != nil {
				return "", rerr
			}
			if !filepath.IsAbs(target) {
				target = filepath.Join(filepath.Dir(cur), target)
			}
			if rest != "" {
				target = filepath.Join(target, rest)
			}
			return evalPartialDepth(filepath.Clean(target), depth+1)
		}
		parent := filepath.Dir(cur)
		if parent == cur {
			return abs, nil
		}
		if rest == "" {
			rest = filepath.Base(cur)
		} else {
			rest = filepath.Join(filepath.Base(cur), rest)
		}
		cur = parent
	}
}

// isLinkLoop reports a symlink cycle or an over-long chain, which
// filepath.EvalSymlinks reports without an errno.
func isLinkLoop(err error) bool {
	return errors.Is(err, syscall.ELOOP) || strings.Contains(err.Error(), "too many links") ||
		strings.Contains(err.Error(), "too many levels of symbolic links")
}
