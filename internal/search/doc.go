// Package search finds the files and lines tools/grep and tools/glob report:
// exactly the lines a per-line regexp match would, files newest first, in a
// result no larger than the result budget of package limits.
//
// Grep walks a tree (package walk), searches its text files on one worker per
// core, a bounded number of files ahead, and merges their results in the
// walk's order, stopping as soon as the result is full. A file is read with
// raw syscalls in chunks of whole lines, only up to the size the walk saw.
//
// To be fast it never runs the regexp over text that cannot match: a literal
// every match must contain is extracted with regexp/syntax and searched for
// across the whole buffer (IndexByte on its rarest byte, then a compare that
// folds ASCII case only for letters without non-ASCII case partners), and
// only the candidate lines are then confirmed. A line is confirmed by a
// lazily built DFA over the regexp's own compiled program when the line is
// ASCII (a byte at a time, no backtracking) and by the regexp itself
// otherwise, so both give regexp's answer. A pattern that is one literal
// needs no regexp at all: its candidate lines (every line, when no part of
// it can be scanned for as bytes) are confirmed by comparing the literal's
// runes, or their simple case-fold orbits under caseInsensitive, as regexp
// decodes and folds them (U+FFFD matches a byte that is not UTF-8; k matches
// U+212A KELVIN SIGN, s U+017F LONG S). Other patterns without a literal are
// confirmed line by line by the DFA and the regexp.
//
// A count or filesWithMatches grep that stops at its headLimit or the
// result budget leaves its place in the session's Resumes: the page that
// continues it (same parameters, offset = the entries given so far, and a
// file table that saw no change since) searches on from that place instead
// of searching every earlier file again to skip offset entries, and gives
// the answer that search would (see Resumes).
package search
