// Package textenc names the encoding of a text file so that it can be shown
// decoded and written back byte-exact (SPEC §4.1).
//
// Detect looks at a file's first bytes. A byte-order mark decides (UTF-8,
// UTF-16LE, UTF-16BE). Without one, valid UTF-8 is UTF-8 and Detect returns
// nil. Otherwise a legacy encoding (windows-1252, Shift_JIS, EUC-JP, GB18030,
// Big5, EUC-KR) is named only when the detector is confident and decoding
// then re-encoding the bytes gives them back exactly; else Detect returns nil
// and the caller keeps the UTF-8 rule (U+FFFD, line clipped).
//
// # Why a package of its own
//
// Read, edit, write, grep and the content index must agree on a file's
// encoding, so the decision lives in one place. The name avoids the standard
// library's encoding package and golang.org/x/text/encoding, which this
// package imports.
//
// # Lines
//
// Every encoding named here ends a line at "\n": the legacy ones are ASCII
// compatible (no trail byte is 0x0a or 0x0d), and UTF-16 ends a line at the
// two-byte unit U+000A (Encoding.Unit is 2; a line index counts aligned units).
package textenc
