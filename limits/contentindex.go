package limits

import "time"

// Content index of tools/grep (issue 15). None of these changes an answer:
// the index only chooses which files grep reads.
const (
	// IndexMaxFileBytes is the largest file the content index holds; larger
	// files are always read by grep.
	IndexMaxFileBytes = 32 * MiB
	// IndexQuotaPercent bounds the index on disk as a share of the text it
	// indexes; a build that would pass it is discarded and the root is
	// searched without an index.
	IndexQuotaPercent = 30
	// IndexQuotaMinBytes is the quota of a small tree, whose index is
	// mostly fixed overhead.
	IndexQuotaMinBytes = 1 * MiB
	// IndexBuildCPUPercent is the share of one core the index builder may
	// use (it also runs at nice IndexBuildNice): it sleeps as long as it
	// worked beyond this share.
	IndexBuildCPUPercent = 50
	// IndexBuildNice is the nice value of the builder's thread.
	IndexBuildNice = 19
	// IndexRunPairs is how many (trigram, file) pairs the builder gathers
	// in memory (8 bytes each) before it sorts and writes them as one run.
	IndexRunPairs = 1 << 20
	// IndexOverlayMaxFiles bounds the files held in the in-memory overlay
	// of files changed since the build; past it the index is rebuilt in the
	// background.
	IndexOverlayMaxFiles = 4096
	// IndexClassifyBatchFiles is how many consecutive listed files one
	// core matches against the index's documents at a time, when a grep
	// meets a listing the index has not seen (a new session, a changed
	// table).
	IndexClassifyBatchFiles = 2048
	// IndexOverlayMaxBytes bounds the trigrams the overlay holds, in bytes.
	IndexOverlayMaxBytes = 16 * MiB
	// IndexRacyWindow is how close to the moment a file was read its mtime
	// may be for the index to distrust what it read: a write within one
	// timestamp tick leaves size and mtime unchanged.
	IndexRacyWindow = 2 * time.Second
	// IndexMaxExactSet, IndexMaxAffixSet and IndexMaxClassRunes bound the
	// string sets the query planner tracks per regexp node; past them it
	// keeps the trigrams it has and forgets the strings, so the query stays
	// small and is still implied by every match.
	IndexMaxExactSet = 16
	// IndexMaxQueryTerms bounds the terms of one AND or OR of a planned
	// query: an AND keeps that many (a weaker query), a larger OR matches
	// everything; IndexMaxPatternBytes is the longest pattern planned at
	// all (longer ones search every file).
	IndexMaxQueryTerms   = 64
	IndexMaxPatternBytes = 4 * KB
	IndexMaxAffixSet     = 32
	IndexMaxClassRunes   = 16
)

// IndexBlockBytes is the size past which the content index splits a file
// into blocks, each ending at the first line break after this many bytes:
// a trigram's follower masks fill up in a large file, so per-block masks
// narrow large files again.
const IndexBlockBytes = 64 * KB

// IndexMaxFileBlocks bounds the blocks of one file: a larger file gets
// larger blocks, so the builder's memory for one file stays bounded.
const IndexMaxFileBlocks = 32
