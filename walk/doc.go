// Package walk resolves tool paths against the session's roots so that nothing
// outside them is ever read, tells binary files from text, and walks trees the
// way ripgrep does (ignore files honoured, .git never entered, directory
// symlinks never followed).
package walk
