//go:build unix && (!linux || toolrpc_portable)

package walk

import (
	"os"
	"syscall"

	"github.com/toolrpc/toolrpc/internal/beneath"
)

// dirHandle is an open directory, listed with readdir (os.File.ReadDir),
// the portable path macOS runs and Linux runs under toolrpc_portable.
type dirHandle struct{ f *os.File }

// openDir opens the directory abs through no symlink (see beneath.Open).
func openDir(abs string) (dirHandle, bool) {
	f, err := beneath.Open(abs, os.O_RDONLY|syscall.O_DIRECTORY, 0)
	return dirHandle{f}, err == nil
}

func (d dirHandle) close() { _ = d.f.Close() }

func (d dirHandle) list(_ []byte, ents []dirent) []dirent {
	des, _ := d.f.ReadDir(-1)
	return appendEntries(ents, des)
}

func (d dirHandle) stat(name string) (fileStat, bool) { return fstatat(int(d.f.Fd()), name) }

func (d dirHandle) open(name string) (int, fileStat, bool) { return openAt(int(d.f.Fd()), name) }
