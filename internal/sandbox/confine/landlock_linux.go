//go:build linux

package confine

import (
	"os"
	"path"
	"syscall"
	"unsafe"
)

// Landlock access rights, by the ABI that introduced them.
const (
	fsRead = landlockAccessFSExecute | landlockAccessFSReadFile | landlockAccessFSReadDir
	fsABI1 = fsRead | landlockAccessFSWriteFile | landlockAccessFSRemoveDir |
		landlockAccessFSRemoveFile | landlockAccessFSMakeChar | landlockAccessFSMakeDir |
		landlockAccessFSMakeReg | landlockAccessFSMakeSock | landlockAccessFSMakeFifo |
		landlockAccessFSMakeBlock | landlockAccessFSMakeSym
	// fileRights are the rights a rule on a file (not a directory) may hold.
	fileRights = landlockAccessFSExecute | landlockAccessFSReadFile |
		landlockAccessFSWriteFile | landlockAccessFSTruncate | landlockAccessFSIoctlDev
)

// handledFS returns every filesystem right ABI abi knows.
func handledFS(abi int) uint64 {
	h := uint64(fsABI1)
	if abi >= 2 {
		h |= landlockAccessFSRefer
	}
	if abi >= 3 {
		h |= landlockAccessFSTruncate
	}
	if abi >= 5 {
		h |= landlockAccessFSIoctlDev
	}
	return h
}

// rulesetAttr is struct landlock_ruleset_attr as of ABI 6.
type rulesetAttr struct {
	fs, net, scoped uint64
}

// ruleset is a Landlock ruleset being built.
type ruleset struct {
	fd      int
	handled uint64
}

// newRuleset creates a ruleset handling every filesystem right of abi, TCP
// bind and connect when tcp (ABI 4+), and the given scopes (ABI 6+).
func newRuleset(abi int, tcp bool, scopes uint64) (*ruleset, error) {
	attr := rulesetAttr{fs: handledFS(abi)}
	size := unsafe.Sizeof(attr.fs)
	if abi >= 4 {
		size += unsafe.Sizeof(attr.net)
		if tcp {
			attr.net = landlockAccessNetBindTCP | landlockAccessNetConnectTCP
		}
	}
	if abi >= 6 {
		size += unsafe.Sizeof(attr.scoped)
		attr.scoped = scopes
	}
	fd, _, errno := syscall.Syscall(sysLandlockCreateRuleset, uintptr(unsafe.Pointer(&attr)), size, 0)
	if errno != 0 {
		return nil, failed("landlock_create_ruleset", errno)
	}
	return &ruleset{fd: int(fd), handled: attr.fs}, nil
}

// allow grants rights beneath path. A file gets only the file rights among
// them; a symlink is never followed (its target has rules of its own); a
// path that does not exist is skipped.
func (r *ruleset) allow(path string, rights uint64) error {
	fd, err := syscall.Open(path, oPath|syscall.O_CLOEXEC|syscall.O_NOFOLLOW, 0)
	if err != nil {
		return nil
	}
	defer syscall.Close(fd)
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil {
		return nil
	}
	switch st.Mode & syscall.S_IFMT {
	case syscall.S_IFLNK:
		return nil
	case syscall.S_IFDIR:
	default:
		rights &= fileRights
	}
	attr := pathBeneathAttr{allowedAccess: rights & r.handled, parentFD: int32(fd)}
	_, _, errno := syscall.Syscall6(sysLandlockAddRule, uintptr(r.fd), landlockRulePathBeneath,
		uintptr(unsafe.Pointer(&attr)), 0, 0, 0)
	if errno != 0 {
		return failed("landlock_add_rule "+path, errno)
	}
	return nil
}

// restrict applies the ruleset to the calling thread (and what it execs).
func (r *ruleset) restrict() error {
	_, _, errno := syscall.Syscall(sysLandlockRestrictSelf, uintptr(r.fd), 0, 0)
	_ = syscall.Close(r.fd)
	if errno != 0 {
		return failed("landlock_restrict_self", errno)
	}
	return nil
}

// allowAround grants rights beneath dir except on the denied paths below it:
// where dir holds a denied path, each of its entries is granted on its own
// (the denied ones not), descending only along the denied paths, and dir
// itself gets dirRights. Its cost is one directory read per directory on a
// denied path, never a walk of the tree.
func (r *ruleset) allowAround(dir string, rights, dirRights uint64, denied func(string) bool, holds func(string) bool) error {
	if denied(dir) {
		return nil
	}
	if !holds(dir) {
		return r.allow(dir, rights)
	}
	if err := r.allow(dir, dirRights); err != nil {
		return err
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	for _, e := range ents {
		if err := r.allowAround(path.Join(dir, e.Name()), rights, dirRights, denied, holds); err != nil {
			return err
		}
	}
	return nil
}

// holdsDenied returns the predicate "a denied path or glob lies strictly
// below dir" for the policy.
func (p *Policy) holdsDenied() func(string) bool {
	var bases []string
	bases = append(bases, p.DenyRead...)
	for _, g := range p.DenyGlobs {
		bases = append(bases, path.Join(path.Dir(g), "x"))
	}
	return func(dir string) bool {
		for _, b := range bases {
			if b != dir && within(b, dir) && !hasPrefix(b[len(dir):], "/..") {
				return true
			}
		}
		return false
	}
}

// landlock builds and applies the policy's Landlock ruleset: read (and
// execute) everywhere but the deny list, every right on the writable set
// (around the deny list too), TCP denied with network off, and signals and
// abstract Unix sockets scoped to the sandbox; the pty tty (or "") gets every
// right.
func (p *Policy) landlock(tty string) error {
	scopes := uint64(landlockScopeSignal)
	if p.NetworkOff {
		scopes |= landlockScopeAbstractUnixSocket
	}
	rs, err := newRuleset(p.LandlockABI, p.NetworkOff, scopes)
	if err != nil {
		return err
	}
	denied, holds := p.denied, p.holdsDenied()
	read := uint64(fsRead | landlockAccessFSIoctlDev)
	// A directory on the way to a denied path may be listed, not more: its
	// entries get their own rules.
	if err := rs.allowAround("/", read, landlockAccessFSReadDir, denied, holds); err != nil {
		return err
	}
	all := rs.handled
	for _, w := range p.Writable {
		if p.MountNS && !denied(w) {
			// The denied paths below w are hidden by mounts (isolate):
			// w is granted whole, so what is made in it later is writable.
			if err := rs.allow(w, all); err != nil {
				return err
			}
			continue
		}
		if err := rs.allowAround(w, all, all&^fileRights, denied, holds); err != nil {
			return err
		}
	}
	if tty != "" {
		if err := rs.allow(tty, all); err != nil {
			return err
		}
	}
	return rs.restrict()
}

// denied reports that the policy denies reading name: it is, or is below,
// a DenyRead path or a DenyGlobs match.
func (p *Policy) denied(name string) bool {
	for _, d := range p.DenyRead {
		if within(name, d) {
			return true
		}
	}
	for _, g := range p.DenyGlobs {
		if globDenies(g, name) {
			return true
		}
	}
	return false
}

// globDenies reports that name is, or is below, a name glob's match: glob
// is "dir/pattern"; a pattern id_* never matches a *.pub.
func globDenies(glob, name string) bool {
	dir, pat := path.Dir(glob), path.Base(glob)
	if !within(name, dir) || name == dir {
		return false
	}
	rest := name[len(dir):]
	if rest[0] == '/' {
		rest = rest[1:]
	}
	first := rest
	if i := indexByte(rest, '/'); i >= 0 {
		first = rest[:i]
	}
	ok, _ := path.Match(pat, first)
	return ok && (len(first) < 4 || first[len(first)-4:] != ".pub")
}

// within reports that name is dir or below it.
func within(name, dir string) bool {
	if name == dir {
		return true
	}
	if dir == "/" {
		return hasPrefix(name, "/")
	}
	return hasPrefix(name, dir) && len(name) > len(dir) && name[len(dir)] == '/'
}
