// Package contentindex narrows a grep to the files that may hold a match,
// and never drops a file that does: every file grep's matcher finds a match
// in is among the candidates, so a grep that reads only the candidates
// answers exactly what a grep of every file answers.
//
// # The index
//
// For each text file of a root it records the distinct trigrams (three
// consecutive bytes, ASCII letters folded to lower case) of its content,
// and per trigram a mask: what follows its occurrences without an
// upper-case letter, and what follows those with one (eight bits each, a
// Bloom filter of the next byte and of the next three bytes, folded), so a
// literal's consecutive trigrams ask for 4-grams and 6-grams of it. A file
// larger than limits.IndexBlockBytes is indexed as blocks, each ending at a
// line break (see blockCutter), so its masks do not fill up: a pattern no
// match of which can hold a line break keeps a file when one of its blocks
// satisfies the query, any other pattern when its blocks together do; the
// index records where each block starts, so the former reads only the
// satisfying blocks in count and filesWithMatches greps (MatchSpans). A
// case-insensitive query reads one posting list per trigram, as a
// case-sensitive one does; the latter also asks the masks for its case. The
// file lives at <dataDir>/index/<hash of the root's real path>/index and is
// mmapped read-only. Posting lists are uvarint deltas of document ids, or a
// bitmap of one bit per document when that is smaller (a trigram in more
// than about one file in eight); see format.go. The file is written with
// package atomicfile, so a reader maps a whole old or a whole new index, and
// a reader needs no lock. Building takes an flock on the directory's lock
// file: of several servers on one root and dataDir one builds, the others
// wait without blocking a call and then map its result.
//
// # What the index trusts
//
// Each document records the size and mtime (ns) it had when read. A file
// whose size or mtime differs now, a file the index does not hold, and a
// file it did not index (binary by content, larger than
// limits.IndexMaxFileBytes, changed while read, or read within
// limits.IndexRacyWindow of its mtime, as git treats racily clean files) is
// always a candidate. Files changed since the build are read into an
// in-memory overlay by the background worker, so they are narrowed too; past
// limits.IndexOverlayMaxFiles stale files the index is rebuilt in the
// background.
//
// # Query planning
//
// Plan turns a pattern into a boolean trigram query with regexp/syntax,
// following the design of Russ Cox's "Regular Expression Matching with a
// Trigram Index": per node it tracks the exact set of matched strings or
// their possible prefixes and suffixes, and a query every match satisfies.
// Case folding expands each literal rune to its Unicode fold orbit (k, K and
// U+212A KELVIN SIGN), then folds ASCII as the index does; terms every
// alternative of such an expansion needs are read once (see factor). U+FFFD stands for
// any byte that is not UTF-8 (regexp matches such a byte as U+FFFD), so it
// yields no trigram. A pattern with no usable trigram plans to OpAll, and
// Candidates then answers ok=false: grep reads every file as without index.
//
// # Never in the way
//
// Candidates never waits: before an index is mapped, or when the dataDir is
// read-only, full, or the index would pass limits.IndexQuotaPercent of the
// text, it answers ok=false (the last three are logged once per session).
// One worker goroutine per root builds and reads changed files, on a thread
// at nice limits.IndexBuildNice and the idle I/O class, paced to
// limits.IndexBuildCPUPercent of one core. It stops with Close; a stopped
// build resumes from its last complete run.
package contentindex
