package limits

// Grep engine tunables (SPEC §5 leaves them to the implementation): how
// files are chunked, batched, looked ahead and searched while the walk runs.
// None of them changes a result.
const (
	// SearchChunkBytes is how much of a file Grep holds in memory at once; a
	// larger file is searched in chunks cut at line ends, and a match (or a
	// context line) never spans two chunks.
	SearchChunkBytes = 8 * MiB
	// SearchLookahead is how many batches per worker Grep may claim ahead of
	// the ordered merge; past the stop point at most this much work is
	// wasted.
	SearchLookahead = 2
	// SearchEntryOverheadBytes is what one result entry costs beyond its
	// path and text when the 128 KB result budget is counted (JSON keys,
	// quotes, numbers).
	SearchEntryOverheadBytes = 32

	// SearchBatchFiles is how many consecutive files (in result order) a
	// Grep worker claims and hands to the ordered merge at once at first;
	// each later batch is 1/SearchBatchGrowth of the files before it, up to
	// SearchBatchMaxFiles. Few hand-offs keep goroutine wake-ups (futex
	// calls, context switches) off the per-file cost, while a search whose
	// result fills after a few files wastes little past its stop point.
	SearchBatchFiles    = 4
	SearchBatchGrowth   = 16
	SearchBatchMaxFiles = 256
	// SearchLineChunkBytes is the chunk Grep reads a large file in when no
	// match can involve two lines (no multiline, no context lines): the
	// lines found do not depend on where chunks are cut, and a small
	// reused buffer costs fewer page faults than one sized for the largest
	// file. Other searches keep SearchChunkBytes.
	SearchLineChunkBytes = 256 * KB

	// SearchFirstReadBytes is the most a Grep reads of a file before it
	// sniffs its start for binary content (SniffBytes at least): most
	// source files are read whole in one read, and a binary file costs at
	// most this much.
	SearchFirstReadBytes = 64 * KB
	// SearchLikelyFirstReadBytes replaces SearchFirstReadBytes in a
	// filesWithMatches grep of the files a content index kept, most of
	// which match: one match answers a file, and most match early, so a
	// smaller first read copies less (then twice as much each time).
	SearchLikelyFirstReadBytes = 16 * KB
	// SearchContinuations is how many stopped count and filesWithMatches
	// greps a session keeps the place of, so the page that continues one
	// (offset = the entries it gave) searches on from where it stopped
	// instead of searching every file before that again (search.Resumes).
	SearchContinuations = 4
)
