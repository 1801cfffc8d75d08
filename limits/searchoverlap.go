package limits

// Grep engine tunables for searching while the walk runs (SPEC §5 leaves
// them to the implementation); neither changes a result.
const (
	// SearchOverlapMinEntries is the smallest offset+headLimit of a count or
	// filesWithMatches Grep that searches files while the walk still runs:
	// such a caller asked for (nearly) every matching file, so the search
	// is unlikely to stop early and work done before the newest-first order
	// is known is rarely wasted. Smaller requests search in order only.
	SearchOverlapMinEntries = 1000
	// SearchOverlapQueueFiles is how many found files wait for a searcher
	// while the walk runs; a file found when the queue is full is searched
	// later, in order.
	SearchOverlapQueueFiles = 4096
)
