package spill

import (
	"os"
	"path/filepath"
)

// Dir is one session's scratch directory, <dataDir>/scratch/<sessionId>.
// Nothing is created until the first spill.
type Dir struct {
	path string
}

// New returns the scratch Dir of a session. It creates nothing.
func New(dataDir, sessionID string) *Dir {
	return &Dir{path: filepath.Join(dataDir, "scratch", sessionID)}
}

// Path returns the session's scratch directory path (which may not exist yet).
func (d *Dir) Path() string { return d.path }

// Remove deletes the session's scratch directory and everything in it.
func (d *Dir) Remove() error { return os.RemoveAll(d.path) }
