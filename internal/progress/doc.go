// Package progress shows a long build to the client while it runs, the way
// editors show a language server indexing, and never slows the build: a
// build only advances a Meter's counters; a Reporter's goroutine reads them
// and hands a Sink at most one report per limits.ProgressReportInterval,
// between one begin and one end.
//
// # Builds and their counters
//
// Two builds report: the walk of a whole root that fills a file table
// (TableWalk), whose total is not known until it is done, so its reports
// count files found without a percentage; and a content index build
// (IndexBuild), which first lists the root (counted the same way) and then
// indexes a known number of files, so its reports say "i of n files" with
// a percentage. Percentages never fall and never pass 100.
//
// # Sinks
//
// A Sink speaks one face's protocol. LSP turns a build into LSP work-done
// progress: a window/workDoneProgress/create request with a fresh token,
// and, once the client has accepted it, $/progress begin, reports and end
// with that token; a client that answers create with an error gets nothing
// more for that token. MCP hosts get a logging message at a build's begin
// and end (package mcpserve).
//
// A nil *Reporter and a nil *Meter do nothing, so a build and a session
// without a client to show it to need no checks.
package progress
