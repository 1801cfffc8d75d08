//go:build linux && !toolrpc_portable

package filetable

import "golang.org/x/sys/unix"

// lstatStamp returns what lstat (stat with follow) says of path; the zero
// stamp when it cannot be stat'ed.
func lstatStamp(path string, follow bool) stamp {
	var st unix.Stat_t
	var err error
	if follow {
		err = unix.Stat(path, &st)
	} else {
		err = unix.Lstat(path, &st)
	}
	if err != nil {
		return stamp{}
	}
	return toStamp(&st)
}

func toStamp(st *unix.Stat_t) stamp {
	return stamp{ino: st.Ino, size: st.Size, mtime: st.Mtim.Nano(), ctime: st.Ctim.Nano(), mode: st.Mode}
}

// dirStamper stamps the entries of one directory through a descriptor of
// it, so each stamp resolves one name instead of the whole path.
type dirStamper struct{ fd int }

// openStamper opens the directory abs (not through a symlink); false when
// it is not one.
func openStamper(abs string) (dirStamper, bool) {
	fd, err := unix.Open(abs, unix.O_PATH|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return dirStamper{}, false
	}
	return dirStamper{fd: fd}, true
}

// stamp lstats the entry name, or the directory itself for "".
func (d dirStamper) stamp(name string) stamp {
	s, _ := d.stampDev(name)
	return s
}

// stampDev is stamp with the device the entry lies on.
func (d dirStamper) stampDev(name string) (stamp, uint64) {
	var st unix.Stat_t
	flags := unix.AT_SYMLINK_NOFOLLOW
	if name == "" {
		flags |= unix.AT_EMPTY_PATH
	}
	if unix.Fstatat(d.fd, name, &st, flags) != nil {
		return stamp{}, 0
	}
	return toStamp(&st), st.Dev
}

// unreliable is fsUnreliable of the directory d is open on.
func (d dirStamper) unreliable() string {
	var st unix.Statfs_t
	if err := unix.Fstatfs(d.fd, &st); err != nil {
		return "unknown (fstatfs: " + err.Error() + ")"
	}
	return unreliableFS[int64(st.Type)]
}

// devOf returns the device path lies on (0 when it cannot be stat'ed).
func devOf(path string) uint64 {
	var st unix.Stat_t
	if unix.Lstat(path, &st) != nil {
		return 0
	}
	return st.Dev
}

func (d dirStamper) close() { unix.Close(d.fd) }
