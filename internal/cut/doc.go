// Package cut bounds text to a budget without ever cutting it silently: a
// result is never shortened without a marker, and never cut into invalid
// UTF-8.
//
// # Streams
//
// Head and Tail cut a stream to a Budget by whole lines, keeping its head
// (stdout) or its tail (stderr), and add the exact SPEC §6.2 marker whenever
// anything was dropped — by the budget or earlier by capture. When no whole
// line fits, a character-boundary-safe part of the edge line is kept, never an
// empty excerpt. CountLines and LineCounter count lines as SPEC §2 does.
//
// # Lines and results
//
// ClipLine clips one line to limits.MaxLineChars code points for Read and Grep
// and repairs invalid UTF-8 to U+FFFD, reporting both. ResultBudget is the
// search budget one Read, Grep, Glob or Edit result spends, and the one
// sentence it says when it stops. Every text these functions return is valid
// UTF-8.
package cut
