// Package limits holds every number of the toolrpc contract (SPEC §2) and the
// truncation core every tool uses, so a result is never cut without a marker and
// never cut into invalid UTF-8.
//
// # Numbers
//
// Each limit is a named constant here and nowhere else. Descriptions in
// tools/list, error messages and the initialize result are generated from them.
package limits
