package walk

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/toolrpc/toolrpc/internal/textenc"
	"github.com/toolrpc/toolrpc/limits"
)

// binaryExtensions is the extension blocklist of SPEC §4: files whose names end
// in one of these (compared in lower case) are binary whatever their content.
var binaryExtensions = func() map[string]bool {
	exts := []string{
		// images
		"png", "jpg", "jpeg", "jpe", "jfif", "gif", "bmp", "ico", "icns", "cur", "tif", "tiff",
		"webp", "heic", "heif", "avif", "psd", "xcf", "raw", "cr2", "nef", "arw", "dng", "jxl", "jp2",
		// archives and packages
		"zip", "tar", "gz", "tgz", "bz2", "tbz", "tbz2", "xz", "txz", "7z", "rar", "zst", "zstd",
		"lz", "lz4", "lzma", "lzo", "z", "cab", "ar", "cpio", "deb", "rpm", "apk", "aab", "ipa",
		"jar", "war", "ear", "aar", "whl", "egg", "iso", "dmg", "img", "msi", "msix", "vsix",
		"crx", "xpi", "nupkg", "snap", "pak",
		// executables and object code
		"exe", "dll", "so", "dylib", "bin", "com", "elf", "o", "a", "lib", "ko",
		"pyc", "pyo", "pyd", "class", "wasm", "dex", "odex", "oat", "beam", "elc", "rlib",
		"idb", "ilk", "gch", "pch", "node", "sys", "efi",
		// fonts
		"ttf", "otf", "ttc", "woff", "woff2", "eot", "fon", "pfb",
		// audio and video
		"mp3", "mp4", "m4a", "m4v", "m4b", "wav", "flac", "ogg", "oga", "ogv", "opus", "aac",
		"wma", "wmv", "avi", "mov", "mkv", "webm", "flv", "f4v", "mpg", "mpeg", "3gp", "3g2",
		"mid", "midi", "aif", "aiff", "amr", "ape", "swf",
		// documents
		"pdf", "doc", "docx", "xls", "xlsx", "xlsm", "ppt", "pptx", "odt", "ods", "odp", "odg",
		"epub", "mobi", "azw", "azw3", "djvu", "xps", "pages", "numbers",
		// databases and data blobs
		"db", "sqlite", "sqlite3", "db3", "mdb", "accdb", "dbf", "ibd", "myd", "myi",
		"ldb", "mdf", "ndf", "kdbx", "realm", "lmdb", "rdb",
		"pickle", "pkl", "npy", "npz", "h5", "hdf5", "hdf", "parquet", "avro", "orc", "feather",
		"arrow", "onnx", "pt", "pth", "safetensors", "ckpt", "tflite", "pb", "gguf", "ggml",
		"mat", "sav", "dta",
		// miscellaneous binary formats
		"swp", "swo", "blend", "fbx", "glb", "3ds", "unitypackage",
		"jks", "keystore", "p12", "pfx", "der", "gpg", "nib", "icc", "ds_store",
	}
	m := make(map[string]bool, len(exts))
	for _, e := range exts {
		m["."+strings.ToLower(e)] = true
	}
	return m
}()

// IsBinaryName reports whether name (a base name or a path) ends in an
// extension on the binary blocklist of SPEC §4. The comparison ignores case.
func IsBinaryName(name string) bool {
	_, ok := binaryExtension(name)
	return ok
}

// binaryExtension returns the lower-cased extension of name and whether it is
// on the blocklist.
func binaryExtension(name string) (string, bool) {
	ext := strings.ToLower(filepath.Ext(name))
	if ext == "" {
		return "", false
	}
	return ext, binaryExtensions[ext]
}

// NameReason returns the reason a file named name is binary by its extension
// ("extension .png"), or "" when its extension is not on the blocklist.
func NameReason(name string) string {
	ext, ok := binaryExtension(name)
	if !ok {
		return ""
	}
	return "extension " + ext
}

// Sniff reports whether head, the start of a file, marks the file as binary
// under SPEC §4, and why. It is SniffText without the encoding.
func Sniff(head []byte, atEOF bool) (binary bool, reason string) {
	_, binary, reason = SniffText(head, atEOF)
	return binary, reason
}

// SniffText reports whether head, the start of a file, marks the file as
// binary under SPEC §4 and §4.1, and why; for text, enc is its encoding
// (textenc.Detect; nil for UTF-8 without a BOM). Only the first
// limits.SniffBytes of head are inspected. atEOF tells that head holds the
// whole file; when it is false (or head is longer than limits.SniffBytes) a
// UTF-8 sequence cut by the end of the inspected bytes is not counted as
// non-printable.
//
// Binary means a NUL byte, or more than limits.BinaryNonPrintablePercent
// percent non-printable bytes: control bytes other than \t \n \r \f \v \b
// (DEL included), and bytes that are not part of valid UTF-8. Valid multi-byte
// UTF-8 is printable. An empty head is text. reason is "" for text. A file
// with a UTF-16 BOM, or one textenc names a legacy encoding, is judged by its
// decoded characters instead: a NUL character, or more than the threshold of
// control characters and U+FFFD, is binary.
func SniffText(head []byte, atEOF bool) (enc *textenc.Encoding, binary bool, reason string) {
	if len(head) > limits.SniffBytes {
		head, atEOF = head[:limits.SniffBytes], false
	}
	if e := textenc.ByBOM(head); e != nil && e.Unit() == 2 {
		body := head[len(e.BOM()):]
		if !atEOF {
			body = body[:len(body)&^1]
		}
		if binary, reason = sniffDecoded(e, body); binary {
			return nil, true, reason
		}
		return e, false, ""
	}
	if i := bytes.IndexByte(head, 0); i >= 0 {
		return nil, true, fmt.Sprintf("NUL byte at offset %d", i)
	}
	n := len(head)
	if n == 0 {
		return nil, false, ""
	}
	bad, invalid := nonPrintable(head, atEOF)
	if bytes.HasPrefix(head, textenc.UTF8BOM.BOM()) {
		enc = textenc.UTF8BOM
	} else if invalid > 0 {
		if e := textenc.DetectLegacy(head, atEOF); e != nil {
			if binary, _ := sniffDecoded(e, head); !binary {
				return e, false, ""
			}
		}
	}
	if bad*100 <= limits.BinaryNonPrintablePercent*n {
		return enc, false, ""
	}
	pct := (bad*100 + n - 1) / n // rounded up, so it always reads above the threshold
	return nil, true, fmt.Sprintf("%d%% non-printable bytes in the first %d", pct, n)
}

// sniffDecoded applies the NUL and non-printable rules to the characters
// of body, bytes of a file in e: U+FFFD (bytes that do not decode) counts
// as non-printable.
func sniffDecoded(e *textenc.Encoding, body []byte) (binary bool, reason string) {
	text := string(e.AppendText(nil, body))
	if i := strings.IndexByte(text, 0); i >= 0 {
		return true, fmt.Sprintf("NUL character in the first %d bytes (%s)", len(body), e.Name())
	}
	n := utf8.RuneCountInString(text)
	if n == 0 {
		return false, ""
	}
	bad, _ := nonPrintable([]byte(text), true)
	bad += strings.Count(text, "\uFFFD")
	if bad*100 <= limits.BinaryNonPrintablePercent*n {
		return false, ""
	}
	pct := (bad*100 + n - 1) / n
	return true, fmt.Sprintf("%d%% non-printable characters in the first %d bytes (%s)", pct, len(body), e.Name())
}

// nonPrintable counts the non-printable bytes of head (which holds no NUL),
// and of them those that are not part of valid UTF-8 (invalid).
// Thirty-two or eight bytes at a time that are all printable ASCII, tab or
// newline (most of any text file) are skipped as one block or word; any other word is walked byte by
// byte, so the count is exactly that of the byte loop alone.
func nonPrintable(head []byte, atEOF bool) (bad, invalid int) {
	for i := 0; i < len(head); {
		if i+32 <= len(head) && plainBlock(head[i:i+32]) {
			i += 32
			continue
		}
		if i+8 <= len(head) && plainWord(binary.LittleEndian.Uint64(head[i:])) {
			i += 8
			continue
		}
		b := head[i]
		if b < utf8.RuneSelf {
			if (b < 0x20 && !allowedControl(b)) || b == 0x7f {
				bad++
			}
			i++
			continue
		}
		r, size := utf8.DecodeRune(head[i:])
		if r == utf8.RuneError && size <= 1 {
			if !atEOF && !utf8.FullRune(head[i:]) {
				break // a sequence cut by the end of the sniffed bytes
			}
			bad++
			invalid++
			i++
			continue
		}
		i += size
	}
	return bad, invalid
}

// Word constants: the byte repeated in every lane, and the lanes' high bits.
const (
	lanes01 = 0x0101010101010101
	lanesHi = 0x8080808080808080
)

// plainWord reports whether all eight bytes of w are printable ASCII
// (0x20..0x7e), tab or newline. Each lane test is exact: with no high bit
// set, adding at most 0x77 to a lane never carries into the next one.
func plainWord(w uint64) bool {
	return w&lanesHi == 0 && plainBits(w) == lanesHi
}

// plainBits returns, for a word with no high bit set, the lanes' high
// bits set where the byte is printable ASCII, tab or newline.
func plainBits(w uint64) uint64 {
	printable := (w + 0x60*lanes01) &^ (w + 0x01*lanes01) // lane ≥ 0x20 and not DEL
	tabNL := (w + 0x77*lanes01) &^ (w + 0x75*lanes01)     // lane is 0x09 or 0x0a
	return (printable | tabNL) & lanesHi
}

// plainBlock reports whether the 32 bytes of b are all plain (plainWord).
func plainBlock(b []byte) bool {
	w0, w1 := binary.LittleEndian.Uint64(b), binary.LittleEndian.Uint64(b[8:])
	w2, w3 := binary.LittleEndian.Uint64(b[16:]), binary.LittleEndian.Uint64(b[24:])
	if (w0|w1|w2|w3)&lanesHi != 0 {
		return false
	}
	return plainBits(w0)&plainBits(w1)&plainBits(w2)&plainBits(w3) == lanesHi
}

func allowedControl(b byte) bool {
	switch b {
	case '\t', '\n', '\r', '\f', '\v', '\b':
		return true
	}
	return false
}

// SniffFile reports whether the open regular file f is binary: by the
// extension of f.Name(), else by Sniff over its first limits.SniffBytes. It
// reads with ReadAt from offset 0, so f's read offset is left untouched.
func SniffFile(f *os.File) (binary bool, reason string, err error) {
	_, binary, reason, err = SniffFileText(f)
	return binary, reason, err
}

// SniffFileText is SniffFile that also returns a text file's encoding
// (SniffText).
func SniffFileText(f *os.File) (enc *textenc.Encoding, binary bool, reason string, err error) {
	if r := NameReason(f.Name()); r != "" {
		return nil, true, r, nil
	}
	buf := make([]byte, limits.SniffBytes+1)
	n, err := f.ReadAt(buf, 0)
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, false, "", fmt.Errorf("sniff %s: %w", f.Name(), err)
	}
	enc, binary, reason = SniffText(buf[:n], n <= limits.SniffBytes)
	return enc, binary, reason, nil
}
