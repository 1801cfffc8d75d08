package page

import (
	"bytes"
	"context"
	"fmt"

	"github.com/toolrpc/toolrpc/internal/lineindex"
	"github.com/toolrpc/toolrpc/internal/sourceset"
	"github.com/toolrpc/toolrpc/wire"
)

// ReadText is Read of a text held in memory — an editor's buffer of the file
// abs, UTF-8 — instead of the file: the same window, budget, clipping and
// source-set entries, the tag that text's.
func ReadText(ctx context.Context, abs, name string, text []byte, offset, limit int64, sources *sourceset.Set) (*wire.ReadResult, error) {
	ix, err := lineindex.BuildForm(ctx, bytes.NewReader(text), form(nil))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", name, err)
	}
	tag := sourceset.TagSum(ix.CRC)
	w := newWindow(name, tag, offset, limit)
	if err := ix.Scan(ctx, bytes.NewReader(text), offset, linePrefix, w.add); err != nil {
		return nil, fmt.Errorf("read %s: %w", name, err)
	}
	return w.result(abs, name, offset, ix, sources), nil
}
