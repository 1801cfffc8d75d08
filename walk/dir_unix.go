//go:build unix && (!linux || toolrpc_portable)

package walk

import (
	"os"
	"syscall"
)

// dirHandle is an open directory, listed with readdir (os.File.ReadDir),
// the portable path macOS runs and Linux runs under toolrpc_portable.
type dirHandle struct{ f *os.File }

func openDir(abs string) (dirHandle, bool) {
	f, err := os.OpenFile(abs, os.O_RDONLY|syscall.O_DIRECTORY|syscall.O_NOFOLLOW, 0)
	return dirHandle{f}, err == nil
}

func (d dirHandle) close() { _ = d.f.Close() }

func (d dirHandle) list(_ []byte, ents []dirent) []dirent {
	des, _ := d.f.ReadDir(-1)
	return appendEntries(ents, des)
}

func (d dirHandle) stat(name string) (fileStat, bool) { return fstatat(int(d.f.Fd()), name) }

func (d dirHandle) open(name string) (int, fileStat, bool) { return openAt(int(d.f.Fd()), name) }
