package checkpoint

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
)

// ErrNotFound is returned by Load for a checkpoint that was never saved.
var ErrNotFound = errors.New("checkpoint not found")

// ErrExists is returned by Save when the checkpoint already holds other bytes.
var ErrExists = errors.New("checkpoint already exists with different content")

// ErrInvalidID is returned for a checkpointId that ValidID rejects.
var ErrInvalidID = errors.New("invalid checkpointId")

// Store is one session's checkpoint directory,
// <dataDir>/checkpoints/<sessionId>. Nothing is created until the first Save.
// Save and Load may be called concurrently.
type Store struct {
	dataDir string
	dir     string
}

// NewStore returns the checkpoint Store of a session. The session id must be
// a single path element other than "." and "..".
func NewStore(dataDir, sessionID string) (*Store, error) {
	if sessionID == "" || sessionID == "." || sessionID == ".." || filepath.Base(sessionID) != sessionID {
		return nil, fmt.Errorf("checkpoint store: session id %q cannot name a directory", sessionID)
	}
	return &Store{dataDir: dataDir, dir: filepath.Join(dataDir, "checkpoints", sessionID)}, nil
}

// Dir returns the session's checkpoint directory (which may not exist yet).
func (s *Store) Dir() string { return s.dir }

// Path returns the file of checkpoint id.
func (s *Store) Path(id string) string { return filepath.Join(s.dir, id+".json") }

// Save writes data as checkpoint id, once: a temp file in the same directory
// is written and fsynced, renamed into place without replacing anything, and
// the directory fsynced. If id already exists, Save returns nil when its
// bytes equal data and ErrExists otherwise; an existing file is never
// rewritten. data must be valid JSON.
func (s *Store) Save(id string, data []byte) error {
	if !ValidID(id) {
		return fmt.Errorf("save checkpoint %q: %w", id, ErrInvalidID)
	}
	if !json.Valid(data) {
		return fmt.Errorf("save checkpoint %s: data is not valid JSON", id)
	}
	final := s.Path(id)
	if err := s.mkdirs(); err != nil {
		return fmt.Errorf("save checkpoint %s: %w", id, err)
	}
	tmp, err := writeTemp(s.dir, id, data)
	if err != nil {
		return fmt.Errorf("save checkpoint %s: %w", id, err)
	}
	defer os.Remove(tmp) // a no-op once renamed
	switch err := renameNoReplace(tmp, final); {
	case errors.Is(err, fs.ErrExist):
		old, rerr := os.ReadFile(final)
		if rerr != nil {
			return fmt.Errorf("save checkpoint %s: %w", id, rerr)
		}
		if !bytes.Equal(old, data) {
			return fmt.Errorf("save checkpoint %s: %w", id, ErrExists)
		}
		return nil
	case err != nil:
		return fmt.Errorf("save checkpoint %s: %w", id, err)
	}
	if err := syncDir(s.dir); err != nil {
		return fmt.Errorf("save checkpoint %s: %w", id, err)
	}
	return nil
}

// Load returns the bytes of checkpoint id exactly as saved; a checkpoint
// never saved gives ErrNotFound.
func (s *Store) Load(id string) ([]byte, error) {
	if !ValidID(id) {
		return nil, fmt.Errorf("load checkpoint %q: %w", id, ErrInvalidID)
	}
	b, err := os.ReadFile(s.Path(id))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("load checkpoint %s: %w", id, ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("load checkpoint %s: %w", id, err)
	}
	if !json.Valid(b) {
		return nil, fmt.Errorf("load checkpoint %s: %s is not valid JSON", id, s.Path(id))
	}
	return b, nil
}

// mkdirs creates dataDir/checkpoints/<session> (mode 0700) and fsyncs the
// parent of each directory it created, so the new entries survive a crash.
func (s *Store) mkdirs() error {
	if _, err := os.Stat(s.dir); err == nil {
		return nil
	}
	var created []string
	for d := s.dir; ; d = filepath.Dir(d) {
		if _, err := os.Stat(d); err == nil || d == filepath.Dir(d) {
			break
		}
		created = append(created, d)
	}
	if err := os.MkdirAll(s.dir, 0o700); err != nil {
		return fmt.Errorf("create %s: %w", s.dir, err)
	}
	for _, d := range created {
		if err := syncDir(filepath.Dir(d)); err != nil {
			return err
		}
	}
	return nil
}

// writeTemp writes data to a new file in dir (mode 0600) and fsyncs it.
func writeTemp(dir, id string, data []byte) (string, error) {
	var r [6]byte
	_, _ = rand.Read(r[:])
	name := filepath.Join(dir, "."+id+".tmp-"+hex.EncodeToString(r[:]))
	f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return "", fmt.Errorf("create temp: %w", err)
	}
	_, werr := f.Write(data)
	serr := f.Sync()
	cerr := f.Close()
	if err := errors.Join(werr, serr, cerr); err != nil {
		os.Remove(name)
		return "", fmt.Errorf("write %s: %w", name, err)
	}
	return name, nil
}

// syncDir fsyncs a directory so renames and creations in it are durable.
// On Windows it does nothing: FlushFileBuffers on a directory opened for
// reading is "Access denied" (issue 34 B), and NTFS journals the metadata
// a rename or creation changes.
func syncDir(dir string) error {
	if runtime.GOOS == "windows" {
		return nil
	}
	f, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("sync %s: %w", dir, err)
	}
	serr := f.Sync()
	cerr := f.Close()
	if err := errors.Join(serr, cerr); err != nil {
		return fmt.Errorf("sync %s: %w", dir, err)
	}
	return nil
}
