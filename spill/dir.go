package spill

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/toolrpc/toolrpc/internal/beneath"
	"github.com/toolrpc/toolrpc/limits"
)

// lockName is the lock file of a session dir; a live server holds flock on it.
const lockName = ".lock"

// outputDir is the subdirectory spill files are written to.
const outputDir = "tool-output"

// unlockedGrace spares a session dir that has no lock file yet (its server may
// be between mkdir and creating the lock) for this long. Tests shorten it.
var unlockedGrace = time.Minute

// Dir is one session's scratch directory, <dataDir>/scratch/<sessionId>.
// Nothing is created until the first spill. A Dir is safe for concurrent use.
type Dir struct {
	path string

	mu   sync.Mutex
	lock *os.File // the held lock file, once the dir exists
	seq  int
}

// New returns the scratch Dir of a session. It creates nothing.
func New(dataDir, sessionID string) *Dir {
	return &Dir{path: filepath.Join(dataDir, "scratch", sessionID)}
}

// Path returns the session's scratch directory path (which may not exist yet).
func (d *Dir) Path() string { return d.path }

// Adopt takes the lock of the session dir if it already exists (a restarted
// server with the same session id keeps its dir). It creates nothing.
func (d *Dir) Adopt() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if _, err := os.Stat(d.path); err != nil {
		return nil
	}
	return d.lockLocked()
}

// lockLocked opens (creating) the lock file and takes flock on it; d.mu is held.
func (d *Dir) lockLocked() error {
	if d.lock != nil {
		return nil
	}
	f, err := os.OpenFile(filepath.Join(d.path, lockName), os.O_RDWR|os.O_CREATE|noFollow, 0o600)
	if err != nil {
		return fmt.Errorf("open scratch lock %s: %w", d.path, err)
	}
	if err := tryLock(f); err != nil {
		_ = f.Close()
		return fmt.Errorf("lock scratch dir %s: %w", d.path, err)
	}
	d.lock = f
	return nil
}

// Ensure creates the session dir (0700) if needed and takes its lock, so no
// other server's start-up sweep removes it. Anything that writes into the
// scratch dir calls it first.
func (d *Dir) Ensure() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.ensureLocked()
}

func (d *Dir) ensureLocked() error {
	if err := os.MkdirAll(d.path, 0o700); err != nil {
		return fmt.Errorf("create scratch dir %s: %w", d.path, err)
	}
	if err := d.lockLocked(); err != nil && !errors.Is(err, errLocked) {
		return err
	}
	return nil
}

// Write saves data (cut to SpillMaxBytes) as a new spill file
// tool-output/<label>-<ms>-<seq>.log and returns its path. The first Write
// creates the session dir (0700) and takes its lock.
//
// Commands may write the scratch dir (SPEC §14), so tool-output may have
// been replaced by a symlink or anything else: it is made and opened
// relative to the session dir's descriptor, following no symlink, and the
// file is created there with O_EXCL, so the server writes nowhere but
// inside the scratch dir (SPEC §6.3).
func (d *Dir) Write(label string, data []byte) (string, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if err := d.ensureLocked(); err != nil {
		return "", err
	}
	out, err := d.sub(outputDir)
	if err != nil {
		return "", fmt.Errorf("create spill dir %s: %w", filepath.Join(d.path, outputDir), err)
	}
	defer out.Close()
	d.seq++
	base := fmt.Sprintf("%s-%d-%d.log", label, time.Now().UnixMilli(), d.seq)
	name := filepath.Join(out.Path(), base)
	f, err := out.Create(base, os.O_WRONLY, 0o600)
	if err != nil {
		return "", fmt.Errorf("create spill file %s: %w", name, err)
	}
	_, werr := f.Write(data[:min(len(data), limits.SpillMaxBytes)])
	cerr := f.Close()
	if err := errors.Join(werr, cerr); err != nil {
		_ = out.Remove(base)
		return "", fmt.Errorf("write spill file %s: %w", name, err)
	}
	return name, nil
}

// sub makes (unless it exists) and opens the directory name of the session
// dir, through no symlink (beneath.Dir.Sub).
func (d *Dir) sub(name string) (*beneath.Dir, error) {
	top, err := beneath.OpenDir(d.path)
	if err != nil {
		return nil, err
	}
	defer top.Close()
	return top.Sub(name, 0o700)
}

// Sub is the session dir's subdirectory name (such as process, for the
// process logs), made 0700 unless it exists, with the session dir and its
// lock, and opened through no symlink: the caller creates its files there
// (beneath.Dir.Create) and closes it.
func (d *Dir) Sub(name string) (*beneath.Dir, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if err := d.ensureLocked(); err != nil {
		return nil, err
	}
	return d.sub(name)
}

// Remove deletes the session's scratch directory and everything in it, then
// releases its lock.
func (d *Dir) Remove() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	err := os.RemoveAll(d.path)
	if d.lock != nil {
		_ = d.lock.Close()
		d.lock = nil
	}
	if err != nil {
		return fmt.Errorf("remove scratch dir %s: %w", d.path, err)
	}
	return nil
}

// Sweep removes the scratch dirs of other sessions under
// <dataDir>/scratch whose lock no live process holds. A dir without a lock
// file is removed only once it is older than a grace period, so a server that
// is creating its dir is never swept. It returns the dirs removed.
func (d *Dir) Sweep() ([]string, error) {
	root := filepath.Dir(d.path)
	ents, err := os.ReadDir(root)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("sweep %s: %w", root, err)
	}
	var removed []string
	for _, e := range ents {
		p := filepath.Join(root, e.Name())
		if !e.IsDir() || p == d.path {
			continue
		}
		if stale(p) {
			if err := os.RemoveAll(p); err == nil {
				removed = append(removed, p)
			}
		}
	}
	return removed, nil
}

// stale reports whether no live server owns the session dir p.
func stale(p string) bool {
	f, err := os.OpenFile(filepath.Join(p, lockName), os.O_RDWR|noFollow, 0)
	if err != nil {
		fi, serr := os.Stat(p)
		return errors.Is(err, os.ErrNotExist) && serr == nil && time.Since(fi.ModTime()) > unlockedGrace
	}
	defer f.Close()
	// Holding the lock while the dir is removed keeps its owner from racing
	// us; the lock dies with the file descriptor.
	return tryLock(f) == nil
}
