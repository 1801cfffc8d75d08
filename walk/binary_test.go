package walk

import (
	"bytes"
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/stretchr/testify/require"

	"github.com/toolrpc/toolrpc/limits"
)

func TestIsBinaryName(t *testing.T) {
	tests := []struct {
		name string
		want bool
	}{
		{"logo.png", true},
		{"LOGO.PNG", true},
		{"photo.JpEg", true},
		{"dir/archive.tar.gz", true},
		{"/abs/lib.so", true},
		{"app.exe", true},
		{"main.o", true},
		{"font.woff2", true},
		{"movie.mp4", true},
		{"paper.pdf", true},
		{"data.sqlite", true},
		{"Main.class", true},
		{".DS_Store", true},
		{"main.go", false},
		{"README", false},
		{"icon.svg", false},
		{"notes.txt", false},
		{"server.key", false},
		{"png", false},
		{"dir.png/file.txt", false},
		{"", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.want, IsBinaryName(tc.name))
			if tc.want {
				require.Equal(t, "extension "+strings.ToLower(filepath.Ext(tc.name)), NameReason(tc.name))
			} else {
				require.Empty(t, NameReason(tc.name))
			}
		})
	}
}

func utf16LE(s string) []byte {
	var b bytes.Buffer
	b.Write([]byte{0xff, 0xfe})
	for _, u := range utf16.Encode([]rune(s)) {
		_ = binary.Write(&b, binary.LittleEndian, u)
	}
	return b.Bytes()
}

// mix returns n bytes of which bad are the control byte 0x01 and the rest 'a'.
func mix(n, bad int) []byte {
	b := bytes.Repeat([]byte("a"), n)
	for i := 0; i < bad; i++ {
		b[i] = 0x01
	}
	return b
}

func TestSniff(t *testing.T) {
	chinese := strings.Repeat("中文文本测试，这是一个用于检测的段落。\n", 200)
	emoji := strings.Repeat("😀🎉🚀👍🏽 ok\n", 400)
	// A 4 KB head of ASCII text that ends in the first two bytes of "€" (3 bytes).
	cut := append(bytes.Repeat([]byte("x"), limits.SniffBytes-2), "€"[:2]...)
	// 4096 bytes of 3-byte characters cut mid-sequence by the 4 KB edge.
	cjkCut := []byte(strings.Repeat("中", limits.SniffBytes/3+1))[:limits.SniffBytes]
	// Latin-1 text: every accented letter is a lone invalid byte.
	latin1 := bytes.Repeat([]byte{'c', 'a', 'f', 0xe9, ' ', 0xe0, 0xe8, 0xf9, 0xfc, '\n'}, 50)
	tests := []struct {
		name       string
		head       []byte
		atEOF      bool
		wantBinary bool
		wantReason string
	}{
		{"empty", nil, true, false, ""},
		{"ascii", []byte("package main\n\nfunc main() {}\n"), true, false, ""},
		{"allowed controls", []byte("a\tb\r\nc\fd\ve\bf\n"), true, false, ""},
		{"chinese", []byte(chinese), false, false, ""},
		{"emoji", []byte(emoji), false, false, ""},
		{"c1 controls are valid utf8", []byte(strings.Repeat("\u0085\u0090x", 100)), true, false, ""},
		{"utf16 BOM is text (SPEC 4.1)", utf16LE("hello world"), true, false, ""},
		{"utf16 without BOM keeps the NUL rule", utf16LE("hello world")[2:], true, true, "NUL byte at offset 1"},
		{"utf16 BOM then a NUL character", utf16LE("hi\x00there"), true, true, "NUL character in the first 16 bytes (utf-16le)"},
		{"utf16 BOM then binary", append([]byte{0xff, 0xfe}, bytes.Repeat([]byte{0x01, 0x00, 0x00, 0xd8}, 20)...), true, true, "100% non-printable characters in the first 80 bytes (utf-16le)"},
		{"windows-1252 is text", []byte("caf\xe9 au lait\r\nline two\r\n\x93quoted\x94 cp1252\r\n"), true, false, ""},
		{"shift_jis is text", []byte("// \x93\xfa\x96\x7b\x8c\xea\x82\xcc\x83\x52\x83\x81\x83\x93\x83\x67\x82\xc5\x82\xb7\x81\x42\n"), true, false, ""},
		{"NUL at 12", []byte("hello world!\x00rest"), true, true, "NUL byte at offset 12"},
		{"NUL at 0", []byte{0, 'a'}, true, true, "NUL byte at offset 0"},
		{"NUL past sniff window ignored", append(bytes.Repeat([]byte("a"), limits.SniffBytes), 0), false, false, ""},
		{"exactly 30 percent is text", mix(100, 30), true, false, ""},
		{"31 percent is binary", mix(100, 31), true, true, "31% non-printable bytes in the first 100"},
		{"41 percent of 4096", mix(limits.SniffBytes, 1679), false, true, "41% non-printable bytes in the first 4096"},
		{"DEL counts", bytes.Repeat([]byte{0x7f, 'a'}, 10), true, true, "50% non-printable bytes in the first 20"},
		{"escape counts", bytes.Repeat([]byte{0x1b, 'a'}, 10), true, true, "50% non-printable bytes in the first 20"},
		{"latin1 is binary", latin1, true, true, "50% non-printable bytes in the first 500"},
		{"cut sequence at 4 KB edge not counted", cut, false, false, ""},
		{"cjk cut at 4 KB edge", cjkCut, false, false, ""},
		{"cjk longer than window", []byte(strings.Repeat("中", 3000)), false, false, ""},
		{"truncated sequence at EOF counts", []byte("\xe2\x82"), true, true, "100% non-printable bytes in the first 2"},
		{"truncated sequence cut by read", []byte("\xe2\x82"), false, false, ""},
		{"invalid continuation", bytes.Repeat([]byte{0x80}, 10), true, true, "100% non-printable bytes in the first 10"},
		{"overlong encoding", bytes.Repeat([]byte{0xc0, 0xaf}, 10), true, true, "100% non-printable bytes in the first 20"},
		{"surrogate encoding", bytes.Repeat([]byte{0xed, 0xa0, 0x80}, 10), true, true, "100% non-printable bytes in the first 30"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			gotBinary, gotReason := Sniff(tc.head, tc.atEOF)
			require.Equal(t, tc.wantBinary, gotBinary)
			require.Equal(t, tc.wantReason, gotReason)
		})
	}
}

func TestSniffFile(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name       string
		content    []byte
		wantBinary bool
		wantReason string
	}{
		{"a.txt", []byte("hello\n"), false, ""},
		{"empty.txt", nil, false, ""},
		{"image.PNG", []byte("looks like text\n"), true, "extension .png"},
		{"utf16.txt", utf16LE("hi"), false, ""},
		{"utf16-nobom.txt", utf16LE("hi")[2:], true, "NUL byte at offset 1"},
		// The file is exactly one byte longer than the window and the window
		// ends inside "€": the cut sequence must not count.
		{"edge.txt", append(append(bytes.Repeat([]byte("a"), limits.SniffBytes-1), "€"...), '\n'), false, ""},
		// The whole file ends in a truncated sequence: it counts.
		{"tail.txt", []byte("\xe2\x82"), true, "100% non-printable bytes in the first 2"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(dir, tc.name)
			require.NoError(t, os.WriteFile(p, tc.content, 0o644))
			f, err := os.Open(p)
			require.NoError(t, err)
			defer f.Close()
			gotBinary, gotReason, err := SniffFile(f)
			require.NoError(t, err)
			require.Equal(t, tc.wantBinary, gotBinary)
			require.Equal(t, tc.wantReason, gotReason)
			off, err := f.Seek(0, 1)
			require.NoError(t, err)
			require.Zero(t, off, "SniffFile must not move the read offset")
		})
	}
}

func FuzzSniff(f *testing.F) {
	f.Add([]byte("hello\n"), true)
	f.Add([]byte("中文\x00"), false)
	f.Add([]byte("\xe2\x82"), false)
	f.Add([]byte("\xe2\x82"), true)
	f.Add(bytes.Repeat([]byte{0x01, 'a', 'b'}, 10), true)
	f.Add(utf16LE("hi there"), true)
	f.Add(bytes.Repeat([]byte("€"), limits.SniffBytes/3+2), false)
	f.Fuzz(func(t *testing.T, head []byte, atEOF bool) {
		gotBinary, gotReason := Sniff(head, atEOF)
		require.Equal(t, gotBinary, gotReason != "", "a reason exactly when binary")
		window := head
		if len(window) > limits.SniffBytes {
			window = window[:limits.SniffBytes]
		}
		utf16BOM := bytes.HasPrefix(window, []byte{0xff, 0xfe}) || bytes.HasPrefix(window, []byte{0xfe, 0xff})
		if bytes.IndexByte(window, 0) >= 0 && !utf16BOM {
			require.True(t, gotBinary, "a NUL in the window is binary")
			require.True(t, strings.HasPrefix(gotReason, "NUL byte at offset "))
			return
		}
		clean := utf8.Valid(window)
		for _, b := range window {
			if (b < 0x20 && !allowedControl(b)) || b == 0x7f {
				clean = false
			}
		}
		if clean && !utf16BOM {
			require.False(t, gotBinary, "valid UTF-8 without control bytes is text")
		}
		// Appending bytes past the window never changes the verdict.
		if len(head) >= limits.SniffBytes {
			b2, r2 := Sniff(append(append([]byte(nil), head...), 0, 0xff), atEOF)
			require.Equal(t, gotBinary, b2)
			require.Equal(t, gotReason, r2)
		}
	})
}
