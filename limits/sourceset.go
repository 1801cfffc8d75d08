package limits

// Edit source set bounds (SPEC §8). Dropping lines from the set only makes an
// edit ask for a fresh Read, so these bound memory without risking a file.
const (
	// SourceSetMaxFiles is the most (path, tag) versions a session's source
	// set remembers; the least recently used version is forgotten first.
	SourceSetMaxFiles = 1024
	// SourceSetMaxSpans is the most merged line ranges the source set holds
	// over all versions, so a session that reads a million lines holds at most
	// this many ranges.
	SourceSetMaxSpans = 1 << 16
	// EditMaxListedLines is how many invisible lines a LINE_NOT_VISIBLE error
	// names; data.more counts the rest.
	EditMaxListedLines = 100
	// EditContextLines is how many unchanged lines an Edit result shows on
	// each side of a changed region.
	EditContextLines = 2
)
