package roots

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestURIPath(t *testing.T) {
	tests := []struct {
		name    string
		uri     string
		windows bool
		want    string
		ok      bool
	}{
		{"unix", "file:///home/a/proj", false, "/home/a/proj", true},
		{"unix escaped", "file:///home/a/my%20proj", false, "/home/a/my proj", true},
		{"unix localhost", "file://localhost/srv", false, "/srv", true},
		{"unix host ignored", "file://other/srv", false, "/srv", true},
		{"not file", "https://x/y", false, "", false},
		{"no path", "file://", false, "", false},
		{"drive", "file:///C:/Users/a/proj", true, `C:\Users\a\proj`, true},
		{"drive lower, colon escaped (VS Code)", "file:///c%3A/Users/a", true, `C:\Users\a`, true},
		{"drive root", "file:///D:/", true, `D:\`, true},
		{"drive alone", "file:///D:", true, `D:\`, true},
		{"UNC", "file://server/share/dir", true, `\\server\share\dir`, true},
		{"spaces", "file:///C:/My%20Projects/x", true, `C:\My Projects\x`, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := uriPath(tc.uri, tc.windows)
			require.Equal(t, tc.ok, ok)
			require.Equal(t, tc.want, got)
		})
	}
}

// TestPathURI checks that PathURI builds the URI URIPath reads back, for a
// Windows drive path (the MCP face's roots, issue 34 D: url.URL{Path: abs}
// made "file://Z:%5C…", which is not a file:// URI) and a UNC path.
func TestPathURI(t *testing.T) {
	tests := []struct {
		abs     string
		windows bool
		want    string
	}{
		{"/home/a/my proj", false, "file:///home/a/my%20proj"},
		{`Z:\tmp\x`, true, "file:///Z:/tmp/x"},
		{`C:\My Projects\x`, true, "file:///C:/My%20Projects/x"},
		{`D:\`, true, "file:///D:/"},
		{`\\server\share\dir`, true, "file://server/share/dir"},
	}
	for _, tc := range tests {
		got := pathURI(tc.abs, tc.windows)
		require.Equal(t, tc.want, got, "pathURI(%q)", tc.abs)
		back, ok := uriPath(got, tc.windows)
		require.True(t, ok, got)
		require.Equal(t, tc.abs, back, "round trip of %q", tc.abs)
	}
}

func TestWithin(t *testing.T) {
	tests := []struct {
		dir, p string
		want   bool
	}{
		{"/", "/", true},
		{"/", "/a", true},
		{"/a", "/a", true},
		{"/a", "/a/b", true},
		{"/a", "/ab", false},
		{"/a/b", "/a", false},
	}
	for _, tc := range tests {
		require.Equal(t, tc.want, Within(tc.dir, tc.p), "Within(%q, %q)", tc.dir, tc.p)
	}
}
