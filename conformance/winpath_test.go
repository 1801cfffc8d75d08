package conformance

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// The Windows mode of the suite (wine_test.go): the server under test is
// the windows/amd64 build run by Wine, which sees this machine's files on
// drive Z: (`/tmp/x` is `Z:\tmp\x`). The harness maps the paths below the
// temporary directory, where every workspace and data dir lives, in both
// directions: Unix paths in what it sends become Z: paths, and Z: paths in
// what the server sends become Unix paths again, so a test's params and
// expectations stay as they are. Paths outside the temporary directory are
// left alone.

// winePaths is set in the suite that TestWine_Suite re-runs (transportEnv
// "wine"); the Wine tests of the Linux run set it for their own servers.
var winePaths = os.Getenv(transportEnv) == "wine"

// wineWaitDelay bounds how long a Wine server's Wait waits for its stderr
// to close once it has exited: a backstop, not a timing.
const wineWaitDelay = 10 * time.Second

// wineTmp is the temporary directory whose paths are mapped.
var wineTmp = filepath.Clean(os.TempDir())

var (
	// unixPathRe is a path below wineTmp in JSON text, or its file:// URI.
	unixPathRe = regexp.MustCompile(`(file://)?` + regexp.QuoteMeta(wineTmp) + `(?:/[^\s"'\\,;)\]}]*)?`)
	// unixPathParamRe is a "path" param holding another absolute Unix
	// path ("/etc", "/"), which on Windows means the same place on drive Z:.
	unixPathParamRe = regexp.MustCompile(`"path":"/[^"\\]*"`)
	// winPathRe is a Z: path in JSON text (separators escaped as `\\`; a
	// part after a '/' stays in), or the drive of a file:///Z:/ URI.
	winPathRe = regexp.MustCompile(`file:///[Zz]:/|[Zz]:(?:\\\\[^\\"\s*?<>|:]*)+`)
)

// toWine maps the Unix paths below wineTmp in the JSON text b, and "path"
// params holding any absolute Unix path, to Z: paths.
func toWine(b []byte) []byte {
	b = unixPathRe.ReplaceAllFunc(b, func(m []byte) []byte {
		if p, ok := bytes.CutPrefix(m, []byte("file://")); ok {
			return append([]byte("file:///Z:"), p...)
		}
		return zPath(m)
	})
	return unixPathParamRe.ReplaceAllFunc(b, func(m []byte) []byte {
		return append(append([]byte(`"path":"`), zPath(m[len(`"path":"`):len(m)-1])...), '"')
	})
}

// zPath is the Unix path p as a Z: path in JSON text.
func zPath(p []byte) []byte {
	return append([]byte("Z:"), bytes.ReplaceAll(p, []byte("/"), []byte(`\\`))...)
}

// fromWine maps the Z: paths in the JSON text b back to Unix paths.
func fromWine(b []byte) []byte {
	if !bytes.ContainsAny(b, "Zz") {
		return b
	}
	return winPathRe.ReplaceAllFunc(b, func(m []byte) []byte {
		if bytes.HasPrefix(m, []byte("file:")) {
			return []byte("file:///")
		}
		return bytes.ReplaceAll(m[2:], []byte(`\\`), []byte("/"))
	})
}

// wineEnv maps the values of the KEY=VALUE pairs kv (or the arguments)
// that are paths below wineTmp to Z: paths.
func wineEnv(kv []string) []string {
	out := make([]string, len(kv))
	for i, e := range kv {
		k, v, ok := strings.Cut(e, "=")
		if !ok {
			k, v = "", e
		}
		if v == wineTmp || strings.HasPrefix(v, wineTmp+"/") {
			v = winePath(v)
		}
		if ok {
			v = k + "=" + v
		}
		out[i] = v
	}
	return out
}

// winePath is the Z: path of the Unix path p, as Windows spells it.
func winePath(p string) string { return "Z:" + strings.ReplaceAll(p, "/", `\`) }

// TestWinePathMapping is a harness self-test of the Windows mode's path
// mapping: Unix paths below the temporary directory (and their file://
// URIs) become Z: paths in JSON text, and back; other text is untouched.
func TestWinePathMapping(t *testing.T) {
	dir := wineTmp + "/TestX1/001"
	out := `{"rootUri":"file://` + dir + `","path":"` + dir + `/a b.txt","command":"cat ` + dir + `/x\n","other":"/etc/passwd"}`
	win := `{"rootUri":"file:///Z:` + dir + `","path":"Z:` + strings.ReplaceAll(dir, "/", `\\`) + `\\a b.txt","command":"cat Z:` + strings.ReplaceAll(dir, "/", `\\`) + `\\x\n","other":"/etc/passwd"}`
	require.Equal(t, win, string(toWine([]byte(out))))
	require.Equal(t, `{"path":"Z:\\etc\\passwd","pattern":"/*"}`, string(toWine([]byte(`{"path":"/etc/passwd","pattern":"/*"}`))))
	require.Equal(t, `{"path":"Z:\\"}`, string(toWine([]byte(`{"path":"/"}`))))
	in := `{"path":"Z:` + strings.ReplaceAll(dir, "/", `\\`) + `\\sub/c.txt","notice":"z:` + strings.ReplaceAll(dir, "/", `\\`) + `\\.gitignore:3 /*\n","uri":"file:///Z:` + dir + `"}`
	back := `{"path":"` + dir + `/sub/c.txt","notice":"` + dir + `/.gitignore:3 /*\n","uri":"file://` + dir + `"}`
	require.Equal(t, back, string(fromWine([]byte(in))))
	require.Equal(t, `Z:\tmp\x`, winePath("/tmp/x"))
	require.Equal(t, []string{"A=Z:" + strings.ReplaceAll(dir, "/", `\`), "B=/etc"}, wineEnv([]string{"A=" + dir, "B=/etc"}))
	require.Equal(t, []string{"--root", "Z:" + strings.ReplaceAll(dir, "/", `\`)}, wineEnv([]string{"--root", dir}))
}
