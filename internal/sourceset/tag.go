package sourceset

import (
	"fmt"
	"hash"
	"hash/crc32"
	"io"
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// NewHash returns the CRC-32C hash a tag is taken from, for callers that
// stream a file once for several purposes; TagSum turns its Sum32 into the tag.
func NewHash() hash.Hash32 { return crc32.New(castagnoli) }

// TagSum returns the tag of a file whose whole-content CRC-32C is sum: its
// first four lowercase hex digits.
func TagSum(sum uint32) string { return fmt.Sprintf("%08x", sum)[:4] }

// Tag reads r to its end and returns the tag of what it read.
func Tag(r io.Reader) (string, error) {
	h := NewHash()
	if _, err := io.Copy(h, r); err != nil {
		return "", fmt.Errorf("tag: %w", err)
	}
	return TagSum(h.Sum32()), nil
}

// TagOf returns the tag of a file whose whole content is b.
func TagOf(b []byte) string { return TagSum(crc32.Checksum(b, castagnoli)) }
