package process

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"
)

// render feeds in to a fresh Renderer in one Write, then Flushes.
func render(in string, screen bool) string {
	var out bytes.Buffer
	r := NewRenderer(80, 24, screen, func(b []byte) { out.Write(b) })
	_, _ = r.Write([]byte(in))
	r.Flush()
	return out.String()
}

func TestRenderer_LineDiscipline(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"plain", "a\nb\n", "a\nb\n"},
		{"crlf", "a\r\nb\r\n", "a\nb\n"},
		{"carriage return overwrites", "50%\r100%\n", "100%\n"},
		{"backspace", "abc\b\bX\n", "aXc\n"},
		{"erase to end", "hello world\r\x1b[Kbye\n", "bye\n"},
		{"erase line", "hello\x1b[2K\rok\n", "ok\n"},
		{"cursor back", "abcd\x1b[2DXY\n", "abXY\n"},
		{"cursor column", "abcd\x1b[1GZ\n", "Zbcd\n"},
		{"sgr dropped", "\x1b[1;31mred\x1b[0m\n", "red\n"},
		{"osc dropped", "\x1b]0;title\x07text\n", "text\n"},
		{"osc st dropped", "\x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\\n", "link\n"},
		{"bell dropped", "a\ab\n", "ab\n"},
		{"tab kept", "a\tb\n", "a\tb\n"},
		{"prompt flushed", "Name? ", "Name? "},
		{"invalid utf8 dropped", "a\xffb\n", "ab\n"},
		{"alt screen ignored in pipe mode", "\x1b[?1049hhi\x1b[?1049l\n", "hi\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.want, render(tc.in, false))
		})
	}
}

func TestRenderer_ProgressBarIsOneLine(t *testing.T) {
	var raw strings.Builder
	for i := 0; i <= 500; i++ {
		fmt.Fprintf(&raw, "\r\x1b[32m[%-50s]\x1b[0m %3d%%\x1b[K", strings.Repeat("#", i/10), i/5)
	}
	raw.WriteString("\n")
	got := render(raw.String(), true)
	require.Equal(t, "["+strings.Repeat("#", 50)+"] 100%\n", got)
}

func TestRenderer_FlushThenCommit(t *testing.T) {
	var out bytes.Buffer
	r := NewRenderer(80, 24, true, func(b []byte) { out.Write(b) })
	_, _ = r.Write([]byte("Name? "))
	r.Flush()
	_, _ = r.Write([]byte("bob\r\n"))
	require.Equal(t, "Name? bob\n", out.String())
	_, _ = r.Write([]byte("10%"))
	r.Flush()
	_, _ = r.Write([]byte("\r20%\n"))
	require.Equal(t, "Name? bob\n10%\n20%\n", out.String())
}

func TestRenderer_AltScreenSnapshot(t *testing.T) {
	in := "before\r\n\x1b[?1049h\x1b[2J\x1b[H\x1b[7mline one\x1b[m\x1b[2;1Hline two\x1b[?1049lafter\r\n"
	got := render(in, true)
	require.Equal(t, "before\n"+ScreenHeader(80, 24)+"\nline one\nline two\nafter\n", got)
}

func TestRenderer_AltScreenSplitWrites(t *testing.T) {
	in := "\x1b[?1049h\x1b[Hhello\x1b[?1049lx\n"
	var out bytes.Buffer
	r := NewRenderer(40, 10, true, func(b []byte) { out.Write(b) })
	for i := 0; i < len(in); i++ {
		_, _ = r.Write([]byte{in[i]})
	}
	r.Flush()
	require.Equal(t, ScreenHeader(40, 10)+"\nhello\nx\n", out.String())
}

// checkRendered fails when out holds ESC, a C0 byte other than \n and \t,
// DEL, or invalid UTF-8.
func checkRendered(t testing.TB, out []byte) {
	if !utf8.Valid(out) {
		t.Fatalf("invalid UTF-8: %q", out)
	}
	for _, b := range out {
		if (b < 0x20 && b != '\n' && b != '\t') || b == 0x7f {
			t.Fatalf("control byte %#x in %q", b, out)
		}
	}
	for _, c := range string(out) {
		if c >= 0x80 && c < 0xa0 {
			t.Fatalf("C1 control %U in %q", c, out)
		}
	}
}

func FuzzRenderer(f *testing.F) {
	f.Add([]byte("a\r\nb\x1b[31mc\x1b[0m\n"), true, 3)
	f.Add([]byte("\x1b[?1049h\x1b[2Jscreen\x1b[?1049l"), true, 1)
	f.Add([]byte("\x1b]0;t\x07\xff\xfe\x9b1m\x1b[5@x\x1b[3P"), false, 2)
	f.Add([]byte("50%\r\x1b[K100%\x08\x08\x7f\n"), false, 5)
	f.Fuzz(func(t *testing.T, in []byte, screen bool, split int) {
		var out bytes.Buffer
		r := NewRenderer(20, 5, screen, func(b []byte) { out.Write(b) })
		r.Reply = func([]byte) {}
		step := max(split, 1)
		for i := 0; i < len(in); i += step {
			_, _ = r.Write(in[i:min(i+step, len(in))])
			if i%3 == 0 {
				r.Flush()
			}
		}
		r.Flush()
		checkRendered(t, out.Bytes())
	})
}
