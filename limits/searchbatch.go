package limits

// Grep engine tunables added for speed (SPEC §5 leaves them to the
// implementation); neither changes a result.
const (
	// SearchBatchFiles is how many consecutive files (in result order) a
	// Grep worker claims and hands to the ordered merge at once: one
	// hand-off per batch instead of per file keeps goroutine wake-ups
	// (futex calls) off the per-file cost. The lookahead of SearchLookahead
	// files per worker is kept, counted in whole batches.
	SearchBatchFiles = 4
	// SearchLineChunkBytes is the chunk Grep reads a large file in when no
	// match can involve two lines (no multiline, no context lines): the
	// lines found do not depend on where chunks are cut, and a small
	// reused buffer costs fewer page faults than one sized for the largest
	// file. Other searches keep SearchChunkBytes.
	SearchLineChunkBytes = 256 * KB
)
