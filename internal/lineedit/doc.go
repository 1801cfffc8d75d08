// Package lineedit changes text files by the line numbers a reader was shown,
// all or nothing and atomically. An edit streams the file through a line
// patcher in two passes (tag check, then copy with the hunks applied), fails
// with the current tag if the file changed in between, keeps the file's line
// endings, final newline and mode, and never holds a whole file or line in
// memory beyond the lines its result shows. A write creates or replaces a
// whole file.
package lineedit
