package process

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// renderClosed feeds in to a fresh Renderer (screen or not) in writes of
// step bytes (0: one Write), then Flushes and Closes it.
func renderClosed(in []byte, screen bool, step int) string {
	var out bytes.Buffer
	r := NewRenderer(80, 24, screen, func(b []byte) { out.Write(b) })
	if step <= 0 {
		step = len(in)
	}
	for len(in) > 0 {
		n := min(step, len(in))
		_, _ = r.Write(in[:n])
		in = in[n:]
	}
	r.Flush()
	r.Close()
	return out.String()
}

// viteClear is how vite, jest --watch and create-react-app clear the
// screen: rows-2 newlines, cursor home, erase below.
var viteClear = strings.Repeat("\n", 22) + "\x1b[H\x1b[J"

// TestRenderer_ClearDropsBlankRows checks SPEC §13.2: a clear of the main
// screen drops the empty lines it pushed up and the line it erased, in
// both modes; empty lines followed by text, or that scrolled off, stay.
func TestRenderer_ClearDropsBlankRows(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"vite banner", "VITE ready\n" + viteClear + "VITE ready\n", "VITE ready\nVITE ready\n"},
		{"clear then home", "a\n\n\n\x1b[2J\x1b[Hb\n", "a\nb\n"},
		{"erase scrollback", "a\n\n\x1b[3J\x1b[H\x1b[2Jb\n", "a\nb\n"},
		{"home by row and column", "a\n\n\n\x1b[1;1H\x1b[0Jb\n", "a\nb\n"},
		{"reset", "a\n\n\x1bcb\n", "a\nb\n"},
		{"erased line dropped", "a\nhalf" + "\x1b[H\x1b[Jb\n", "a\nb\n"},
		{"blank lines kept before text", "a\n\n\nb\n", "a\n\n\nb\n"},
		{"blank lines kept at the end", "a\n\n", "a\n\n"},
		{"erase below elsewhere is no clear", "a\n\n\x1b[5;1H\x1b[Jb\n", "a\n\nb\n"},
		{"home then text is no clear", "a\n\n\x1b[Hx\x1b[Jb\n", "a\n\nxb\n"},
		{"scrolled off stays", "a\n" + strings.Repeat("\n", 30) + "\x1b[H\x1b[Jb\n", "a\n" + strings.Repeat("\n", 30-24) + "b\n"},
	} {
		for _, screen := range []bool{false, true} {
			t.Run(tc.name, func(t *testing.T) {
				require.Equal(t, tc.want, renderClosed([]byte(tc.in), screen, 0))
			})
		}
	}
}

// TestRenderer_ClearLoopRatio checks SPEC §13.2: a watcher that clears and
// redraws its banner 200 times renders to its banners alone.
func TestRenderer_ClearLoopRatio(t *testing.T) {
	var raw strings.Builder
	for i := 0; i < 200; i++ {
		raw.WriteString(viteClear + "\x1b[32mVITE\x1b[0m ready\n  ➜  Local: http://localhost:5173/\n")
	}
	got := renderClosed([]byte(raw.String()), true, 0)
	require.Equal(t, strings.Repeat("VITE ready\n  ➜  Local: http://localhost:5173/\n", 200), got)
}

// FuzzRenderer_Split checks SPEC §13.2: any byte stream renders to the same
// text whether it arrives in one write or byte by byte, with and without a
// screen.
func FuzzRenderer_Split(f *testing.F) {
	for _, s := range []string{
		"plain\n", viteClear + "banner\n", "50%\r100%\n", "a\x1b[2Kb\n", "\x1b[?1049hscreen\x1b[?1049lafter\n",
		"é\xe2\x82\xac\n", "a\n\n\n\x1b[2J", "\x1bcx", "\x1b]0;t\x07y\n", "Name? ",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		for _, screen := range []bool{false, true} {
			whole := renderClosed(in, screen, 0)
			bytewise := renderClosed(in, screen, 1)
			if whole != bytewise {
				t.Fatalf("screen %v: %q renders to %q whole, %q byte by byte", screen, in, whole, bytewise)
			}
		}
	})
}
