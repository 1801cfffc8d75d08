// Package patch parses and applies V4A patches (the format of OpenAI's
// apply_patch tool) to texts in memory, all or nothing: Apply either
// returns every file's new text or names the one hunk that fails and why,
// and changes nothing on disk (it never touches the disk).
//
// # Matching
//
// A hunk's old lines are looked for exact first, then with each stated
// tolerance in order (Exact, TrailingSpace, Indent, Punctuation, as Codex's
// seek_sequence does), the first tolerance that finds them wins, and every
// match that needed one is reported in the result.
//
// # Bytes kept
//
// Lines are matched without their endings. Lines the patch adds take the
// file's dominant ending (CRLF stays CRLF); context lines keep the file's own
// bytes even when they matched tolerantly; a file without a final newline
// keeps it absent. Everything outside the replaced lines is kept byte for
// byte.
package patch
