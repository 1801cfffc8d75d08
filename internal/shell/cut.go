package shell

import (
	"github.com/toolrpc/toolrpc/internal/capture"
	"github.com/toolrpc/toolrpc/internal/cut"
	"github.com/toolrpc/toolrpc/wire"
)

// End is the end of a stream a cut keeps.
type End int

const (
	// Head keeps a stream's first part (stdout), with the marker after it.
	Head End = iota
	// Tail keeps a stream's last part (stderr), with the marker before it.
	Tail
)

// Spiller saves a cut stream's captured copy and returns the file's path.
// *spill.Dir is one.
type Spiller interface {
	Write(label string, data []byte) (string, error)
}

// Stream is one output stream of a run: its shown text and what was counted
// of it, the StreamInfo of SPEC §6.
type Stream struct {
	// Text is the kept head or tail, with the §6.2 marker when Truncated.
	// It is valid UTF-8.
	Text string
	wire.StreamInfo
}

// SpillLabel is the label of a tool's spill file for one stream
// ("bash-stdout"), as SPEC §6.3 names them.
func SpillLabel(tool, stream string) string { return tool + "-" + stream }

// Cut bounds one captured stream to b, keeping its end (SPEC §6.2). A cut
// stream's captured copy is first saved through sp (nil: never) under label,
// so the marker can name the file. A failed spill costs only that sentence
// of the marker: Cut then returns the complete Stream and the spill's error.
func Cut(snap capture.Snapshot, end End, b cut.Budget, sp Spiller, label string) (Stream, error) {
	keep := cut.Head
	if end == Tail {
		keep = cut.Tail
	}
	in := cut.Stream{Text: snap.Text, Lines: snap.Lines, EdgeLineBytes: snap.EdgeLineBytes, Dropped: snap.OmittedBytes > 0}
	c := keep(in, b)
	s := Stream{Text: c.Text, StreamInfo: wire.StreamInfo{Bytes: snap.Bytes, Lines: snap.Lines, Truncated: c.Truncated,
		OmittedBytes: snap.OmittedBytes, OmittedLines: snap.OmittedLines}}
	if !c.Truncated || sp == nil {
		return s, nil
	}
	path, err := sp.Write(label, snap.Text)
	if err != nil {
		return s, err
	}
	in.Spill = path
	s.Spill = path
	s.Text = keep(in, b).Text
	return s, nil
}
