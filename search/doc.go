// Package search finds the lines of a buffer that an RE2 pattern matches,
// reporting exactly the lines a per-line regexp match would, in line order.
//
// To be fast it never runs the regexp over text that cannot match: a literal
// every match must contain is extracted with regexp/syntax and searched for
// across the whole buffer (IndexByte on its rarest byte, then a compare that
// folds ASCII case only for letters without non-ASCII case partners), and the
// regexp then runs on the candidate lines alone. Patterns without such a
// literal are run over the buffer once and confirmed per line.
package search
