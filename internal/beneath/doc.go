// Package beneath opens files the way the sandbox's checks need (SPEC §14,
// STYLE 12): a path whose every symlink was resolved before it was checked
// is opened following no symlink at all (openat2 RESOLVE_NO_SYMLINKS on
// Linux), so what is opened is what was checked, even when a command swaps a
// directory on the way for a symlink in between; and a Dir held open makes
// and opens the names below it relative to its descriptor, never through a
// symlink, for the server's own files in directories commands can write (the
// spill and process-log dirs of the session scratch).
//
// A symlink met on the way is ErrSymlink: the caller resolved the path
// first, so one now means the tree changed under it.
package beneath

import "errors"

// ErrSymlink is the error of an open that met a symlink on the way.
var ErrSymlink = errors.New("a symlink appeared on the way (the tree changed while it was opened)")
