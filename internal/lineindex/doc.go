// Package lineindex tags, counts and sparsely indexes a file's lines in one
// streaming pass, so that any line of an unchanged file is reached by seeking
// to a nearby mark instead of rescanning the file from its start, and a
// changed file is never served from a stale index.
//
// # The pass
//
// Build reads the file once through a fixed buffer, feeding each block to the
// CRC-32C (Castagnoli) of the whole file and counting its newlines with
// bytes.Count. Every limits.LineIndexMarkLines lines or limits.LineIndexMarkBytes
// bytes it records a mark: the number and byte offset of a line start. Memory
// is bounded by limits.LineIndexMaxMarks whatever the file's size.
//
// # The cache
//
// Cache keeps indexes keyed by the file's device, inode, size, mtime and ctime,
// bounded in total size (least recently used first out). An index built within
// limits.LineIndexRacyWindow of the file's last change is not trusted again,
// because a write inside one timestamp tick leaves the key unchanged.
//
// Lines follow SPEC §2: a line ends at "\n" (a preceding "\r" belongs to the
// ending), a final line without "\n" counts, an empty file has no lines.
package lineindex
