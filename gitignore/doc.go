// Package gitignore answers git's ignore question exactly as git does: each
// ignore file compiles once into a Matcher that names the last rule matching
// a path (and whether it negates) in about constant time per path, using
// git's own wildmatch semantics; the package also finds the ignore files git
// reads outside the tree (a repository's info/exclude, core.excludesFile).
package gitignore
