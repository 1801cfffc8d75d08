package lineindex

import (
	"fmt"
	"io"
)

// ReadUnsized reads a file whose stat size says nothing of its content (0 for
// /proc files) from its start to its end, or to max bytes: cut reports that
// the file went on past max. The bytes are one snapshot, so an index built
// from them and a scan of them agree even when the file changes on every
// read. Such an index must never be cached by file identity.
func ReadUnsized(f io.ReaderAt, max int64) (data []byte, cut bool, err error) {
	data, err = io.ReadAll(io.NewSectionReader(f, 0, max+1))
	if err != nil {
		return nil, false, fmt.Errorf("read to end: %w", err)
	}
	if int64(len(data)) > max {
		return data[:max], true, nil
	}
	return data, false, nil
}
