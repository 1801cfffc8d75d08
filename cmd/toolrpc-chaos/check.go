//go:build linux

package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/toolrpc/toolrpc/wire"
)

// loneSurrogate is a JSON escape of half a UTF-16 pair, which decodes to
// U+FFFD: text that was not valid UTF-8 in the server.
var loneSurrogate = regexp.MustCompile(`\\u[dD][89a-fA-F][0-9a-fA-F]{2}`)

// checkOutcome checks one call's outcome against the contract. want, when
// set, is the full stdout of a deterministic bash command.
func (c *campaign) checkOutcome(s *session, cl *call, o outcome, want *string) {
	if o.err != nil {
		if errors.Is(o.err, context.Canceled) || errors.Is(o.err, context.DeadlineExceeded) {
			return
		}
		if !s.ended.Load() {
			s.violate("connection-lost", fmt.Sprintf("%s failed with the session live: %v", cl.Method, o.err))
			s.kill("connection lost")
		}
		return
	}
	raw := o.raw
	if o.rpc != nil {
		c.stats.count("error "+o.rpc.Kind, 1)
		if o.rpc.Kind == "SANDBOX_UNAVAILABLE" || o.rpc.Kind == "IO_ERROR" || o.rpc.Kind == "" {
			c.stats.example("error "+o.rpc.Kind, cl.Method+": "+truncate(o.rpc.Message, 300))
		}
		raw = o.rpc.Data
		if !utf8.ValidString(o.rpc.Message) {
			s.violate("utf8", cl.Method+": error message is not valid UTF-8")
		}
	}
	if len(raw) > 0 {
		if !utf8.Valid(raw) || loneSurrogate.Match(raw) {
			s.violate("utf8", fmt.Sprintf("%s: result is not valid UTF-8: %s", cl.Method, truncate(string(raw), 200)))
		}
	}
	var err error
	switch {
	case cl.Method == "tools/bash" && (o.rpc == nil || o.rpc.Kind == "CANCELLED" || o.rpc.Kind == "TIMEOUT") && len(raw) > 2:
		err = checkBash(raw, want, o.rpc == nil, o.progress)
	case o.rpc != nil:
		return
	case cl.Method == "tools/grep":
		err = checkGrep(cl.Params, raw)
	case cl.Method == "tools/glob":
		err = checkGlob(raw)
	case cl.Method == "tools/read":
		err = checkRead(raw)
	case strings.HasPrefix(cl.Method, "tools/process/") && cl.Method != "tools/process/list":
		err = checkProcess(raw)
	}
	if err != nil {
		s.violate("contract", fmt.Sprintf("%s %s: %v", cl.Method, truncate(string(cl.Params), 200), err))
	}
}

var (
	headMarker = regexp.MustCompile(`\n\[truncated: (?:kept the first (\d+) of (\d+) lines; limit \d+ lines / \d+KB|no complete line fits the \d+KB limit; kept \d+ bytes of a single \d+-byte line)\. (?:Full output saved to (\S+) — Grep it, or Read it with offset/limit\.(?: The saved copy holds [^\]]*)?|Narrow the request to see more\.)\]\n$`)
	tailMarker = regexp.MustCompile(`^\[truncated: (?:kept the last (\d+) of (\d+) lines; limit \d+ lines / \d+KB|no complete line fits the \d+KB limit; kept \d+ bytes of a single \d+-byte line)\. (?:Full output saved to (\S+) — Grep it, or Read it with offset/limit\.(?: The saved copy holds [^\]]*)?|Narrow the request to see more\.)\]\n`)
)

// checkBash checks a BashResult: markers exact, counts consistent, a named
// spill file present, and, when want is known, the kept head and the
// streamed chunks equal to it.
func checkBash(raw json.RawMessage, want *string, complete bool, progress []json.RawMessage) error {
	var r wire.BashResult
	if err := json.Unmarshal(raw, &r); err != nil {
		return fmt.Errorf("decode: %w", err)
	}
	if r.Truncated != (r.StdoutInfo.Truncated || r.StderrInfo.Truncated) {
		return fmt.Errorf("truncated %v but stdout %v stderr %v", r.Truncated, r.StdoutInfo.Truncated, r.StderrInfo.Truncated)
	}
	kept := r.Stdout
	if r.StdoutInfo.Truncated {
		m := headMarker.FindStringSubmatchIndex("\n" + r.Stdout)
		if m == nil {
			return fmt.Errorf("stdout cut without an exact marker: …%q", tail(r.Stdout, 300))
		}
		kept = strings.TrimSuffix(("\n" + r.Stdout)[1:max(m[0], 1)], "\n")
		sub := headMarker.FindStringSubmatch("\n" + r.Stdout)
		if err := markerCounts(sub, r.StdoutInfo); err != nil {
			return fmt.Errorf("stdout: %w", err)
		}
	} else if len(r.Stdout) != r.StdoutInfo.Bytes && !strings.ContainsRune(r.Stdout, utf8.RuneError) || r.StdoutInfo.OmittedBytes != 0 {
		return fmt.Errorf("stdout not cut but %d bytes of %d kept, %d omitted", len(r.Stdout), r.StdoutInfo.Bytes, r.StdoutInfo.OmittedBytes)
	}
	if r.StderrInfo.Truncated {
		sub := tailMarker.FindStringSubmatch(r.Stderr)
		if sub == nil {
			return fmt.Errorf("stderr cut without an exact marker: %q…", truncate(r.Stderr, 300))
		}
		if err := markerCounts(sub, r.StderrInfo); err != nil {
			return fmt.Errorf("stderr: %w", err)
		}
	} else if len(r.Stderr) != r.StderrInfo.Bytes && !strings.ContainsRune(r.Stderr, utf8.RuneError) || r.StderrInfo.OmittedBytes != 0 {
		return fmt.Errorf("stderr not cut but %d bytes of %d kept, %d omitted", len(r.Stderr), r.StderrInfo.Bytes, r.StderrInfo.OmittedBytes)
	}
	if want == nil {
		return nil
	}
	exit0 := r.ExitCode != nil && *r.ExitCode == 0
	if complete && exit0 {
		if r.StdoutInfo.Bytes != len(*want) {
			return fmt.Errorf("stdout counted %d bytes, the command writes %d", r.StdoutInfo.Bytes, len(*want))
		}
		if !r.StdoutInfo.Truncated && r.Stdout != *want {
			return fmt.Errorf("stdout %q is not the command's output", truncate(r.Stdout, 100))
		}
	}
	if !strings.HasPrefix(*want, kept) && kept != "" {
		return fmt.Errorf("kept stdout is not a prefix of the command's output: …%q", tail(kept, 100))
	}
	return checkChunks(progress, *want, r.StdoutInfo, complete && exit0)
}

// markerCounts checks "kept the first K of N lines" against the stream's
// counts, and that a named spill file is the one reported and exists.
func markerCounts(sub []string, info wire.StreamInfo) error {
	if sub[2] != "" {
		if n, _ := strconv.Atoi(sub[2]); n != info.Lines {
			return fmt.Errorf("marker says %d lines, info %d", n, info.Lines)
		}
	}
	if sub[3] != "" {
		if sub[3] != info.Spill {
			return fmt.Errorf("marker names spill %s, info %q", sub[3], info.Spill)
		}
		if _, err := os.Stat(sub[3]); err != nil {
			return fmt.Errorf("the spill file the marker names: %w", err)
		}
	} else if info.Spill != "" {
		return fmt.Errorf("spill %s reported but the marker says none was saved", info.Spill)
	}
	return nil
}

// checkChunks: stdout chunks come with seq 0, 1, 2, …, their count is
// the reported one, and while none skipped bytes their data is a prefix of
// the output (all of it when the call completed).
func checkChunks(progress []json.RawMessage, want string, info wire.StreamInfo, complete bool) error {
	if progress == nil {
		return nil
	}
	var data strings.Builder
	seq, skipped := 0, false
	for _, p := range progress {
		var v struct {
			Stream       string `json:"stream"`
			Seq          int    `json:"seq"`
			Data         string `json:"data"`
			SkippedBytes int    `json:"skippedBytes"`
		}
		if err := json.Unmarshal(p, &v); err != nil {
			return fmt.Errorf("progress value: %w", err)
		}
		if v.Stream != "stdout" {
			continue
		}
		if v.Seq != seq {
			return fmt.Errorf("stdout chunk seq %d, want %d", v.Seq, seq)
		}
		seq++
		skipped = skipped || v.SkippedBytes > 0
		if !skipped {
			data.WriteString(v.Data)
		}
	}
	if seq != info.Chunks {
		return fmt.Errorf("%d stdout chunks received, result says %d", seq, info.Chunks)
	}
	if !strings.HasPrefix(want, data.String()) {
		return fmt.Errorf("streamed stdout is not a prefix of the output: …%q", tail(data.String(), 80))
	}
	if complete && !skipped && data.String() != want {
		return fmt.Errorf("streamed stdout holds %d of %d bytes with nothing skipped", data.Len(), len(want))
	}
	return nil
}

func tail(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}

func checkGrep(params, raw json.RawMessage) error {
	var p struct {
		HeadLimit *int64 `json:"headLimit"`
	}
	_ = json.Unmarshal(params, &p)
	var r struct {
		Matches []wire.GrepMatch      `json:"matches"`
		Tags    map[string]string     `json:"tags"`
		Files   json.RawMessage       `json:"files"`
		Counts  []wire.GrepCountEntry `json:"counts"`
		Count   int                   `json:"count"`
	}
	if err := json.Unmarshal(raw, &r); err != nil {
		return fmt.Errorf("decode: %w", err)
	}
	entries := 0
	switch {
	case r.Matches != nil:
		paths := map[string]bool{}
		for _, m := range r.Matches {
			if !m.Context {
				entries++
			}
			paths[m.Path] = true
			if r.Tags[m.Path] == "" {
				return fmt.Errorf("no tag for %s", m.Path)
			}
		}
		if r.Count != entries {
			return fmt.Errorf("count %d, %d match entries", r.Count, entries)
		}
		var files int
		if json.Unmarshal(r.Files, &files) == nil && files != len(paths) {
			return fmt.Errorf("files %d, %d distinct paths", files, len(paths))
		}
	case r.Counts != nil:
		sum := 0
		for _, e := range r.Counts {
			sum += e.Count
		}
		if sum != r.Count {
			return fmt.Errorf("count %d, per-file counts sum to %d", r.Count, sum)
		}
		entries = len(r.Counts)
	default:
		var files []string
		if json.Unmarshal(r.Files, &files) == nil {
			entries = len(files)
			if r.Count != entries {
				return fmt.Errorf("count %d, %d files", r.Count, entries)
			}
		}
	}
	if p.HeadLimit != nil && *p.HeadLimit > 0 && int64(entries) > *p.HeadLimit {
		return fmt.Errorf("%d entries past headLimit %d", entries, *p.HeadLimit)
	}
	return nil
}

func checkGlob(raw json.RawMessage) error {
	var r wire.GlobResult
	if err := json.Unmarshal(raw, &r); err != nil {
		return fmt.Errorf("decode: %w", err)
	}
	if r.Count != len(r.Matches) {
		return fmt.Errorf("count %d, %d matches", r.Count, len(r.Matches))
	}
	return nil
}

func checkRead(raw json.RawMessage) error {
	var r wire.ReadResult
	if err := json.Unmarshal(raw, &r); err != nil {
		return fmt.Errorf("decode: %w", err)
	}
	lines := strings.Split(strings.TrimSuffix(r.Content, "\n"), "\n")
	if !strings.HasPrefix(lines[0], "[") || !strings.Contains(lines[0], "#"+r.Tag+"]") {
		return fmt.Errorf("header %q does not carry tag %s", truncate(lines[0], 100), r.Tag)
	}
	n := 0
	for _, l := range lines[1:] {
		if i := strings.IndexByte(l, ':'); i > 0 {
			if _, err := strconv.Atoi(l[:i]); err == nil {
				n++
			}
		}
	}
	if n != r.LineCount {
		return fmt.Errorf("lineCount %d, %d numbered lines shown", r.LineCount, n)
	}
	return nil
}

// checkProcess: delivered + omitted = to − from (SPEC §13.3), no escape
// or control byte in the output.
func checkProcess(raw json.RawMessage) error {
	var r wire.ProcessReply
	if err := json.Unmarshal(raw, &r); err != nil {
		return fmt.Errorf("decode: %w", err)
	}
	if r.Cursor.To < r.Cursor.From {
		return fmt.Errorf("cursor %d..%d", r.Cursor.From, r.Cursor.To)
	}
	if got := int64(len(r.Output)-markerLen(r.Output)) + r.OmittedBytes; got != r.Cursor.To-r.Cursor.From {
		return fmt.Errorf("delivered %d + omitted %d ≠ produced %d (cursor %d..%d)", len(r.Output)-markerLen(r.Output), r.OmittedBytes,
			r.Cursor.To-r.Cursor.From, r.Cursor.From, r.Cursor.To)
	}
	for _, b := range []byte(r.Output) {
		if b < 0x20 && b != '\n' && b != '\t' || b == 0x7f {
			return fmt.Errorf("output holds control byte %#x", b)
		}
	}
	switch r.State {
	case "running", "awaitingInput", "exited":
	default:
		return fmt.Errorf("state %q", r.State)
	}
	return nil
}

// markerLen is the length of the [omitted: …] and [truncated: …] lines
// that open a process reply's output.
func markerLen(out string) int {
	n := 0
	for _, prefix := range []string{"[omitted: ", "[truncated: "} {
		if strings.HasPrefix(out[n:], prefix) {
			n += strings.IndexByte(out[n:], '\n') + 1
		}
	}
	return n
}
