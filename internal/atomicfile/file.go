package atomicfile

import (
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/toolrpc/toolrpc/internal/beneath"
)

// TempPattern is the os.CreateTemp pattern of the temporary file beside a
// target named base; a sweep can recognise leftovers of killed writers by it.
func TempPattern(base string) string {
	const maxBase = 200 // keeps the temporary name under NAME_MAX (255)
	if len(base) > maxBase {
		base = base[:maxBase]
	}
	return "." + base + ".toolrpc-*.tmp"
}

// File is a pending replacement of a target path. Write its content, then
// Commit to publish it or Abort to discard it. A File is not safe for
// concurrent use.
type File struct {
	f      *os.File
	target string
	// dir is the target's directory, held open: the temporary file is
	// made, linked and renamed relative to it, so a directory on the way
	// replaced meanwhile (by a symlink, say) changes nothing.
	dir    *beneath.Dir
	ownDir bool // dir was opened by Create and is closed with the File
	// unnamed marks an O_TMPFILE file: it has no name until Commit links
	// it beside the target, just before the rename.
	unnamed bool
	done    bool
}

// Create starts writing a new content for path, which will get mode perm
// (permission and setuid/setgid/sticky bits). The directory must exist.
func Create(path string, perm fs.FileMode) (*File, error) {
	dir, err := beneath.OpenDir(filepath.Dir(path))
	if err != nil {
		return nil, fmt.Errorf("create temporary file for %s: %w", path, err)
	}
	a, err := CreateIn(dir, filepath.Base(path), perm)
	if err != nil {
		_ = dir.Close()
		return nil, err
	}
	a.ownDir = true
	return a, nil
}

// CreateIn is Create of the file base in dir, a directory the caller holds
// open (and closes after Commit or Abort): every step is taken relative to
// it.
func CreateIn(dir *beneath.Dir, base string, perm fs.FileMode) (*File, error) {
	path := filepath.Join(dir.Path(), base)
	a := &File{target: path, dir: dir}
	a.f, a.unnamed = createUnnamed(dir)
	if a.f == nil {
		f, err := a.createNamed()
		if err != nil {
			return nil, fmt.Errorf("create temporary file for %s: %w", path, err)
		}
		a.f = f
	}
	if err := a.f.Chmod(perm & (fs.ModePerm | fs.ModeSetuid | fs.ModeSetgid | fs.ModeSticky)); err != nil {
		a.discard()
		return nil, fmt.Errorf("chmod temporary file for %s: %w", path, err)
	}
	return a, nil
}

// createNamed makes a temporary file by TempPattern beside the target.
func (a *File) createNamed() (*os.File, error) {
	for range 10000 {
		f, err := a.dir.Create(a.tempName(), os.O_RDWR, 0o600)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		return f, err
	}
	return nil, errors.New("every name tried exists")
}

// tempName is a fresh temporary name by TempPattern.
func (a *File) tempName() string {
	return strings.Replace(TempPattern(filepath.Base(a.target)), "*", strconv.FormatUint(rand.Uint64(), 36), 1)
}

// Replace starts writing a new content for the existing regular file like
// describes (its Lstat or Stat result): the replacement keeps its mode and,
// when the process may, its owner and group.
func Replace(path string, like fs.FileInfo) (*File, error) {
	a, err := Create(path, like.Mode())
	if err != nil {
		return nil, err
	}
	keepOwner(a.f, like)
	return a, nil
}

// ReplaceIn is Replace of the file base in dir (see CreateIn).
func ReplaceIn(dir *beneath.Dir, base string, like fs.FileInfo) (*File, error) {
	a, err := CreateIn(dir, base, like.Mode())
	if err != nil {
		return nil, err
	}
	keepOwner(a.f, like)
	return a, nil
}

// Name returns the temporary file's path, or a description of it while it
// has none (an unnamed file on Linux).
func (a *File) Name() string { return a.f.Name() }

// discard closes the temporary file and removes its name, if it has one.
func (a *File) discard() {
	_ = a.f.Close()
	if !a.unnamed {
		_ = a.dir.Remove(filepath.Base(a.f.Name()))
	}
	a.closeDir()
}

// closeDir closes the directory if the File opened it.
func (a *File) closeDir() {
	if a.ownDir {
		_ = a.dir.Close()
		a.ownDir = false
	}
}

// Write writes to the temporary file.
func (a *File) Write(p []byte) (int, error) { return a.f.Write(p) }

// Commit syncs the temporary file, renames it over the target and syncs the
// directory. After an error the target is unchanged and the temporary file
// is removed.
func (a *File) Commit() error {
	if a.done {
		return errors.New("atomicfile: commit after commit or abort")
	}
	a.done = true
	if err := a.f.Sync(); err != nil {
		a.discard()
		return fmt.Errorf("sync %s: %w", a.f.Name(), err)
	}
	if a.unnamed {
		named, err := a.link()
		if err != nil {
			a.discard()
			return err
		}
		_ = a.f.Close()
		a.f, a.unnamed = named, false
	}
	name := a.f.Name()
	base := filepath.Base(name)
	if err := a.f.Close(); err != nil {
		_ = a.dir.Remove(base)
		a.closeDir()
		return fmt.Errorf("close %s: %w", name, err)
	}
	if err := a.dir.Rename(base, filepath.Base(a.target)); err != nil {
		_ = a.dir.Remove(base)
		a.closeDir()
		return fmt.Errorf("rename %s to %s: %w", name, a.target, err)
	}
	// The rename is done; a failed directory sync only weakens durability.
	_ = a.dir.Sync()
	a.closeDir()
	return nil
}

// link gives the unnamed file a temporary name beside the target and
// returns it open under that name.
func (a *File) link() (*os.File, error) {
	for range 10000 {
		name := a.tempName()
		err := linkUnnamed(a.f, a.dir, name)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("name temporary file for %s: %w", a.target, err)
		}
		f, err := a.dir.OpenFile(name, os.O_RDWR)
		if err != nil {
			_ = a.dir.Remove(name)
			return nil, fmt.Errorf("open temporary file for %s: %w", a.target, err)
		}
		return f, nil
	}
	return nil, fmt.Errorf("name temporary file for %s: every name tried exists", a.target)
}

// Abort discards the temporary file. It is a no-op after Commit or Abort.
func (a *File) Abort() {
	if a.done {
		return
	}
	a.done = true
	a.discard()
}

// WriteFile atomically replaces (or creates) path with data and mode perm.
func WriteFile(path string, data []byte, perm fs.FileMode) error {
	a, err := Create(path, perm)
	if err != nil {
		return err
	}
	if _, err := a.Write(data); err != nil {
		a.Abort()
		return fmt.Errorf("write %s: %w", a.Name(), err)
	}
	return a.Commit()
}
