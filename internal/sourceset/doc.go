// Package sourceset records which lines of which file version a Read or Grep
// result showed whole, so an edit can touch only lines the agent has seen,
// in memory bounded by limits.SourceSetMaxFiles and limits.SourceSetMaxSpans.
//
// # Versions
//
// A file version is named by its tag: the first four lowercase hex digits of
// the CRC-32C (Castagnoli) of the whole file (Tag, TagSum). Lines are recorded
// per (absolute path, tag) as merged, sorted ranges, so reading a million
// consecutive lines costs one range.
//
// # Forgetting
//
// The set is a cache with a safe failure mode: when a bound is reached the
// least recently used version is forgotten first, and when one version alone
// holds too many ranges, the ranges farthest from the latest addition go.
// A forgotten line only makes an edit fail with LINE_NOT_VISIBLE until it is
// read again; nothing is ever added that was not shown.
package sourceset
