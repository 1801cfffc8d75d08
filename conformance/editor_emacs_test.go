package conformance

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// The Emacs tests of SPEC §15 drive a real Emacs (Debian's emacs-nox,
// elpa-eglot and elpa-lsp-mode, from .ci/install) whose eglot or lsp-mode
// attaches the server to its buffers with the eglot or the lsp-mode block
// of docs/editors.md as it stands, loaded as init.el. Each runs one `emacs --batch` over a Lisp scenario that logs
// what it saw as JSON for the asserts, in the shape the Neovim scenarios
// log (nvimGet, nvimResult and nvimErrKind read both).

// emacsPrelude is loaded after the docs' block, before a client's
// helpers (eglotPrelude, lspModePrelude) and the scenario.
const emacsPrelude = `;; -*- lexical-binding: t -*-
(defvar tr-out nil)
(defun tr-log (key value)
  (setq tr-out (plist-put tr-out (intern (concat ":" key)) value)))
(defun tr-text () (buffer-substring-no-properties (point-min) (point-max)))
(defun tr-bool (v) (if v t :json-false))
(defun tr-wait (what ok)
  (let ((deadline (+ (float-time) 30)))
    (while (not (funcall ok))
      (when (> (float-time) deadline) (error "timed out: %s" what))
      (accept-process-output nil 0.05))))
(defun tr-write ()
  (let ((coding-system-for-write 'utf-8-unix)
        (json (decode-coding-string
               (json-serialize tr-out :null-object nil :false-object :json-false) 'utf-8)))
    (with-temp-file (getenv "OUT") (insert json))))
`

// eglotPrelude (methods named by strings, as lsp-mode names them): tr-call goes through the docs' toolrpc-request; tr-send
// calls jsonrpc-request itself, so typing eglot still holds back stays
// unsent.
const eglotPrelude = `
(defun tr-reply (thunk)
  (condition-case e (list :result (funcall thunk))
    (jsonrpc-error
     (list :err (list :code (alist-get 'jsonrpc-error-code (cdr e))
                      :message (alist-get 'jsonrpc-error-message (cdr e))
                      :data (alist-get 'jsonrpc-error-data (cdr e)))))))
(defun tr-method (name) (intern (concat ":" name)))
(defun tr-call (method params)
  (tr-reply (lambda () (toolrpc-request (tr-method method) params 30))))
(defun tr-send (method params)
  (tr-reply (lambda () (jsonrpc-request (eglot-current-server) (tr-method method) params :timeout 30))))
(defun tr-tag (reply) (plist-get (plist-get reply :result) :tag))
(defun tr-open (name)
  (find-file (expand-file-name name (getenv "ROOT")))
  (call-interactively #'eglot)
  (tr-wait "eglot starts toolrpc" (lambda () (and (eglot-current-server) eglot--managed-mode))))
(defun tr-done ()
  (tr-write)
  (eglot-shutdown (eglot-current-server))
  (kill-emacs 0))
`

// lspModePrelude: tr-call goes through the docs' toolrpc-lsp-request;
// tr-call-whole makes the same call and keeps a failure's data (lsp-request
// keeps only its message). tr-open adds the root as the user's answer to
// lsp-mode's "import project root" does.
const lspModePrelude = `
(require 'lsp-mode)
(defun tr-call (method params)
  (condition-case e (list :result (toolrpc-lsp-request method params 30))
    (error (list :err (list :message (error-message-string e))))))
(defun tr-call-whole (method params)
  (let (reply)
    (with-lsp-workspace (lsp-find-workspace 'toolrpc (buffer-file-name))
      (lsp-request-async method params (lambda (r) (setq reply (list :result r)))
                         :error-handler (lambda (e) (setq reply (list :err e)))
                         :mode 'detached))
    (tr-wait method (lambda () reply))
    reply))
(defun tr-tag (reply) (gethash "tag" (plist-get reply :result)))
(defun tr-open (name)
  (find-file (expand-file-name name (getenv "ROOT")))
  (lsp-workspace-folders-add (getenv "ROOT"))
  (lsp)
  (tr-wait "lsp-mode starts toolrpc"
           (lambda ()
             (let ((w (lsp-find-workspace 'toolrpc (buffer-file-name))))
               (and w (eq (lsp--workspace-status w) 'initialized) (memq w lsp--buffer-workspaces))))))
(defun tr-done ()
  (tr-write)
  (kill-emacs 0))
`

// emacsClient is how a scenario attaches the server: the docs' block
// (elisp block n of docs/editors.md) and the helpers that go with it.
type emacsClient struct {
	block   int
	prelude string
}

var (
	emacsEglot   = emacsClient{0, eglotPrelude}
	emacsLSPMode = emacsClient{1, lspModePrelude}
)

// runEmacs runs scenario in `emacs --batch` on root (files already there)
// and returns what it logged. The server is found as `toolrpc` on PATH, as
// the docs' block names it; its data goes to a temporary XDG_STATE_HOME.
func runEmacs(t *testing.T, client emacsClient, root, scenario string) map[string]json.RawMessage {
	t.Helper()
	emacs, err := exec.LookPath("emacs")
	require.NoError(t, err, "Emacs is installed by .ci/install (apt emacs-nox elpa-eglot elpa-lsp-mode)")
	dir := t.TempDir()
	binDir := filepath.Join(dir, "bin")
	require.NoError(t, os.Mkdir(binDir, 0o755))
	require.NoError(t, os.Symlink(bin, filepath.Join(binDir, serverName)))
	initEl := filepath.Join(dir, "init.el")
	require.NoError(t, os.WriteFile(initEl, []byte(";; -*- lexical-binding: t -*-\n"+docsBlock(t, "elisp", client.block)), 0o644))
	script := filepath.Join(dir, "scenario.el")
	require.NoError(t, os.WriteFile(script, []byte(emacsPrelude+client.prelude+scenario+"\n(tr-done)\n"), 0o644))
	outFile := filepath.Join(dir, "out.json")
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	// An interactive Emacs activates the installed packages (elpa-eglot is
	// one) before it loads init.el; --batch does neither, so the command
	// line does both, in that order.
	cmd := exec.CommandContext(ctx, emacs, "--batch", "--eval", "(package-activate-all)", "-l", initEl, "-l", script)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir(), "XDG_STATE_HOME="+t.TempDir(), "LANG=C.UTF-8",
		"PATH="+binDir+string(os.PathListSeparator)+os.Getenv("PATH"), "ROOT="+root, "OUT="+outFile)
	return runEditor(t, cmd, outFile)
}

// emacsUnsavedScenario replaces line 2 of a.txt unsaved and logs what
// checkUnsavedSeen checks.
const emacsUnsavedScenario = `
(tr-open "a.txt")
(goto-char (point-min)) (forward-line 1)
(delete-region (point) (line-end-position))
(insert "typed by the 😀 user")
(tr-log "grep" (tr-call "tools/grep" '(:pattern "typed" :outputMode "content")))
(tr-log "count" (tr-call "tools/grep" '(:pattern "typed" :outputMode "count")))
(tr-log "stale" (tr-call "tools/grep" '(:pattern "beta")))
(tr-log "read" (tr-call "tools/read" '(:path "a.txt")))
(tr-log "bash" (tr-call "tools/bash" '(:command "cat a.txt")))
(tr-log "modified" (tr-bool (buffer-modified-p)))
`

// TestEditorEmacs_UnsavedTextSeen checks SPEC §15 (reading) with eglot:
// text typed into an Emacs buffer and not saved is what tools/grep finds
// and tools/read shows (source editor, unsaved), while bash is told it
// sees the disk.
func TestEditorEmacs_UnsavedTextSeen(t *testing.T) { emacsUnsavedSeen(t, emacsEglot) }

// emacsUnsavedSeen runs emacsUnsavedScenario in an Emacs attached to the
// server by client (the docs' eglot or lsp-mode block) and checks what the
// tools saw.
func emacsUnsavedSeen(t *testing.T, client emacsClient) {
	root := t.TempDir()
	writeFiles(t, root, map[string]string{"a.txt": "alpha\nbeta\ngamma\n", "b.txt": "other\n"})
	got := runEmacs(t, client, root, emacsUnsavedScenario)
	checkUnsavedSeen(t, got, root, "typed by the 😀 user")
	require.True(t, nvimGet[bool](t, got, "modified"))
}

// TestEditorEmacs_EditInBufferUndoable checks SPEC §15 (edits, position
// encodings) with eglot: tools/edit of an open file arrives as one
// workspace/applyEdit whose positions count UTF-16 (eglot 1.9 offers no
// other), changes the Emacs buffer and not the disk, and Emacs's undo takes
// it back to the unmodified buffer; the tools then read the disk again.
func TestEditorEmacs_EditInBufferUndoable(t *testing.T) {
	root := t.TempDir()
	writeFiles(t, root, map[string]string{"a.txt": "alpha\nx😀 beta\ngamma\n"})
	got := runEmacs(t, emacsEglot, root, `
(tr-open "a.txt")
(cl-defmethod eglot-handle-request :before
  ((_server toolrpc-eglot) (_method (eql workspace/applyEdit)) &key edit &allow-other-keys)
  (tr-log "applyEdit" edit))
(tr-log "encoding" (plist-get (eglot--capabilities (eglot-current-server)) :positionEncoding))
(let ((r (tr-call "tools/read" '(:path "a.txt"))))
  (tr-log "read" r)
  (undo-boundary)
  (tr-log "edit" (tr-call "tools/edit"
                          (list :path "a.txt" :tag (tr-tag r)
                                :ops [(:op "replace" :start 2 :lines ["x😀 BETA by the agent"])])))
  (tr-log "buffer" (tr-text))
  (tr-log "modified" (tr-bool (buffer-modified-p)))
  (tr-log "readEdited" (tr-call "tools/read" '(:path "a.txt")))
  (undo-boundary)
  (undo)
  (tr-log "undone" (tr-text))
  (tr-log "modifiedUndone" (tr-bool (buffer-modified-p)))
  (tr-log "readUndone" (tr-call "tools/read" '(:path "a.txt"))))
`)
	require.Equal(t, "utf-16", nvimGet[string](t, got, "encoding"))
	type pos struct {
		Line      int `json:"line"`
		Character int `json:"character"`
	}
	apply := nvimGet[struct {
		DocumentChanges []struct {
			TextDocument struct {
				Version int `json:"version"`
			} `json:"textDocument"`
			Edits []struct {
				Range struct {
					Start pos `json:"start"`
					End   pos `json:"end"`
				} `json:"range"`
				NewText string `json:"newText"`
			} `json:"edits"`
		} `json:"documentChanges"`
	}](t, got, "applyEdit")
	require.Len(t, apply.DocumentChanges, 1)
	require.Len(t, apply.DocumentChanges[0].Edits, 1)
	e := apply.DocumentChanges[0].Edits[0]
	// "x😀 " is 4 UTF-16 code units (6 bytes, 3 code points).
	require.Equal(t, pos{1, 4}, e.Range.Start, "%+v", e)
	require.Equal(t, pos{1, 8}, e.Range.End, "%+v", e)
	require.Equal(t, "BETA by the agent", e.NewText)

	checkEditUndone(t, got, root, "alpha\nx😀 beta\ngamma\n", "x😀 BETA by the agent")
	require.Equal(t, "alpha\nx😀 BETA by the agent\ngamma\n", nvimGet[string](t, got, "buffer"))
	require.True(t, nvimGet[bool](t, got, "modified"))
	require.Equal(t, "alpha\nx😀 beta\ngamma\n", nvimGet[string](t, got, "undone"))
	require.False(t, nvimGet[bool](t, got, "modifiedUndone"), "one undo takes the whole edit back")
}

// TestEditorEmacs_StaleVersionRefused checks SPEC §15 (edits) with eglot:
// an edit made against text the user has since typed is STALE_TAG with the
// buffer's tag and applies nothing, both when the typing is still held back
// by eglot (the applyEdit carries the old version; eglot answers with an
// error reply, its reason in failureReason) and when it was sent (the
// server refuses before sending anything).
func TestEditorEmacs_StaleVersionRefused(t *testing.T) {
	root := t.TempDir()
	writeFiles(t, root, map[string]string{"a.txt": "alpha\nbeta\ngamma\n"})
	got := runEmacs(t, emacsEglot, root, `
(tr-open "a.txt")
(let* ((r (tr-call "tools/read" '(:path "a.txt")))
       (edit (list :path "a.txt" :tag (tr-tag r)
                   :ops [(:op "replace" :start 2 :lines ["BETA by the agent"])])))
  (goto-char (point-min))
  (insert "typed ")
  (tr-log "edit" (tr-send "tools/edit" edit))
  (tr-log "buffer" (tr-text))
  (tr-log "read" (tr-call "tools/read" '(:path "a.txt")))
  (insert "more ")
  (tr-log "edit2" (tr-call "tools/edit" edit))
  (tr-log "buffer2" (tr-text))
  (tr-log "read2" (tr-call "tools/read" '(:path "a.txt"))))
`)
	type staleData struct {
		Tag           string `json:"tag"`
		FailureReason string `json:"failureReason"`
	}
	kind, raw := nvimErrKind(t, got, "edit")
	require.Equal(t, "STALE_TAG", kind, "%s", raw)
	var d staleData
	require.NoError(t, json.Unmarshal(raw, &d))
	read := nvimResult[editorRead](t, got, "read")
	require.Equal(t, read.Tag, d.Tag, "STALE_TAG names the buffer's current tag")
	require.Regexp(t, `^Edits on .a\.txt. require version \d+, you have \d+$`, d.FailureReason, "eglot's own refusal")
	require.Equal(t, "typed alpha\nbeta\ngamma\n", nvimGet[string](t, got, "buffer"), "nothing of the edit applied")

	kind, raw = nvimErrKind(t, got, "edit2")
	require.Equal(t, "STALE_TAG", kind, "%s", raw)
	d = staleData{}
	require.NoError(t, json.Unmarshal(raw, &d))
	require.Equal(t, nvimResult[editorRead](t, got, "read2").Tag, d.Tag)
	require.Empty(t, d.FailureReason, "refused before anything was sent to Emacs")
	require.Equal(t, "typed more alpha\nbeta\ngamma\n", nvimGet[string](t, got, "buffer2"))
	require.Equal(t, "alpha\nbeta\ngamma\n", readFile(t, filepath.Join(root, "a.txt")))
}

// TestEditorEmacs_LSPModeUnsavedTextSeen checks SPEC §15 (reading) with
// lsp-mode: text typed into an Emacs buffer and not saved is what
// tools/grep finds and tools/read shows, while bash is told it sees the
// disk.
func TestEditorEmacs_LSPModeUnsavedTextSeen(t *testing.T) { emacsUnsavedSeen(t, emacsLSPMode) }

// TestEditorEmacs_LSPModeEditUndoableStaleRefused checks SPEC §15 (edits,
// position encodings) with lsp-mode: the docs' block offers utf-32 (lsp-mode
// counts columns in characters) and the server takes it, so an edit after an
// emoji lands where it should, in the buffer and not on disk, and undo takes
// it back; an edit made against text the user has since typed is STALE_TAG
// with the buffer's tag, and nothing is applied.
func TestEditorEmacs_LSPModeEditUndoableStaleRefused(t *testing.T) {
	root := t.TempDir()
	writeFiles(t, root, map[string]string{"a.txt": "alpha\nx😀 beta\ngamma\n"})
	got := runEmacs(t, emacsLSPMode, root, `
(tr-open "a.txt")
(tr-log "encoding" (gethash "positionEncoding"
                            (lsp--workspace-server-capabilities (lsp-find-workspace 'toolrpc (buffer-file-name)))))
(let ((edit (lambda (r) (list :path "a.txt" :tag (tr-tag r)
                              :ops [(:op "replace" :start 2 :lines ["x😀 BETA by the agent"])])))
      (r (tr-call "tools/read" '(:path "a.txt"))))
  (tr-log "read" r)
  (undo-boundary)
  (tr-log "edit" (tr-call "tools/edit" (funcall edit r)))
  (tr-log "buffer" (tr-text))
  (tr-log "readEdited" (tr-call "tools/read" '(:path "a.txt")))
  (undo-boundary)
  (undo)
  (tr-log "undone" (tr-text))
  (tr-log "modifiedUndone" (tr-bool (buffer-modified-p)))
  (tr-log "readUndone" (tr-call "tools/read" '(:path "a.txt")))
  (let ((r (tr-call "tools/read" '(:path "a.txt"))))
    (goto-char (point-min))
    (insert "typed ")
    (tr-log "typedEdit" (tr-call-whole "tools/edit" (funcall edit r)))
    (tr-log "bufferTyped" (tr-text))
    (tr-log "readTyped" (tr-call "tools/read" '(:path "a.txt")))))
`)
	require.Equal(t, "utf-32", nvimGet[string](t, got, "encoding"))
	checkEditUndone(t, got, root, "alpha\nx😀 beta\ngamma\n", "x😀 BETA by the agent")
	require.Equal(t, "alpha\nx😀 BETA by the agent\ngamma\n", nvimGet[string](t, got, "buffer"))
	require.Equal(t, "alpha\nx😀 beta\ngamma\n", nvimGet[string](t, got, "undone"))
	require.False(t, nvimGet[bool](t, got, "modifiedUndone"), "one undo takes the whole edit back")

	checkStaleRefused(t, got, root, "typedEdit", "readTyped", "bufferTyped", "typed alpha\nx😀 beta\ngamma\n", "alpha\nx😀 beta\ngamma\n")
}
