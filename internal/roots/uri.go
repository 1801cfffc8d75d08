package roots

import (
	"net/url"
	"runtime"
	"strings"
)

// URIPath returns the local path a file:// URI names, in this platform's
// form: on Windows "file:///C:/a%20b" is `C:\a b` and "file://server/share/x"
// is the UNC path `\\server\share\x`. ok is false for anything but a file://
// URI with a path.
func URIPath(u string) (path string, ok bool) { return uriPath(u, runtime.GOOS == "windows") }

func uriPath(u string, windows bool) (string, bool) {
	parsed, err := url.Parse(u)
	if err != nil || !strings.EqualFold(parsed.Scheme, "file") || parsed.Path == "" {
		return "", false
	}
	p := parsed.Path
	if !windows {
		return p, true // the host part is ignored, as it always was
	}
	if parsed.Host != "" && !strings.EqualFold(parsed.Host, "localhost") {
		return `\\` + parsed.Host + strings.ReplaceAll(p, "/", `\`), true
	}
	// "/C:/x" or "/c%3A/x" (VS Code escapes the colon): drop the slash before the drive.
	if len(p) >= 3 && p[0] == '/' && p[2] == ':' && isLetter(p[1]) {
		p = strings.ToUpper(p[1:2]) + p[2:]
	}
	if len(p) == 2 {
		p += "/" // "C:" alone is the drive's current directory, not its root
	}
	return strings.ReplaceAll(p, "/", `\`), true
}

func isLetter(b byte) bool { return 'a' <= b && b <= 'z' || 'A' <= b && b <= 'Z' }

// PathURI returns the file:// URI of the absolute local path abs, the
// inverse of URIPath: on Windows `C:\a b` is "file:///C:/a%20b" and the UNC
// path `\\server\share\x` is "file://server/share/x".
func PathURI(abs string) string { return pathURI(abs, runtime.GOOS == "windows") }

func pathURI(abs string, windows bool) string {
	if !windows {
		return (&url.URL{Scheme: "file", Path: abs}).String()
	}
	p := strings.ReplaceAll(abs, `\`, "/")
	if host, rest, ok := strings.Cut(strings.TrimPrefix(p, "//"), "/"); ok && strings.HasPrefix(p, "//") {
		return (&url.URL{Scheme: "file", Host: host, Path: "/" + rest}).String()
	}
	if !strings.HasPrefix(p, "/") {
		p = "/" + p // "C:/x" → "/C:/x": the drive is the path's first segment
	}
	return (&url.URL{Scheme: "file", Path: p}).String()
}
