// Package rope holds a text whose replacements cost O(size of the change +
// log of the text), never a copy of the text: a persistent treap of byte
// chunks, each node counting the bytes and line feeds below it.
//
// A Text is immutable. Replace returns a new Text sharing every chunk the
// change did not touch, so a reader holding an older Text keeps a consistent
// snapshot while an editor's changes are applied to newer ones.
package rope
