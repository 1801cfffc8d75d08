package limits

import "time"

// Line index of tools/read (SPEC §4): the one streaming pass that tags and
// counts a file, and the sparse marks that let later pages seek instead of
// rescanning.
const (
	// LineIndexPassBufferBytes is the read size of the tagging and counting pass.
	LineIndexPassBufferBytes = 1 * MiB
	// LineIndexBlockBytes is the granularity at which the pass considers
	// placing a mark (at the last line start of such a block).
	LineIndexBlockBytes = 16 * KB
	// LineIndexMarkLines is how many lines may pass before the index places
	// another mark.
	LineIndexMarkLines = 1024
	// LineIndexMarkBytes is how many bytes may pass before the index places
	// another mark, so files of long lines stay cheap to seek in.
	LineIndexMarkBytes = 64 * KB
	// LineIndexMaxMarks bounds the marks of one file; past it the index keeps
	// every other mark and doubles its spacing.
	LineIndexMaxMarks = 1 << 16
	// LineIndexCacheBytes bounds the memory of a session's cached indexes;
	// the least recently used index is dropped first.
	LineIndexCacheBytes = 16 * MiB
	// LineIndexRacyWindow is how close to the moment an index was built a
	// file's mtime or ctime may be for the index to be distrusted and rebuilt,
	// since a write within one timestamp tick leaves size and times unchanged.
	LineIndexRacyWindow = 2 * time.Second
)

// Read window scanning and NOT_FOUND suggestions (SPEC §4).
const (
	// ReadScanBufferBytes is the buffer that lines of a Read window are read
	// through; longer lines are read in pieces and clipped.
	ReadScanBufferBytes = 256 * KB
	// ReadMaxSuggestions is how many similar names a NOT_FOUND error of Read
	// lists in data.suggestions.
	ReadMaxSuggestions = 3
	// ReadSuggestScanEntries bounds the directory entries looked at for
	// suggestions.
	ReadSuggestScanEntries = 10000
)

// ReadChangedRetries is how many times Read redoes a window whose file changed
// while it was read before it answers IO_ERROR.
const ReadChangedRetries = 3
