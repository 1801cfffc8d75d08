// Package walk lists a tree the way ripgrep does — ignore files honoured,
// .git never entered, symlinks never followed — and tells binary files from
// text by name and by their first bytes. Which files a walk keeps is exactly
// what `git check-ignore` says for the git sources below, plus ripgrep's
// .ignore files; the tests hold it to git as the oracle.
//
// # What a walk lists
//
// Walk returns the regular files below Options.Start, newest first (ties by
// path). It never enters .git, .hg or .svn, never follows a symlink (to a
// directory or to a file: a symlinked file is not listed), never opens a
// FIFO, socket or device, and skips directories it cannot read. Hidden
// files are listed like any other. A Start that is a regular file is listed
// whatever the ignore rules say.
//
// # Ignore sources
//
// Five sources of rules can decide a path, all in git's ignore syntax
// (package gitignore parses and matches them as git does):
//
//  1. .ignore files, in the directory of the path and every parent up to the
//     scope's root (ripgrep's own files, for rules that are not git's);
//  2. .gitignore files, at the same levels;
//  3. the repository's info/exclude (of the git dir a .git directory or
//     file names, shared by linked worktrees);
//  4. the global excludes file: git's core.excludesFile, by default
//     $XDG_CONFIG_HOME/git/ignore, else ~/.config/git/ignore;
//  5. nothing else: there are no built-in rules besides the three skipped
//     directories.
//
// An ignore file that is a symlink is not read (git's rule for files in the
// tree); neither is one that is not a regular file. .gitignore applies
// whether or not the tree is a git repository (ripgrep's --no-require-git).
//
// # Precedence
//
// For each path, the sources are asked in the order above, and the first
// source with a matching rule decides; later sources are not asked. Within
// a source, the file of the deepest directory is asked first, and within a
// file the last matching line wins. The deciding rule ignores the path,
// unless it is a negation ("!pattern"), which keeps it. So:
//
//   - any .ignore file beats every .gitignore file, whatever their depths
//     (as in ripgrep: precedence between kinds of file does not follow the
//     directory hierarchy);
//   - a deeper .gitignore beats a shallower one, and any .gitignore beats
//     info/exclude, which beats the global file (as in git);
//   - a negation re-includes only what a lower-precedence rule excluded: it
//     cannot reach into a directory that is itself ignored, because the walk
//     never enters an ignored directory (git's rule: "It is not possible to
//     re-include a file if a parent directory of that file is excluded").
//
// # Scopes
//
// The rules that apply below a directory are those of its scope. The scope
// is the nearest repository at or above the walk's Start (a directory
// holding .git, as a directory or a file), whose info/exclude applies and
// whose .gitignore and .ignore files between its top and Start are read.
// Outside a repository the scope is Options.Boundary, the session root
// holding Start, so no ignore file above the root is ever read.
//
// A nested repository starts a new scope: inside it the parents' .gitignore
// and .ignore files stop applying, and its own info/exclude applies instead.
//
// # Explicit paths
//
// When Start itself lies in a directory its parents' rules ignore (a walk
// asked for node_modules/x, or a spill directory), the parents' rules and
// the repository's info/exclude are dropped for the walk: only the global
// excludes file (relative to Start) and the ignore files at or below Start
// apply. This is SPEC §3's rule that an explicit path reaches ignored trees.
// IgnoresFor gives a caller that keeps its own view of a tree (a file table)
// exactly the verdicts Walk would reach, one directory at a time.
//
// # Examples
//
// A repository whose top holds
//
//	.gitignore          *.log
//	                    !keep.log
//	.ignore             debug.log
//	.git/info/exclude   build/
//	sub/.gitignore      !*.log
//
// gives these verdicts, with the deciding rule:
//
//	app.log        ignored  .gitignore:1 *.log
//	keep.log       kept     .gitignore:2 !keep.log    the last matching line of a file wins
//	debug.log      ignored  .ignore:1 debug.log       .ignore is asked before .gitignore
//	sub/app.log    kept     sub/.gitignore:1 !*.log   the deeper .gitignore is asked first
//	sub/debug.log  ignored  .ignore:1 debug.log       every .ignore before any .gitignore
//	build/x.go     ignored  .git/info/exclude:1 build/ (the directory is never entered)
//
// sub/debug.log is the verdict that surprises: a pattern without a slash
// matches a base name at any depth below its file's directory, so the top's
// .ignore "debug.log" matches sub/debug.log, and because the .ignore source
// is asked before the .gitignore source, sub/.gitignore's "!*.log" is never
// consulted for it.
//
// A walk started at build/ — an explicit path into the excluded directory —
// lists build/x.go: the parents' rules and info/exclude do not apply to it.
//
// If sub holds a .git of its own (a nested repository), none of the top's
// .gitignore, .ignore or info/exclude rules apply inside it, and sub/app.log
// and sub/debug.log are both listed.
//
// TestDocExamples builds this tree and checks every verdict above.
//
// # Binary files
//
// A file is binary when its extension is on the blocklist of SPEC §4
// (IsBinaryName, NameReason) or its first limits.SniffBytes hold a NUL byte
// or more than limits.BinaryNonPrintablePercent percent non-printable bytes
// (Sniff, SniffFile). Walk lists binary files; the searches that read
// contents skip them.
//
// Its API is toolrpc's own: it serves the server and may change between
// minor versions. The stable surfaces are the wire protocol (docs/protocol.md)
// and the packages client, wire and lspframe.
package walk
