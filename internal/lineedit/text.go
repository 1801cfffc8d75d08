package lineedit

import (
	"bytes"
	"context"
	"fmt"

	"github.com/toolrpc/toolrpc/internal/sourceset"
	"github.com/toolrpc/toolrpc/wire"
)

// EditText is Edit of a text held in memory — an editor's buffer of the file
// abs, UTF-8 — instead of the file: the same checks in the same order and
// the same result, and nothing is written. It returns the edited text for
// the caller to deliver, and commit, which makes Edit's source-set update:
// call it once the edited text is in place, and not if it never is.
func EditText(ctx context.Context, abs, name, tag string, text []byte, hunks []Hunk, sources *sourceset.Set) (edited []byte, res *wire.EditResult, commit func(), err error) {
	st, err := Scan(ctx, bytes.NewReader(text))
	if err != nil {
		return nil, nil, nil, fmt.Errorf("edit %s: %w", name, err)
	}
	if cur := sourceset.TagSum(st.sum); cur != tag {
		return nil, nil, nil, &Error{Refusal: Stale, Tag: cur,
			Msg: fmt.Sprintf("edit %s: tag %s is stale; the buffer's tag is now %s: Read it again", name, tag, cur)}
	}
	if err := checkHunks(abs, name, tag, st, hunks, sources); err != nil {
		return nil, nil, nil, err
	}
	newTotal := st.lines
	for _, h := range hunks {
		newTotal += len(h.lines) - h.oldCount
	}
	v := &view{show: showRanges(hunks, newTotal)}
	var out bytes.Buffer
	ap, err := apply(ctx, bytes.NewReader(text), &out, st, hunks, v, nil)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("edit %s: %w", name, err)
	}
	res = editedResult(name, ap, v)
	return out.Bytes(), res, func() { moveSources(abs, tag, res.Tag, hunks, v, sources) }, nil
}

// UnshapeText is what Write makes of content for a file whose current text
// is old (nil: a new file): content shaped like a Read result is stripped
// back to the text with old's line endings and final newline. notice says so.
func UnshapeText(ctx context.Context, content string, old []byte) (text []byte, notice string) {
	lines, first, ok := ReadShape(content)
	if !ok {
		return []byte(content), ""
	}
	ending, final := "\n", true
	if old != nil {
		if st, err := Scan(ctx, bytes.NewReader(old)); err == nil && st.lines > 0 {
			ending, final = st.ending(), st.finalNewline
		}
	}
	return reshape(lines, first, ending, final)
}
