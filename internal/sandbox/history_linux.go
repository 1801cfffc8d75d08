//go:build linux

package sandbox

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"golang.org/x/sys/unix"
)

// keepHistory keeps what a repository's history is made of where a command
// cannot remove it: each object file of the git directory gd (loose objects
// and packs) is hard-linked into gd/HistoryDir/objects, and its HEAD,
// packed-refs and loose refs are copied over the keep's, which thus is a
// bare repository the host can read (git --git-dir=.git/toolrpc-history log
// --all) or clone after rm -rf .git. The keep is bound read-only in each
// command's mount namespace; only the server writes it, never removing an
// entry. Git itself keeps writing objects, refs and logs as it does (a
// rename or an unlink cannot be told apart by the kernel from a removal),
// so what is kept is the history as of each command's start and end.
//
// It never follows a symlink (every directory is opened with
// RESOLVE_NO_SYMLINKS; only regular files are linked or copied) and reads
// again only the directories whose change time moved since its last visit,
// so its cost is a stat per object directory when nothing changed. It
// reports whether it could keep anything (false: no objects directory, or
// one it could not open). When nothing that marks a change to history
// changed (historySig), it costs four stats.
func keepHistory(gd string) bool {
	// What git does to history changes the git directory itself (the index,
	// HEAD, FETCH_HEAD, ORIG_HEAD, packed-refs are replaced by a rename), a
	// branch or tag directory, or the packs: when none of them changed, the
	// keep is as it was.
	sig := historySig(gd)
	visited.Lock()
	same := visited.sig[gd] == sig
	visited.Unlock()
	if same {
		return true
	}
	defer func() {
		visited.Lock()
		visited.sig[gd] = sig
		visited.Unlock()
	}()
	gfd, err := openDirNoFollow(unix.AT_FDCWD, gd)
	if err != nil {
		return false
	}
	defer unix.Close(gfd)
	ofd, err := openDirNoFollow(gfd, "objects")
	if err != nil {
		return false
	}
	defer unix.Close(ofd)
	kfd, err := mkdirOpen(gfd, HistoryDir)
	if err != nil {
		return false
	}
	defer unix.Close(kfd)
	kofd, err := mkdirOpen(kfd, "objects")
	if err != nil {
		return false
	}
	defer unix.Close(kofd)
	for _, e := range readDirFD(ofd) {
		if e.IsDir() && e.Name() != "info" {
			linkDir(ofd, kofd, e.Name(), filepath.Join(gd, "objects", e.Name()))
		}
	}
	if changedSince(gfd, gd) { // HEAD and packed-refs are replaced by a rename
		copyFile(gfd, kfd, "HEAD")
		copyFile(gfd, kfd, "packed-refs")
	}
	copyTree(gfd, kfd, "refs", filepath.Join(gd, "refs"), 0)
	return true
}

// visited maps a directory keepHistory read to its change time then, and
// a git directory to its historySig then.
var visited = struct {
	sync.Mutex
	ctime map[string]unix.Timespec
	sig   map[string]string
}{ctime: map[string]unix.Timespec{}, sig: map[string]string{}}

// historySig is the identity and change time of gd and of the directories
// whose change marks a change to its history.
func historySig(gd string) string {
	var b strings.Builder
	for _, d := range []string{gd, gd + "/refs/heads", gd + "/refs/tags", gd + "/objects/pack"} {
		var st unix.Stat_t
		if unix.Lstat(d, &st) != nil {
			b.WriteString("-\x00")
			continue
		}
		fmt.Fprintf(&b, "%d:%d:%d.%d\x00", st.Dev, st.Ino, st.Ctim.Sec, st.Ctim.Nsec)
	}
	return b.String()
}

// changedSince reports that dir (open as fd, named path) changed since its
// last visit, and notes this one.
func changedSince(fd int, path string) bool {
	var st unix.Stat_t
	if unix.Fstat(fd, &st) != nil {
		return false
	}
	visited.Lock()
	defer visited.Unlock()
	if t, ok := visited.ctime[path]; ok && t == st.Ctim {
		return false
	}
	visited.ctime[path] = st.Ctim
	return true
}

// linkDir hard-links each regular file of src/name into dst/name (made if
// missing), but git's temporary files.
func linkDir(src, dst int, name, path string) {
	sfd, err := openDirNoFollow(src, name)
	if err != nil {
		return
	}
	defer unix.Close(sfd)
	if !changedSince(sfd, path) {
		return
	}
	dfd, err := mkdirOpen(dst, name)
	if err != nil {
		return
	}
	defer unix.Close(dfd)
	for _, e := range readDirFD(sfd) {
		if e.Type().IsRegular() && !strings.HasPrefix(e.Name(), "tmp_") {
			_ = unix.Linkat(sfd, e.Name(), dfd, e.Name(), 0)
		}
	}
}

// copyTree copies the regular files below src/name over dst/name's,
// depth directories down at most.
func copyTree(src, dst int, name, path string, depth int) {
	sfd, err := openDirNoFollow(src, name)
	if err != nil || depth > 8 {
		if err == nil {
			unix.Close(sfd)
		}
		return
	}
	defer unix.Close(sfd)
	dfd, err := mkdirOpen(dst, name)
	if err != nil {
		return
	}
	defer unix.Close(dfd)
	read := changedSince(sfd, path)
	for _, e := range readDirFD(sfd) {
		switch {
		case e.IsDir():
			copyTree(sfd, dfd, e.Name(), filepath.Join(path, e.Name()), depth+1)
		case read && e.Type().IsRegular() && !strings.HasSuffix(e.Name(), ".lock"):
			copyFile(sfd, dfd, e.Name())
		}
	}
}

// copyFile copies the regular file src/name over dst/name (through a
// temporary file and a rename); a missing one is left as it was.
func copyFile(src, dst int, name string) {
	fd, err := unix.Openat(src, name, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_CLOEXEC|unix.O_NONBLOCK, 0)
	if err != nil {
		return
	}
	f := os.NewFile(uintptr(fd), name)
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() || fi.Size() > 1<<26 {
		return
	}
	data, err := io.ReadAll(f)
	if err != nil {
		return
	}
	tmp := name + ".toolrpc-tmp"
	wfd, err := unix.Openat(dst, tmp, unix.O_WRONLY|unix.O_CREAT|unix.O_TRUNC|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o644)
	if err != nil {
		return
	}
	_, werr := unix.Write(wfd, data)
	unix.Close(wfd)
	if werr != nil || unix.Renameat(dst, tmp, dst, name) != nil {
		_ = unix.Unlinkat(dst, tmp, 0)
	}
}

// openDirNoFollow opens the directory name below dirfd, with no symlink
// on the way.
func openDirNoFollow(dirfd int, name string) (int, error) {
	return unix.Openat2(dirfd, name, &unix.OpenHow{
		Flags: unix.O_RDONLY | unix.O_DIRECTORY | unix.O_CLOEXEC, Resolve: unix.RESOLVE_NO_SYMLINKS})
}

// mkdirOpen opens the directory name below dirfd, made if missing.
func mkdirOpen(dirfd int, name string) (int, error) {
	if err := unix.Mkdirat(dirfd, name, 0o755); err != nil && err != unix.EEXIST {
		return -1, err
	}
	return openDirNoFollow(dirfd, name)
}

// readDirFD lists the directory open as fd (fd stays open).
func readDirFD(fd int) []os.DirEntry {
	dup, err := unix.Dup(fd)
	if err != nil {
		return nil
	}
	f := os.NewFile(uintptr(dup), "dir")
	defer f.Close()
	ents, _ := f.ReadDir(-1)
	return ents
}
