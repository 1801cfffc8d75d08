package client

import (
	"encoding/json"
	"fmt"

	"go.lsp.dev/protocol"

	"github.com/toolrpc/toolrpc/internal/roots"
	"github.com/toolrpc/toolrpc/lspframe"
)

// Documents (SPEC §15): a host that holds buffers but is not an LSP client
// tells the server about them with DidOpen, DidChange and DidClose, and
// applies the server's edits of them in Options.OnApplyEdit.

// Position is an LSP position: a 0-based line and a character counted in
// the position encoding initialize negotiated (capabilities.positionEncoding).
type Position struct {
	Line      int `json:"line"`
	Character int `json:"character"`
}

// Range is an LSP range.
type Range struct {
	Start Position `json:"start"`
	End   Position `json:"end"`
}

// TextChange is one content change of DidChange: Range replaced by Text, or
// the whole text when Range is nil.
type TextChange struct {
	Range *Range `json:"range,omitempty"`
	Text  string `json:"text"`
}

// TextEdit is one edit of an ApplyEdit.
type TextEdit struct {
	Range   Range  `json:"range"`
	NewText string `json:"newText"`
}

// ApplyEdit is the server's workspace/applyEdit of one open document.
type ApplyEdit struct {
	// Label names the tool call to the user.
	Label string
	// URI and Version name the document and the version the edits are
	// made against.
	URI     string
	Version int32
	// Edits apply to that version, in order.
	Edits []TextEdit
}

// ApplyEditHandler applies an edit to the host's buffer, sends the DidChange
// that carries it (the server answers the tool call only once that change
// has arrived), and reports whether it applied; failureReason says why not.
// It runs on a goroutine of its own, one edit at a time per document.
type ApplyEditHandler func(e ApplyEdit) (applied bool, failureReason string)

// DocumentURI returns the file: URI the server knows the file at the
// absolute path abs by.
func DocumentURI(abs string) string { return roots.PathURI(abs) }

// DidOpen tells the server the host holds the file abs with text at version.
func (c *Conn) DidOpen(abs, languageID string, version int32, text string) error {
	return c.Notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{
		"uri": DocumentURI(abs), "languageId": languageID, "version": version, "text": text}})
}

// DidChange tells the server the buffer of abs changed to version by changes.
func (c *Conn) DidChange(abs string, version int32, changes ...TextChange) error {
	return c.Notify("textDocument/didChange", map[string]any{
		"textDocument":   map[string]any{"uri": DocumentURI(abs), "version": version},
		"contentChanges": changes})
}

// DidClose tells the server the host no longer holds abs: the tools use the
// disk for it again.
func (c *Conn) DidClose(abs string) error {
	return c.Notify("textDocument/didClose", map[string]any{"textDocument": map[string]any{"uri": DocumentURI(abs)}})
}

// DidSave tells the server the buffer of abs was saved.
func (c *Conn) DidSave(abs string) error {
	return c.Notify("textDocument/didSave", map[string]any{"textDocument": map[string]any{"uri": DocumentURI(abs)}})
}

// withEditCapabilities returns p declaring workspace.applyEdit and
// workspaceEdit.documentChanges, for a Conn with an OnApplyEdit hook.
func withEditCapabilities(p *protocol.InitializeParams) *protocol.InitializeParams {
	cp := *p
	ws := protocol.WorkspaceClientCapabilities{}
	if p.Capabilities.Workspace != nil {
		ws = *p.Capabilities.Workspace
	}
	ws.ApplyEdit = true
	we := protocol.WorkspaceClientCapabilitiesWorkspaceEdit{}
	if ws.WorkspaceEdit != nil {
		we = *ws.WorkspaceEdit
	}
	we.DocumentChanges = true
	ws.WorkspaceEdit = &we
	cp.Capabilities.Workspace = &ws
	return &cp
}

// answerApplyEdit runs the hook on a workspace/applyEdit request and
// replies to it.
func (c *Conn) answerApplyEdit(id, params json.RawMessage) {
	var p struct {
		Label string `json:"label"`
		Edit  struct {
			DocumentChanges []struct {
				TextDocument struct {
					URI     string `json:"uri"`
					Version int32  `json:"version"`
				} `json:"textDocument"`
				Edits []TextEdit `json:"edits"`
			} `json:"documentChanges"`
		} `json:"edit"`
	}
	applied, reason := false, ""
	switch err := json.Unmarshal(params, &p); {
	case err != nil:
		reason = fmt.Sprintf("unreadable workspace/applyEdit: %v", err)
	case len(p.Edit.DocumentChanges) != 1:
		reason = fmt.Sprintf("workspace/applyEdit of %d documents; this client applies one", len(p.Edit.DocumentChanges))
	default:
		dc := p.Edit.DocumentChanges[0]
		applied, reason = c.opts.OnApplyEdit(ApplyEdit{Label: p.Label, URI: dc.TextDocument.URI, Version: dc.TextDocument.Version, Edits: dc.Edits})
	}
	body, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id,
		"result": map[string]any{"applied": applied, "failureReason": reason}})
	if err != nil {
		return
	}
	c.wmu.Lock()
	defer c.wmu.Unlock()
	if lspframe.Write(c.w, body) == nil {
		_ = c.w.Flush()
	}
}
