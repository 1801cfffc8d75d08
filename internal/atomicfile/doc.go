// Package atomicfile replaces a file so that a reader, a crash or a kill -9
// sees either the whole old content or the whole new content, never a mix.
//
// # How
//
// Content is written to a temporary file in the target's directory (so the
// final rename never crosses a file system), synced, given the target's mode
// (and owner, where permitted), renamed over the target, and the directory is
// synced. A process killed before the rename leaves the target untouched and
// at most one temporary file named ".<base>.toolrpc-*.tmp" beside it.
//
// Renaming replaces the directory entry: other hard links to the old file keep
// the old content, and a symlink must be resolved by the caller first.
package atomicfile
