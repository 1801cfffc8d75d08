// Package methods implements toolrpc's methods, one file per tool, each
// bounding its result with package limits so the caller learns what was cut
// and how to get the rest.
//
// A method registers itself from its file's init function with register; the
// Toolbox serves every registered method once initialize has built a Session.
package methods
