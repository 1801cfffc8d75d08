//go:build linux

package sandbox

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Landlock access rights, by the ABI that introduced them.
const (
	fsRead = unix.LANDLOCK_ACCESS_FS_EXECUTE | unix.LANDLOCK_ACCESS_FS_READ_FILE | unix.LANDLOCK_ACCESS_FS_READ_DIR
	fsABI1 = fsRead | unix.LANDLOCK_ACCESS_FS_WRITE_FILE | unix.LANDLOCK_ACCESS_FS_REMOVE_DIR |
		unix.LANDLOCK_ACCESS_FS_REMOVE_FILE | unix.LANDLOCK_ACCESS_FS_MAKE_CHAR | unix.LANDLOCK_ACCESS_FS_MAKE_DIR |
		unix.LANDLOCK_ACCESS_FS_MAKE_REG | unix.LANDLOCK_ACCESS_FS_MAKE_SOCK | unix.LANDLOCK_ACCESS_FS_MAKE_FIFO |
		unix.LANDLOCK_ACCESS_FS_MAKE_BLOCK | unix.LANDLOCK_ACCESS_FS_MAKE_SYM
	// fileRights are the rights a rule on a file (not a directory) may hold.
	fileRights = unix.LANDLOCK_ACCESS_FS_EXECUTE | unix.LANDLOCK_ACCESS_FS_READ_FILE |
		unix.LANDLOCK_ACCESS_FS_WRITE_FILE | unix.LANDLOCK_ACCESS_FS_TRUNCATE | unix.LANDLOCK_ACCESS_FS_IOCTL_DEV
)

// handledFS returns every filesystem right ABI abi knows.
func handledFS(abi int) uint64 {
	h := uint64(fsABI1)
	if abi >= 2 {
		h |= unix.LANDLOCK_ACCESS_FS_REFER
	}
	if abi >= 3 {
		h |= unix.LANDLOCK_ACCESS_FS_TRUNCATE
	}
	if abi >= 5 {
		h |= unix.LANDLOCK_ACCESS_FS_IOCTL_DEV
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
			attr.net = unix.LANDLOCK_ACCESS_NET_BIND_TCP | unix.LANDLOCK_ACCESS_NET_CONNECT_TCP
		}
	}
	if abi >= 6 {
		size += unsafe.Sizeof(attr.scoped)
		attr.scoped = scopes
	}
	fd, _, errno := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, uintptr(unsafe.Pointer(&attr)), size, 0)
	if errno != 0 {
		return nil, fmt.Errorf("landlock_create_ruleset: %w", errno)
	}
	return &ruleset{fd: int(fd), handled: attr.fs}, nil
}

// allow grants rights beneath path. A file gets only the file rights among
// them; a symlink is never followed (its target has rules of its own); a
// path that does not exist is skipped.
func (r *ruleset) allow(path string, rights uint64) error {
	fd, err := unix.Open(path, unix.O_PATH|unix.O_CLOEXEC|unix.O_NOFOLLOW, 0)
	if err != nil {
		return nil
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return nil
	}
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFLNK:
		return nil
	case unix.S_IFDIR:
	default:
		rights &= fileRights
	}
	attr := unix.LandlockPathBeneathAttr{Allowed_access: rights & r.handled, Parent_fd: int32(fd)}
	_, _, errno := unix.Syscall6(unix.SYS_LANDLOCK_ADD_RULE, uintptr(r.fd), unix.LANDLOCK_RULE_PATH_BENEATH,
		uintptr(unsafe.Pointer(&attr)), 0, 0, 0)
	if errno != 0 {
		return fmt.Errorf("landlock_add_rule %s: %w", path, errno)
	}
	return nil
}

// restrict applies the ruleset to the calling thread (and what it execs).
func (r *ruleset) restrict() error {
	_, _, errno := unix.Syscall(unix.SYS_LANDLOCK_RESTRICT_SELF, uintptr(r.fd), 0, 0)
	_ = unix.Close(r.fd)
	if errno != 0 {
		return fmt.Errorf("landlock_restrict_self: %w", errno)
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
		if err := r.allowAround(filepath.Join(dir, e.Name()), rights, dirRights, denied, holds); err != nil {
			return err
		}
	}
	return nil
}

// holdsDenied returns the predicate "a denied path or glob lies strictly
// below dir" for the policy.
func (r *Resolved) holdsDenied() func(string) bool {
	var bases []string
	bases = append(bases, r.DenyRead...)
	for _, g := range r.DenyGlobs {
		bases = append(bases, filepath.Join(filepath.Dir(g), "x"))
	}
	return func(dir string) bool {
		for _, b := range bases {
			if b != dir && within(b, dir) && !strings.HasPrefix(strings.TrimPrefix(b, dir), "/..") {
				return true
			}
		}
		return false
	}
}
