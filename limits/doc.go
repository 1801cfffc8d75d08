// Package limits holds every number of the toolrpc contract (SPEC §2) and the
// truncation core every tool uses, so a result is never cut without a marker and
// never cut into invalid UTF-8.
//
// # Numbers
//
// Each limit is a named constant here and nowhere else. Descriptions in
// tools/list, error messages and the initialize result (Table) are generated
// from them.
//
// # Truncation
//
// HeadCut and TailCut cut a stream to a Budget by whole lines, keeping its
// head (stdout) or its tail (stderr), and add the exact SPEC §6.2 marker
// whenever anything was dropped — by the budget or earlier by capture. When no
// whole line fits, a character-boundary-safe part of the edge line is kept,
// never an empty excerpt. ClipLine clips one line to MaxLineChars code points
// for Read and Grep and repairs invalid UTF-8 to U+FFFD, reporting both. Every
// text these functions return is valid UTF-8.
package limits
