// Package editor edits an open document through the editor that holds it
// (SPEC §15): one versioned workspace/applyEdit, answered only once the
// editor has replied and its own didChange has brought the buffer to exactly
// the edited text. The file on disk is not touched, and the edit is on the
// editor's undo stack.
//
// It knows LSP's words and nothing of the tools: a caller computes the new
// text (package lineedit, with every check of SPEC §8) and hands it here.
package editor
