package methods

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/toolrpc/toolrpc/internal/lineedit"
	"github.com/toolrpc/toolrpc/internal/patch"
	"github.com/toolrpc/toolrpc/limits"
	"github.com/toolrpc/toolrpc/rpc"
	"github.com/toolrpc/toolrpc/wire"
)

// applyPatchMethod is OpenAI's apply_patch (SPEC §16): Codex's patch text
// or a Responses API operation, applied all or nothing across every file.
func applyPatchMethod() Method {
	return dialectMethod(OpenAI, "apply_patch", func(Face) string {
		return "Applies a V4A patch (*** Begin Patch / *** Add File: / *** Update File: / *** Move to: / *** Delete File: / @@ / *** End of File / *** End Patch) " +
			"as {\"input\": patch}, or one Responses API operation {type: create_file|update_file|delete_file, path, diff}. " +
			"All or nothing across every file: if any hunk fails, no file changes and the output names the hunk and why. " +
			"Context is matched exactly first, then ignoring trailing whitespace, then indentation, then Unicode punctuation; a tolerant match is reported. " +
			"Line endings (CRLF stays CRLF), a missing final newline, tabs, a BOM and the file's encoding are kept outside the changed lines. " +
			"Add File or Move to over an existing file replaces it (reported). " +
			fmt.Sprintf("Files of at most %d MiB; workspace and scratch files only. ", limits.DialectMaxFileBytes/limits.MiB) +
			"Returns {status: completed|failed, output}, output as Codex prints it (Success. Updated the following files: A/M/D lines)."
	}, wire.InputSchema[wire.ApplyPatchParams](nil), wire.OutputSchema[wire.ApplyPatchResult](nil), applyPatchCall)
}

func applyPatchCall(ctx context.Context, s *Session, call *rpc.Call) DialectReply {
	var p wire.ApplyPatchParams
	if err := json.Unmarshal(call.Params, &p); err != nil { // lenient: models add fields
		return patchFailed(rpc.Errorf(rpc.InvalidArgument, "apply_patch: bad input: %v", err))
	}
	pt, err := patchOf(p)
	if err != nil {
		return patchFailed(err)
	}
	out, err := runPatch(ctx, s, pt)
	if err != nil {
		return patchFailed(err)
	}
	return applyPatchReply{Status: "completed", Output: out}
}

// patchFailed is the failed apply_patch result for err.
func patchFailed(err error) applyPatchReply {
	msg := err.Error()
	var h *patch.HunkError
	var syn *patch.SyntaxError
	if !errors.As(err, &h) && !errors.As(err, &syn) {
		msg = modelError(err)
	}
	return applyPatchReply{Status: "failed", Output: "Error: " + msg + "\nNo file was changed."}
}

// patchOf returns the patch the params carry.
func patchOf(p wire.ApplyPatchParams) (*patch.Patch, error) {
	if p.Input != nil {
		return patch.Parse(*p.Input)
	}
	op := p.ApplyPatchOperation
	if p.Operation != nil {
		op = *p.Operation
	}
	if op.Path == "" {
		return nil, rpc.Errorf(rpc.InvalidArgument, "apply_patch: params need input (a patch) or an operation with a path")
	}
	switch op.Type {
	case "create_file":
		text, err := patch.ParseAddBody(op.Diff)
		if err != nil {
			return nil, err
		}
		return &patch.Patch{Files: []patch.File{{Op: patch.Add, Path: op.Path, Text: text, Line: 1}}}, nil
	case "update_file":
		chunks, err := patch.ParseUpdateBody(op.Diff)
		if err != nil {
			return nil, err
		}
		return &patch.Patch{Files: []patch.File{{Op: patch.Update, Path: op.Path, Chunks: chunks, Line: 1}}}, nil
	case "delete_file":
		return &patch.Patch{Files: []patch.File{{Op: patch.Delete, Path: op.Path, Line: 1}}}, nil
	}
	return nil, rpc.Errorf(rpc.InvalidArgument, "apply_patch: operation type %q is not create_file, update_file or delete_file", op.Type)
}

// runPatch applies pt all or nothing and returns the output text.
func runPatch(ctx context.Context, s *Session, pt *patch.Patch) (string, error) {
	files := map[string]*dialectFile{}
	var abs []string
	for _, f := range pt.Files {
		for _, name := range []string{f.Path, f.MoveTo} {
			if name == "" || files[name] != nil {
				continue
			}
			rp, err := resolveEdit(s, "apply_patch", name)
			if err != nil {
				return "", err
			}
			files[name] = &dialectFile{rp: rp}
			abs = append(abs, rp.Abs)
		}
	}
	defer lockAll(s, abs)()
	res, err := pt.Apply(func(name string) (string, bool, error) {
		f := files[name]
		d, err := readEditDoc(s, f.rp, "apply_patch")
		if err != nil {
			return "", false, err
		}
		f.doc = d
		return d.Text, d.exists(), nil
	})
	if err != nil {
		return "", err
	}
	if len(res.Changes) > 1 || (len(res.Changes) == 1 && res.Changes[0].Removed) {
		for _, f := range files { // a patch of several files is all or nothing on disk
			if f.doc != nil {
				f.doc.via = false
			}
		}
	}
	// A patch that changes a document open in the editor changes only it:
	// an editor and a disk, or two buffers, cannot commit all or nothing.
	for _, c := range res.Changes {
		if f := files[c.Path]; f.doc != nil && f.doc.toEditor() && (len(res.Changes) > 1 || c.Removed) {
			return "", rpc.Errorf(rpc.InvalidArgument, "apply_patch: %s is open in the editor, so its edit goes to the editor's buffer, "+
				"and a patch that changes an open document must change only it, not delete or move it (the editor and the disk cannot "+
				"commit all or nothing): nothing was changed. Send one patch per open file", f.rp.Display)
		}
	}
	var plan lineedit.Plan
	for _, c := range res.Changes {
		f := files[c.Path]
		switch {
		case f.doc != nil && f.doc.toEditor():
			inBuffer, err := f.doc.commit(ctx, s, applyPatchName, c.Text)
			if err != nil {
				return "", err
			}
			return patchSummary(pt, res) + strings.TrimPrefix(bufferNote(inBuffer), "\n") + "\n", nil
		case c.Removed && f.doc != nil && f.doc.doc != nil:
			plan.Remove(f.doc.doc)
		case c.Removed:
		default:
			var on *lineedit.Doc
			if f.doc != nil {
				on = f.doc.doc
			}
			if err := plan.Put(f.rp.Abs, f.rp.Display, c.Text, on); err != nil {
				return "", refusal(err)
			}
		}
	}
	if err := plan.Commit(ctx, s.sources); err != nil {
		return "", refusal(err)
	}
	return patchSummary(pt, res), nil
}

// applyPatchName is apply_patch's method, as edit labels name it.
const applyPatchName = OpenAI + "/apply_patch"

// patchSummary is Codex's success text, then toolrpc's notes: each
// tolerant match and each file replaced.
func patchSummary(pt *patch.Patch, res *patch.Result) string {
	var b strings.Builder
	b.WriteString("Success. Updated the following files:\n")
	for _, l := range res.Summary {
		fmt.Fprintf(&b, "%c %s\n", l.Letter, l.Path)
	}
	for _, f := range pt.Files {
		for _, m := range res.Matches[f.Path] {
			what := "lines"
			if m.Anchor {
				what = "@@ context"
			}
			fmt.Fprintf(&b, "Note: hunk %d of %s: its %s matched at line %d only %s.\n", m.Chunk, f.Path, what, m.Line, m.Tol)
		}
		delete(res.Matches, f.Path)
	}
	for _, r := range res.Replaced {
		fmt.Fprintf(&b, "Note: %s existed and was replaced.\n", r)
	}
	return b.String()
}
