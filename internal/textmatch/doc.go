// Package textmatch finds a quoted piece of text in a file's text the way
// a model means it: exact first, then with a CRLF file's line endings read
// as "\n", then line by line with patch.Seek's tolerances in their order;
// it reports every occurrence at the strictest way that finds any, so a
// caller can refuse an ambiguous edit, and the lines closest to a text that
// is not there at all.
package textmatch
