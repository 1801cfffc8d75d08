// Package page reads one window of numbered lines of a text file of any size
// from one version of that file: never more than the result budget of
// package limits, long lines clipped and listed, binary files refused, and a
// notice that names the next offset, so a caller can page through the rest.
package page
