//go:build linux && !toolrpc_portable

package walk

import (
	"bytes"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/toolrpc/toolrpc/internal/beneath"
)

// dirHandle is an open directory file descriptor, listed with getdents.
type dirHandle int

// openDir opens the directory abs (below the walk's symlink-evaluated
// start) through no symlink in any component: a directory swapped for a
// symlink after it was listed is not entered (SPEC §14).
func openDir(abs string) (dirHandle, bool) {
	fd, err := beneath.OpenFD(abs, unix.O_RDONLY|unix.O_DIRECTORY)
	return dirHandle(fd), err == nil
}

func (d dirHandle) close() { _ = unix.Close(int(d)) }

func (d dirHandle) list(buf []byte, ents []dirent) []dirent {
	for {
		n, err := unix.Getdents(int(d), buf)
		if err != nil || n <= 0 {
			return ents
		}
		for off := 0; off < n; {
			reclen := int(*(*uint16)(unsafe.Pointer(&buf[off+16])))
			typ := buf[off+18]
			nameBytes := buf[off+19 : off+reclen]
			if i := bytes.IndexByte(nameBytes, 0); i >= 0 {
				nameBytes = nameBytes[:i]
			}
			off += reclen
			if name := string(nameBytes); name != "." && name != ".." {
				ents = append(ents, dirent{name: name, typ: direntType(typ)})
			}
		}
	}
}

func direntType(t uint8) uint8 {
	switch t {
	case unix.DT_UNKNOWN:
		return typeUnknown
	case unix.DT_DIR:
		return typeDir
	case unix.DT_REG:
		return typeReg
	}
	return typeOther
}

func (d dirHandle) stat(name string) (fileStat, bool) { return fstatat(int(d), name) }

func (d dirHandle) open(name string) (int, fileStat, bool) { return openAt(int(d), name) }
