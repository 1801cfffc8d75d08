// Package atomicfile replaces a file so that a reader, a crash or a kill -9
// sees either the whole old content or the whole new content, never a mix.
//
// # How
//
// Content is written to a temporary file in the target's directory (so the
// final rename never crosses a file system), synced, given the target's mode
// (and owner, where permitted), renamed over the target, and the directory is
// synced. A process killed before the rename leaves the target untouched.
//
// On Linux the temporary file is unnamed (O_TMPFILE) while it is written: a
// killed writer leaves nothing behind. Commit links it as
// ".<base>.toolrpc-*.tmp" just before the rename, so only a kill between
// those two calls leaves that file. Elsewhere, on file systems without
// O_TMPFILE, and without /proc, the file has that name from the start, and a
// killed writer leaves at most one such file beside the target.
//
// Renaming replaces the directory entry: other hard links to the old file keep
// the old content, and a symlink must be resolved by the caller first.
package atomicfile
