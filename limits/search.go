package limits

// Grep engine tunables (SPEC §5 leaves them to the implementation).
const (
	// SearchChunkBytes is how much of a file Grep holds in memory at once; a
	// larger file is searched in chunks cut at line ends, and a match (or a
	// context line) never spans two chunks.
	SearchChunkBytes = 8 * MiB
	// SearchLookahead is how many files per worker Grep may search ahead of
	// the ordered merge; past the stop point at most this much work is wasted.
	SearchLookahead = 8
	// SearchEntryOverheadBytes is what one result entry costs beyond its
	// path and text when the 128 KB result budget is counted (JSON keys,
	// quotes, numbers).
	SearchEntryOverheadBytes = 32
)
