// Package documents keeps, per session, the text of each document an LSP
// client has open inside the roots (SPEC §15), in step with the client's
// didOpen, didChange and didClose, so the tools see what the user sees.
//
// # Cost
//
// A document's text is a rope.Text: a change costs O(size of the change +
// log of the document), never a copy of it, and a Doc handed to a tool is an
// immutable snapshot that later changes do not disturb.
//
// # Bad input
//
// Input the store cannot apply — a change to an unknown document, a range
// outside the text, a version that goes backwards, a UTF-16 position inside
// a surrogate pair — is logged and never panics. A document that can no
// longer be kept in sync is dropped: the tools use its file on disk, and say
// so once, until the client opens it again.
package documents
