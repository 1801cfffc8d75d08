// Package walk lists a tree the way ripgrep does — ignore files honoured,
// .git never entered, directory symlinks never followed — and tells binary
// files from text by name and by their first bytes.
package walk
