package cut

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"

	"github.com/toolrpc/toolrpc/limits"
)

const spillPath = "/data/scratch/s1/tool-output/bash-stdout-1700000000000-0.log"

// small is a budget that keeps table tests readable.
var small = Budget{Bytes: 10, Lines: 3}

func narrow(s string) string {
	return s + " Narrow the request to see more.]"
}

func saved(s string) string {
	return savedCut(s, "")
}

// savedCut is saved with the sentence saying where a cut spilled copy ends.
func savedCut(s, copyEnds string) string {
	if copyEnds != "" {
		copyEnds = " " + copyEnds
	}
	return s + " Full output saved to " + spillPath + " — Grep it, or Read it with offset/limit." + copyEnds + "]"
}

func TestHead(t *testing.T) {
	tests := []struct {
		name   string
		stream Stream
		budget Budget
		want   Result
	}{
		{name: "empty", stream: Stream{}, budget: small, want: Result{}},
		{
			name:   "fits",
			stream: Stream{Text: []byte("a\nb\n")},
			budget: small,
			want:   Result{Text: "a\nb\n", KeptLines: 2, KeptBytes: 4},
		},
		{
			name:   "exactly at the byte budget",
			stream: Stream{Text: []byte("abcd\nefgh\n")},
			budget: small,
			want:   Result{Text: "abcd\nefgh\n", KeptLines: 2, KeptBytes: 10},
		},
		{
			name:   "one byte over",
			stream: Stream{Text: []byte("abcd\nefghi\n")},
			budget: small,
			want: Result{
				Text:      "abcd\n" + narrow("[truncated: kept the first 1 of 2 lines; limit 3 lines / 10 bytes.") + "\n",
				KeptLines: 1, KeptBytes: 5, Truncated: true,
			},
		},
		{
			name:   "exactly at the line budget",
			stream: Stream{Text: []byte("a\nb\nc\n")},
			budget: small,
			want:   Result{Text: "a\nb\nc\n", KeptLines: 3, KeptBytes: 6},
		},
		{
			name:   "one line over",
			stream: Stream{Text: []byte("a\nb\nc\nd\n"), Spill: spillPath},
			budget: small,
			want: Result{
				Text:      "a\nb\nc\n" + saved("[truncated: kept the first 3 of 4 lines; limit 3 lines / 10 bytes.") + "\n",
				KeptLines: 3, KeptBytes: 6, Truncated: true,
			},
		},
		{
			name:   "final line without newline fits",
			stream: Stream{Text: []byte("a\nb")},
			budget: small,
			want:   Result{Text: "a\nb", KeptLines: 2, KeptBytes: 3},
		},
		{
			name:   "final line without newline cut",
			stream: Stream{Text: []byte("abcd\nefghijkl")},
			budget: small,
			want: Result{
				Text:      "abcd\n" + narrow("[truncated: kept the first 1 of 2 lines; limit 3 lines / 10 bytes.") + "\n",
				KeptLines: 1, KeptBytes: 5, Truncated: true,
			},
		},
		{
			name:   "CRLF lines keep their endings",
			stream: Stream{Text: []byte("ab\r\ncd\r\nef\r\n")},
			budget: small,
			want: Result{
				Text:      "ab\r\ncd\r\n" + narrow("[truncated: kept the first 2 of 3 lines; limit 3 lines / 10 bytes.") + "\n",
				KeptLines: 2, KeptBytes: 8, Truncated: true,
			},
		},
		{
			name:   "single long line with spill",
			stream: Stream{Text: []byte("0123456789ABCDEF\nx\n"), Spill: spillPath},
			budget: small,
			want: Result{
				Text:      "0123456789\n" + saved("[truncated: no complete line fits the 10 bytes limit; kept 10 bytes of a single 16-byte line.") + "\n",
				KeptBytes: 10, Truncated: true,
			},
		},
		{
			name:   "single long CRLF line",
			stream: Stream{Text: []byte("0123456789ABCDEF\r\n")},
			budget: small,
			want: Result{
				Text:      "0123456789\n" + narrow("[truncated: no complete line fits the 10 bytes limit; kept 10 bytes of a single 16-byte line.") + "\n",
				KeptBytes: 10, Truncated: true,
			},
		},
		{
			name:   "line as long as the budget, its newline one byte over",
			stream: Stream{Text: []byte("abcdefghij\r\n")},
			budget: small,
			want: Result{
				Text:      "abcdefghij\n" + narrow("[truncated: no complete line fits the 10 bytes limit; kept 10 bytes of a single 10-byte line.") + "\n",
				KeptBytes: 10, Truncated: true,
			},
		},
		{
			name:   "two-byte chars at the cut",
			stream: Stream{Text: []byte("ééééééé\n")},
			budget: Budget{Bytes: 5, Lines: 3},
			want: Result{
				Text:      "éé\n" + narrow("[truncated: no complete line fits the 5 bytes limit; kept 4 bytes of a single 14-byte line.") + "\n",
				KeptBytes: 4, Truncated: true,
			},
		},
		{
			name:   "four-byte char at the cut",
			stream: Stream{Text: []byte("😀😀😀")},
			budget: Budget{Bytes: 7, Lines: 3},
			want: Result{
				Text:      "😀\n" + narrow("[truncated: no complete line fits the 7 bytes limit; kept 4 bytes of a single 12-byte line.") + "\n",
				KeptBytes: 4, Truncated: true,
			},
		},
		{
			name:   "capture dropped the rest but the text fits",
			stream: Stream{Text: []byte("a\nb\n"), Lines: 100, Dropped: true, Spill: spillPath},
			budget: small,
			want: Result{
				Text: "a\nb\n" + savedCut("[truncated: kept the first 2 of 100 lines; limit 3 lines / 10 bytes.",
					"The saved copy holds lines 1–2 of 100 (spill limit 512KB).") + "\n",
				KeptLines: 2, KeptBytes: 4, Truncated: true,
			},
		},
		{
			name:   "capture cut a line: the fragment is not a whole line",
			stream: Stream{Text: []byte("a\nbc"), Lines: 7, Dropped: true},
			budget: small,
			want: Result{
				Text:      "a\n" + narrow("[truncated: kept the first 1 of 7 lines; limit 3 lines / 10 bytes.") + "\n",
				KeptLines: 1, KeptBytes: 2, Truncated: true,
			},
		},
		{
			name:   "capture kept part of a single huge line",
			stream: Stream{Text: []byte(strings.Repeat("x", 20)), Lines: 1, EdgeLineBytes: 4_200_000, Dropped: true},
			budget: small,
			want: Result{
				Text:      "xxxxxxxxxx\n" + narrow("[truncated: no complete line fits the 10 bytes limit; kept 10 bytes of a single 4200000-byte line.") + "\n",
				KeptBytes: 10, Truncated: true,
			},
		},
		{
			name:   "capture kept a fragment shorter than the budget",
			stream: Stream{Text: []byte("xyz"), Lines: 1, EdgeLineBytes: 900, Dropped: true},
			budget: small,
			want: Result{
				Text:      "xyz\n" + narrow("[truncated: no complete line fits the 10 bytes limit; kept 3 bytes of a single 900-byte line.") + "\n",
				KeptBytes: 3, Truncated: true,
			},
		},
		{
			name:   "stream total above the retained lines",
			stream: Stream{Text: []byte("a\n"), Lines: 5},
			budget: small,
			want: Result{
				Text:      "a\n" + narrow("[truncated: kept the first 1 of 5 lines; limit 3 lines / 10 bytes.") + "\n",
				KeptLines: 1, KeptBytes: 2, Truncated: true,
			},
		},
		{
			name:   "invalid bytes are repaired",
			stream: Stream{Text: []byte("a\xffb\n")},
			budget: small,
			want:   Result{Text: "a\uFFFDb\n", KeptLines: 1, KeptBytes: 4},
		},
		{
			name:   "the budget applies after repair",
			stream: Stream{Text: []byte("\xff\xff\xff\n\xff\n")},
			budget: small,
			want: Result{
				Text:      "\uFFFD\uFFFD\uFFFD\n" + narrow("[truncated: kept the first 1 of 2 lines; limit 3 lines / 10 bytes.") + "\n",
				KeptLines: 1, KeptBytes: 4, Truncated: true,
			},
		},
		{
			name:   "repaired single line reports stream bytes",
			stream: Stream{Text: []byte("\xff\xff\xff\xff\xff\n")},
			budget: small,
			want: Result{
				Text:      "\uFFFD\uFFFD\uFFFD\n" + narrow("[truncated: no complete line fits the 10 bytes limit; kept 3 bytes of a single 5-byte line.") + "\n",
				KeptBytes: 3, Truncated: true,
			},
		},
		{
			name:   "budget below one character is raised",
			stream: Stream{Text: []byte("😀😀")},
			budget: Budget{Bytes: 1, Lines: 0},
			want: Result{
				Text:      "😀\n" + narrow("[truncated: no complete line fits the 4 bytes limit; kept 4 bytes of a single 8-byte line.") + "\n",
				KeptBytes: 4, Truncated: true,
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := Head(tc.stream, tc.budget)
			require.Equal(t, tc.want, got)
			checkCut(t, true, tc.stream, tc.budget, got)
		})
	}
}

func TestTail(t *testing.T) {
	tests := []struct {
		name   string
		stream Stream
		budget Budget
		want   Result
	}{
		{name: "empty", stream: Stream{}, budget: small, want: Result{}},
		{
			name:   "fits",
			stream: Stream{Text: []byte("a\nb\n")},
			budget: small,
			want:   Result{Text: "a\nb\n", KeptLines: 2, KeptBytes: 4},
		},
		{
			name:   "exactly at the byte budget",
			stream: Stream{Text: []byte("abcd\nefgh\n")},
			budget: small,
			want:   Result{Text: "abcd\nefgh\n", KeptLines: 2, KeptBytes: 10},
		},
		{
			name:   "one byte over",
			stream: Stream{Text: []byte("abcde\nfghi\n")},
			budget: small,
			want: Result{
				Text:      narrow("[truncated: kept the last 1 of 2 lines; limit 3 lines / 10 bytes.") + "\nfghi\n",
				KeptLines: 1, KeptBytes: 5, Truncated: true,
			},
		},
		{
			name:   "one line over",
			stream: Stream{Text: []byte("a\nb\nc\nd\n"), Spill: spillPath},
			budget: small,
			want: Result{
				Text:      saved("[truncated: kept the last 3 of 4 lines; limit 3 lines / 10 bytes.") + "\nb\nc\nd\n",
				KeptLines: 3, KeptBytes: 6, Truncated: true,
			},
		},
		{
			name:   "final line without newline",
			stream: Stream{Text: []byte("abcdefgh\nij")},
			budget: small,
			want: Result{
				Text:      narrow("[truncated: kept the last 1 of 2 lines; limit 3 lines / 10 bytes.") + "\nij",
				KeptLines: 1, KeptBytes: 2, Truncated: true,
			},
		},
		{
			name:   "CRLF lines keep their endings",
			stream: Stream{Text: []byte("ab\r\ncd\r\nef\r\n")},
			budget: small,
			want: Result{
				Text:      narrow("[truncated: kept the last 2 of 3 lines; limit 3 lines / 10 bytes.") + "\ncd\r\nef\r\n",
				KeptLines: 2, KeptBytes: 8, Truncated: true,
			},
		},
		{
			name:   "single long last line with spill",
			stream: Stream{Text: []byte("ab\n0123456789ABCDEF\n"), Spill: spillPath},
			budget: small,
			want: Result{
				Text:      saved("[truncated: no complete line fits the 10 bytes limit; kept 10 bytes of a single 16-byte line.") + "\n6789ABCDEF",
				KeptBytes: 10, Truncated: true,
			},
		},
		{
			name:   "single long CRLF last line",
			stream: Stream{Text: []byte("0123456789ABCDEF\r\n")},
			budget: small,
			want: Result{
				Text:      narrow("[truncated: no complete line fits the 10 bytes limit; kept 10 bytes of a single 16-byte line.") + "\n6789ABCDEF",
				KeptBytes: 10, Truncated: true,
			},
		},
		{
			name:   "two-byte chars at the cut",
			stream: Stream{Text: []byte("ééééééé")},
			budget: Budget{Bytes: 5, Lines: 3},
			want: Result{
				Text:      narrow("[truncated: no complete line fits the 5 bytes limit; kept 4 bytes of a single 14-byte line.") + "\néé",
				KeptBytes: 4, Truncated: true,
			},
		},
		{
			name:   "capture ring dropped lines before a line start",
			stream: Stream{Text: []byte("a\nb\nc\n"), Lines: 50, EdgeLineBytes: 1, Dropped: true},
			budget: small,
			want: Result{
				Text:      narrow("[truncated: kept the last 3 of 50 lines; limit 3 lines / 10 bytes.") + "\na\nb\nc\n",
				KeptLines: 3, KeptBytes: 6, Truncated: true,
			},
		},
		{
			name:   "capture ring kept the end of a line shorter than the budget",
			stream: Stream{Text: []byte("fgh\n"), Lines: 2, EdgeLineBytes: 8, Dropped: true},
			budget: small,
			want: Result{
				Text:      narrow("[truncated: no complete line fits the 10 bytes limit; kept 3 bytes of a single 8-byte line.") + "\nfgh",
				KeptBytes: 3, Truncated: true,
			},
		},
		{
			name:   "capture ring kept a whole single line",
			stream: Stream{Text: []byte("fgh\n"), Lines: 2, EdgeLineBytes: 3, Dropped: true},
			budget: small,
			want: Result{
				Text:      narrow("[truncated: kept the last 1 of 2 lines; limit 3 lines / 10 bytes.") + "\nfgh\n",
				KeptLines: 1, KeptBytes: 4, Truncated: true,
			},
		},
		{
			name:   "capture ring kept part of a single huge line",
			stream: Stream{Text: []byte(strings.Repeat("y", 30) + "END\n"), Lines: 1, EdgeLineBytes: 4_200_000, Dropped: true, Spill: spillPath},
			budget: small,
			want: Result{
				Text: savedCut("[truncated: no complete line fits the 10 bytes limit; kept 10 bytes of a single 4200000-byte line.",
					"The saved copy holds the last 34 bytes of line 1 (spill limit 512KB).") + "\nyyyyyyyEND",
				KeptBytes: 10, Truncated: true,
			},
		},
		{
			name:   "invalid bytes are repaired within the budget",
			stream: Stream{Text: []byte("a\n\xff\xff\xff\n")},
			budget: small,
			want: Result{
				Text:      narrow("[truncated: kept the last 1 of 2 lines; limit 3 lines / 10 bytes.") + "\n\uFFFD\uFFFD\uFFFD\n",
				KeptLines: 1, KeptBytes: 4, Truncated: true,
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := Tail(tc.stream, tc.budget)
			require.Equal(t, tc.want, got)
			checkCut(t, false, tc.stream, tc.budget, got)
		})
	}
}

// TestSpecMarkers reproduces the three markers of SPEC §6.2 at the real
// budgets, byte for byte.
func TestSpecMarkers(t *testing.T) {
	var out bytes.Buffer
	for i := range 51234 {
		fmt.Fprintf(&out, "%d\n", i)
	}
	head := Head(Stream{Text: out.Bytes(), Lines: 51234, Spill: "<path>"}, ShellBudget())
	require.True(t, head.Truncated)
	require.Equal(t, 4000, head.KeptLines)
	require.True(t, strings.HasSuffix(head.Text, "3999\n[truncated: kept the first 4000 of 51234 lines; limit 4000 lines / 96KB. Full output saved to <path> — Grep it, or Read it with offset/limit.]\n"), head.Text[len(head.Text)-200:])

	// 81-byte lines: 96KB holds 1213 of them.
	line := strings.Repeat("e", 80) + "\n"
	tail := Tail(Stream{Text: []byte(strings.Repeat(line, 51234))}, ShellErrBudget())
	require.Equal(t, limits.ShellErrBudgetBytes/len(line), tail.KeptLines)
	require.Equal(t, "[truncated: kept the last 1213 of 51234 lines; limit 4000 lines / 96KB. Narrow the request to see more.]\n"+strings.Repeat(line, 1213), tail.Text)

	huge := Head(Stream{
		Text:          bytes.Repeat([]byte("a"), limits.CaptureMaxBytes),
		Lines:         1,
		EdgeLineBytes: 4_200_000,
		Dropped:       true,
		Spill:         "<path>",
	}, ShellBudget())
	require.Equal(t, strings.Repeat("a", 98304)+"\n[truncated: no complete line fits the 96KB limit; kept 98304 bytes of a single 4200000-byte line. "+
		"Full output saved to <path> — Grep it, or Read it with offset/limit. The saved copy holds the first 524288 bytes of line 1 (spill limit 512KB).]\n", huge.Text)
}

// TestSpecMarkers_CutSpill: when the spilled copy is itself cut, the marker
// says where the copy ends (SPEC §6.2), e.g. for seq 1 200000, whose first
// 512KB end inside line 89233.
func TestSpecMarkers_CutSpill(t *testing.T) {
	var seq bytes.Buffer
	for i := 1; i <= 200000; i++ {
		fmt.Fprintf(&seq, "%d\n", i)
	}
	all := seq.Bytes()
	head := Head(Stream{Text: all[:limits.CaptureMaxBytes], Lines: 200000, Dropped: true, Spill: "<path>"}, ShellBudget())
	require.True(t, strings.HasSuffix(head.Text, "\n[truncated: kept the first 4000 of 200000 lines; limit 4000 lines / 96KB. "+
		"Full output saved to <path> — Grep it, or Read it with offset/limit. The saved copy holds lines 1–89232 of 200000 (spill limit 512KB).]\n"), tail(head.Text, 300))

	ring := all[len(all)-limits.CaptureMaxBytes:]
	ring = ring[bytes.IndexByte(ring, '\n')+1:] // the ring keeps whole lines
	held := bytes.Count(ring, []byte{'\n'})
	tailCut := Tail(Stream{Text: ring, Lines: 200000, Dropped: true, Spill: "<path>"}, ShellErrBudget())
	require.True(t, strings.HasPrefix(tailCut.Text, "[truncated: kept the last 4000 of 200000 lines; limit 4000 lines / 96KB. "+
		"Full output saved to <path> — Grep it, or Read it with offset/limit. The saved copy holds the last "+strconv.Itoa(held)+" lines of 200000 (spill limit 512KB).]\n"), tailCut.Text[:300])

	// Without a spill file, no sentence about a copy.
	narrowed := Head(Stream{Text: all[:limits.CaptureMaxBytes], Lines: 200000, Dropped: true}, ShellBudget())
	require.True(t, strings.HasSuffix(narrowed.Text, "limit 4000 lines / 96KB. Narrow the request to see more.]\n"))
}

func tail(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}

var (
	linesMarkerRE = regexp.MustCompile(`^\[truncated: kept the (first|last) (\d+) of (\d+) lines; limit (\d+) lines / (\d+limits.KB|\d+ bytes)\. (.*)\]$`)
	singleLineRE  = regexp.MustCompile(`^\[truncated: no complete line fits the (\d+limits.KB|\d+ bytes) limit; kept (\d+) bytes of a single (\d+)-byte line\. (.*)\]$`)
)

// savedCopyOracle is the sentence SPEC §6.2 adds when the spilled copy is
// itself cut, computed from s directly.
func savedCopyOracle(head bool, s Stream) string {
	total := max(s.Lines, CountLines(s.Text))
	held := strings.Count(string(s.Text), "\n")
	if !head {
		held = CountLines(s.Text)
	}
	limit := "512KB"
	if held >= limits.CaptureMaxLines {
		limit = "200000 lines"
	}
	partial := !head && held == 1 && len(strings.TrimRight(string(s.Text), "\r\n")) < s.EdgeLineBytes
	switch {
	case head && held == 0:
		return fmt.Sprintf("The saved copy holds the first %d bytes of line 1 (spill limit %s).", len(s.Text), limit)
	case head:
		return fmt.Sprintf("The saved copy holds lines 1–%d of %d (spill limit %s).", held, total, limit)
	case partial:
		return fmt.Sprintf("The saved copy holds the last %d bytes of line %d (spill limit %s).", len(s.Text), total, limit)
	case held == 1:
		return fmt.Sprintf("The saved copy holds the last line of %d (spill limit %s).", total, limit)
	}
	return fmt.Sprintf("The saved copy holds the last %d lines of %d (spill limit %s).", held, total, limit)
}

// checkCut asserts every documented property of a cut of s within b.
func checkCut(t *testing.T, head bool, s Stream, b Budget, c Result) {
	t.Helper()
	nb := b.normalized()
	raw := s.Text
	total := max(s.Lines, CountLines(raw))
	require.True(t, utf8.ValidString(c.Text), "result is not valid UTF-8")

	if !c.Truncated {
		require.Equal(t, Repair(raw), c.Text, "uncut text must be the whole text")
		require.False(t, s.Dropped, "dropped content must be announced")
		require.Equal(t, total, CountLines(raw))
		require.Equal(t, total, c.KeptLines)
		require.Equal(t, len(raw), c.KeptBytes)
		require.LessOrEqual(t, len(c.Text), nb.Bytes)
		require.LessOrEqual(t, c.KeptLines, nb.Lines)
		return
	}
	require.True(t, c.KeptBytes < len(raw) || s.Dropped || c.KeptLines < total, "a cut must drop something")

	// Split the result into kept text and marker.
	var kept, marker string
	if head {
		require.True(t, strings.HasSuffix(c.Text, "\n"))
		body := c.Text[:len(c.Text)-1]
		i := strings.LastIndexByte(body, '\n')
		marker = body[i+1:]
		kept = body[:i+1]
	} else {
		i := strings.IndexByte(c.Text, '\n')
		require.GreaterOrEqual(t, i, 0, "tail cut without its marker line")
		marker = c.Text[:i]
		kept = c.Text[i+1:]
	}
	require.LessOrEqual(t, len(kept), nb.Bytes+1) // +1: the "\n" a head cut may add
	nextStepText := "Narrow the request to see more."
	if s.Spill != "" {
		nextStepText = "Full output saved to " + Repair([]byte(s.Spill)) + " — Grep it, or Read it with offset/limit."
		if s.Dropped {
			nextStepText += " " + savedCopyOracle(head, s)
		}
	}

	if m := singleLineRE.FindStringSubmatch(marker); m != nil {
		require.Equal(t, byteSize(nb.Bytes), m[1])
		x, _ := strconv.Atoi(m[2])
		y, _ := strconv.Atoi(m[3])
		require.Equal(t, nextStepText, m[4])
		require.Equal(t, 0, c.KeptLines)
		require.Equal(t, c.KeptBytes, x)
		require.LessOrEqual(t, x, y)
		var want string
		var lineLen int
		if head {
			n, _ := firstLine(raw, s.Dropped)
			lineLen = n
			require.LessOrEqual(t, x, n)
			want = Repair(raw[:x])
			if len(want) > 0 && !strings.HasSuffix(want, "\n") {
				want += "\n"
			}
		} else {
			q, e, _ := lastLine(raw, s.Dropped)
			lineLen = e - q
			require.LessOrEqual(t, x, e-q)
			want = Repair(raw[e-x : e])
		}
		require.GreaterOrEqual(t, y, lineLen)
		require.Equal(t, want, kept)
		require.LessOrEqual(t, len(strings.TrimSuffix(kept, "\n")), nb.Bytes)
		if lineLen > 0 {
			require.NotEmpty(t, strings.TrimSuffix(kept, "\n"), "a non-empty line must leave a non-empty excerpt")
		}
		return
	}

	m := linesMarkerRE.FindStringSubmatch(marker)
	require.NotNil(t, m, "no marker in %q", c.Text)
	if head {
		require.Equal(t, "first", m[1])
	} else {
		require.Equal(t, "last", m[1])
	}
	k, _ := strconv.Atoi(m[2])
	n, _ := strconv.Atoi(m[3])
	require.Equal(t, c.KeptLines, k)
	require.Equal(t, total, n)
	require.Equal(t, nb.String(), m[4]+" lines / "+m[5])
	require.Equal(t, nextStepText, m[6])

	// The kept text is exactly the shown form of KeptBytes stream bytes at a
	// line boundary, within the budget.
	var keptRaw, next []byte
	if head {
		keptRaw = raw[:c.KeptBytes]
		want := Repair(keptRaw)
		if len(want) > 0 && !strings.HasSuffix(want, "\n") {
			want += "\n"
		}
		require.Equal(t, want, kept)
		require.True(t, c.KeptBytes == 0 || raw[c.KeptBytes-1] == '\n' || (c.KeptBytes == len(raw) && !s.Dropped))
		rest := raw[c.KeptBytes:]
		if nl := bytes.IndexByte(rest, '\n'); nl >= 0 {
			next = rest[:nl+1]
		} else if !s.Dropped {
			next = rest
		}
	} else {
		keptRaw = raw[len(raw)-c.KeptBytes:]
		require.Equal(t, Repair(keptRaw), kept)
		start := len(raw) - c.KeptBytes
		require.True(t, start == 0 || raw[start-1] == '\n')
		if start == 0 {
			require.False(t, s.Dropped && endOfLine(raw, s.EdgeLineBytes), "the end of a line was kept as a whole line")
		} else {
			// Text has more than one line, so its first line is whole.
			p := bytes.LastIndexByte(raw[:start-1], '\n')
			next = raw[p+1 : start]
		}
	}
	shown := Repair(keptRaw)
	require.LessOrEqual(t, len(shown), nb.Bytes)
	require.LessOrEqual(t, CountLines([]byte(shown)), nb.Lines)
	require.Equal(t, CountLines(keptRaw), c.KeptLines)
	// Kept and dropped lines add up: the cut falls on a line boundary.
	if head {
		require.Equal(t, CountLines(raw), c.KeptLines+CountLines(raw[len(keptRaw):]))
	} else {
		require.Equal(t, CountLines(raw), CountLines(raw[:len(raw)-len(keptRaw)])+c.KeptLines)
	}
	// Longest: the next whole line would not have fitted.
	if len(next) > 0 {
		require.True(t, len(shown)+repairedLen(next) > nb.Bytes || c.KeptLines+1 > nb.Lines,
			"the next line %q fits too", next)
	}
	if len(raw) > 0 && c.KeptLines == 0 {
		t.Fatalf("whole-line cut of non-empty text kept nothing: %q", c.Text)
	}
}

// randomText builds text from pieces that hit every edge: multi-byte chars,
// invalid bytes, CR, LF.
func randomText(r *rand.Rand, n int) []byte {
	pieces := []string{"a", "bc", "é", "汉", "😀", "\n", "\n", "\r\n", "\r", "\xff", "\xe2\x82", "\x80", "\n\n"}
	var b []byte
	for range n {
		b = append(b, pieces[r.IntN(len(pieces))]...)
	}
	return b
}

func TestCutProperties(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 20000 {
		s := Stream{
			Text:    randomText(r, r.IntN(40)),
			Dropped: r.IntN(3) == 0,
		}
		if r.IntN(2) == 0 {
			s.Lines = CountLines(s.Text) + r.IntN(5)
		}
		if s.Dropped && r.IntN(2) == 0 {
			s.EdgeLineBytes = r.IntN(1000)
		}
		if r.IntN(2) == 0 {
			s.Spill = spillPath
		}
		b := Budget{Bytes: r.IntN(40), Lines: r.IntN(8)}
		t.Run(strconv.Itoa(i), func(t *testing.T) {
			checkCut(t, true, s, b, Head(s, b))
			checkCut(t, false, s, b, Tail(s, b))
		})
	}
}

func fuzzStream(text []byte, lines uint8, edge uint16, dropped, spill bool) Stream {
	s := Stream{Text: text, Lines: int(lines), Dropped: dropped}
	if dropped {
		s.EdgeLineBytes = int(edge)
	}
	if spill {
		s.Spill = spillPath
	}
	return s
}

func addCutSeeds(f *testing.F) {
	f.Add([]byte("a\nb\nc\nd\n"), uint8(0), uint16(0), false, true, uint8(10), uint8(3))
	f.Add([]byte("0123456789ABCDEF\r\n"), uint8(0), uint16(0), false, false, uint8(10), uint8(3))
	f.Add([]byte("ééé😀\xff\xe2\x82\n\n"), uint8(9), uint16(500), true, false, uint8(5), uint8(1))
	f.Add([]byte("cut-off\nb\nc\n"), uint8(50), uint16(0), true, true, uint8(10), uint8(3))
	f.Add([]byte("fgh\n"), uint8(2), uint16(8), true, false, uint8(10), uint8(3))
}

func FuzzHead(f *testing.F) {
	addCutSeeds(f)
	f.Fuzz(func(t *testing.T, text []byte, lines uint8, edge uint16, dropped, spill bool, bytesB, linesB uint8) {
		s := fuzzStream(text, lines, edge, dropped, spill)
		b := Budget{Bytes: int(bytesB % 64), Lines: int(linesB % 8)}
		checkCut(t, true, s, b, Head(s, b))
	})
}

func FuzzTail(f *testing.F) {
	addCutSeeds(f)
	f.Fuzz(func(t *testing.T, text []byte, lines uint8, edge uint16, dropped, spill bool, bytesB, linesB uint8) {
		s := fuzzStream(text, lines, edge, dropped, spill)
		b := Budget{Bytes: int(bytesB % 64), Lines: int(linesB % 8)}
		checkCut(t, false, s, b, Tail(s, b))
	})
}

func TestCountLines(t *testing.T) {
	tests := []struct {
		in   string
		want int
	}{
		{"", 0},
		{"\n", 1},
		{"a", 1},
		{"a\n", 1},
		{"a\nb", 2},
		{"a\r\nb\r\n", 2},
		{"\n\n", 2},
		{"a\rb", 1},
	}
	for _, tc := range tests {
		t.Run(strconv.Quote(tc.in), func(t *testing.T) {
			require.Equal(t, tc.want, CountLines([]byte(tc.in)))
		})
	}
}

func TestLineCounter(t *testing.T) {
	tests := []struct {
		name      string
		pieces    []string
		wantLines int
		wantFirst int
		wantLast  int
	}{
		{name: "nothing", pieces: nil},
		{name: "one unterminated line", pieces: []string{"ab", "c"}, wantLines: 1, wantFirst: 3, wantLast: 3},
		{name: "lines across pieces", pieces: []string{"ab", "c\nde", "f\ng"}, wantLines: 3, wantFirst: 3, wantLast: 1},
		{name: "CRLF split between pieces", pieces: []string{"abc\r", "\nxy\r", "\n"}, wantLines: 2, wantFirst: 3, wantLast: 2},
		{name: "lone CR is content", pieces: []string{"a\rb"}, wantLines: 1, wantFirst: 3, wantLast: 3},
		{name: "many lines in one piece", pieces: []string{"1\n22\n333\n"}, wantLines: 3, wantFirst: 1, wantLast: 3},
		{name: "CRLF lines in one piece", pieces: []string{"x\r\nab\r\n"}, wantLines: 2, wantFirst: 1, wantLast: 2},
		{name: "trailing empty line", pieces: []string{"abc\n", "\n"}, wantLines: 2, wantFirst: 3, wantLast: 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var c LineCounter
			for _, p := range tc.pieces {
				n, err := c.Write([]byte(p))
				require.NoError(t, err)
				require.Equal(t, len(p), n)
			}
			all := strings.Join(tc.pieces, "")
			require.Equal(t, len(all), c.Bytes())
			require.Equal(t, tc.wantLines, c.Lines())
			require.Equal(t, tc.wantFirst, c.FirstLineBytes())
			require.Equal(t, tc.wantLast, c.LastLineBytes())
		})
	}
}

func FuzzLineCounter(f *testing.F) {
	f.Add([]byte("ab\r\ncd\nef"), []byte{1, 3, 2})
	f.Add([]byte("\r\n\r\n\r"), []byte{1, 1, 1, 1})
	f.Fuzz(func(t *testing.T, text []byte, cuts []byte) {
		var c LineCounter
		rest := text
		for _, k := range cuts {
			n := min(int(k), len(rest))
			_, _ = c.Write(rest[:n])
			rest = rest[n:]
		}
		_, _ = c.Write(rest)
		require.Equal(t, len(text), c.Bytes())
		require.Equal(t, CountLines(text), c.Lines())
		first, _ := firstLine(text, false)
		require.Equal(t, first, c.FirstLineBytes())
		q, e, _ := lastLine(text, false)
		require.Equal(t, e-q, c.LastLineBytes())
	})
}

// megabyteOfOutput is 1 MB of 100-byte lines, like a build log.
func megabyteOfOutput() []byte {
	line := []byte(strings.Repeat("x", 99) + "\n")
	return bytes.Repeat(line, 10_000)
}

func BenchmarkHead(b *testing.B) {
	text := megabyteOfOutput()
	s := Stream{Text: text, Lines: CountLines(text), Spill: spillPath}
	b.ReportAllocs()
	for b.Loop() {
		Head(s, ShellBudget())
	}
}

func BenchmarkTail(b *testing.B) {
	text := megabyteOfOutput()
	s := Stream{Text: text, Lines: CountLines(text), Spill: spillPath}
	b.ReportAllocs()
	for b.Loop() {
		Tail(s, ShellErrBudget())
	}
}

func BenchmarkLineCounter(b *testing.B) {
	text := megabyteOfOutput()
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		var c LineCounter
		for p := text; len(p) > 0; p = p[min(len(p), limits.StreamChunkBytes):] {
			_, _ = c.Write(p[:min(len(p), limits.StreamChunkBytes)])
		}
	}
}

// BenchmarkCountLines is the floor a cut of the same input is compared with:
// one SIMD pass over 1 MB for "\n".
func BenchmarkCountLines(b *testing.B) {
	text := megabyteOfOutput()
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		CountLines(text)
	}
}
