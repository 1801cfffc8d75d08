package roots

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// rootsFixture is a workspace with a second folder, a scratch dir, an external
// root and a directory outside all of them, each holding a file.
type rootsFixture struct {
	ws, ws2, scratch, ext, outside string
	roots                          *Roots
}

func newRootsFixture(t *testing.T) rootsFixture {
	t.Helper()
	eval := func(p string) string {
		ev, err := filepath.EvalSymlinks(p)
		require.NoError(t, err)
		return ev
	}
	f := rootsFixture{
		ws:      eval(t.TempDir()),
		ws2:     eval(t.TempDir()),
		ext:     eval(t.TempDir()),
		outside: eval(t.TempDir()),
	}
	f.scratch = filepath.Join(eval(t.TempDir()), "scratch", "sess") // not created yet
	write := func(p string) {
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte("x\n"), 0o644))
	}
	write(filepath.Join(f.ws, "src", "a.go"))
	write(filepath.Join(f.ws2, "b.txt"))
	write(filepath.Join(f.ext, "lib", "c.txt"))
	write(filepath.Join(f.outside, "secret.txt"))
	link := func(target, name string) { require.NoError(t, os.Symlink(target, filepath.Join(f.ws, name))) }
	link(filepath.Join(f.outside, "secret.txt"), "out-file")
	link(f.outside, "out-dir")
	link("src/a.go", "in-file")
	link("in-file", "chain1")
	link("chain1", "chain2")
	link("out-file", "chain-out")
	link(filepath.Join(f.outside, "missing.txt"), "dangling-out")
	link("src/missing.go", "dangling-in")
	link("loop-b", "loop-a")
	link("loop-a", "loop-b")
	link(filepath.Join(f.ext, "lib"), "ext-link")
	r, err := NewRoots([]string{f.ws, f.ws2}, f.scratch, []string{f.ext})
	require.NoError(t, err)
	f.roots = r
	return f
}

func TestResolve(t *testing.T) {
	f := newRootsFixture(t)
	tests := []struct {
		name        string
		path        string
		wantAbs     string
		wantDisplay string
		wantRoot    Kind
		wantExists  bool
	}{
		{"relative", "src/a.go", filepath.Join(f.ws, "src/a.go"), "src/a.go", Workspace, true},
		{"root itself", "", f.ws, ".", Workspace, true},
		{"dot", ".", f.ws, ".", Workspace, true},
		{"absolute inside", filepath.Join(f.ws, "src", "a.go"), filepath.Join(f.ws, "src/a.go"), "src/a.go", Workspace, true},
		{"dotdot staying inside", "src/../src/./a.go", filepath.Join(f.ws, "src/a.go"), "src/a.go", Workspace, true},
		{"trailing slash", "src/", filepath.Join(f.ws, "src"), "src", Workspace, true},
		{"missing file", "src/new.go", filepath.Join(f.ws, "src/new.go"), "src/new.go", Workspace, false},
		{"missing dirs", "x/y/z.go", filepath.Join(f.ws, "x/y/z.go"), "x/y/z.go", Workspace, false},
		{"symlink inside", "in-file", filepath.Join(f.ws, "src/a.go"), "src/a.go", Workspace, true},
		{"symlink chain", "chain2", filepath.Join(f.ws, "src/a.go"), "src/a.go", Workspace, true},
		{"dangling symlink inside", "dangling-in", filepath.Join(f.ws, "src/missing.go"), "src/missing.go", Workspace, false},
		{"second workspace folder is absolute", filepath.Join(f.ws2, "b.txt"), filepath.Join(f.ws2, "b.txt"), filepath.Join(f.ws2, "b.txt"), Workspace, true},
		{"external", filepath.Join(f.ext, "lib", "c.txt"), filepath.Join(f.ext, "lib/c.txt"), filepath.Join(f.ext, "lib/c.txt"), External, true},
		{"symlink into external", "ext-link/c.txt", filepath.Join(f.ext, "lib/c.txt"), filepath.Join(f.ext, "lib/c.txt"), External, true},
		{"scratch not yet created", filepath.Join(f.scratch, "tool-output", "x.log"), filepath.Join(f.scratch, "tool-output/x.log"), filepath.Join(f.scratch, "tool-output/x.log"), Scratch, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := f.roots.Resolve(tc.path)
			require.NoError(t, err)
			require.Equal(t, tc.wantAbs, got.Abs)
			require.Equal(t, tc.wantDisplay, got.Display)
			require.Equal(t, tc.wantRoot, got.Root)
			require.Equal(t, tc.wantExists, got.Exists)
		})
	}
}

func TestResolveRefuses(t *testing.T) {
	f := newRootsFixture(t)
	tests := []struct {
		name    string
		path    string
		wantErr error
	}{
		{"dotdot escape", "../secret.txt", ErrOutsideRoots},
		{"deep dotdot escape", "src/../../../../../etc/passwd", ErrOutsideRoots},
		{"absolute outside", filepath.Join(f.outside, "secret.txt"), ErrOutsideRoots},
		{"absolute outside missing", filepath.Join(f.outside, "nope.txt"), ErrOutsideRoots},
		{"root of the filesystem", "/", ErrOutsideRoots},
		{"symlink to outside file", "out-file", ErrOutsideRoots},
		{"symlink to outside dir", "out-dir/secret.txt", ErrOutsideRoots},
		{"file below symlink to outside dir, missing", "out-dir/new.txt", ErrOutsideRoots},
		{"chain ending outside", "chain-out", ErrOutsideRoots},
		{"dangling symlink pointing outside", "dangling-out", ErrOutsideRoots},
		{"NUL byte", "src/a\x00.go", ErrInvalidPath},
		{"NUL byte absolute", "/\x00", ErrInvalidPath},
		{"parent of scratch", filepath.Dir(f.scratch), ErrOutsideRoots},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := f.roots.Resolve(tc.path)
			require.ErrorIs(t, err, tc.wantErr)
		})
	}
	t.Run("symlink loop", func(t *testing.T) {
		_, err := f.roots.Resolve("loop-a")
		require.ErrorIs(t, err, ErrInvalidPath)
		_, err = f.roots.Resolve("loop-a/below")
		require.ErrorIs(t, err, ErrInvalidPath)
	})
}

func TestClassify(t *testing.T) {
	f := newRootsFixture(t)
	tests := []struct {
		name        string
		abs         string
		wantDisplay string
		wantRoot    Kind
		wantRootDir string
	}{
		{"workspace", filepath.Join(f.ws, "src", "a.go"), "src/a.go", Workspace, f.ws},
		{"second workspace", filepath.Join(f.ws2, "b.txt"), filepath.Join(f.ws2, "b.txt"), Workspace, f.ws2},
		{"scratch", filepath.Join(f.scratch, "a.log"), filepath.Join(f.scratch, "a.log"), Scratch, f.scratch},
		{"external", filepath.Join(f.ext, "lib"), filepath.Join(f.ext, "lib"), External, f.ext},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := f.roots.Classify(tc.abs)
			require.NoError(t, err)
			require.Equal(t, tc.wantDisplay, got.Display)
			require.Equal(t, tc.wantRoot, got.Root)
			require.Equal(t, tc.wantRootDir, got.RootDir)
			require.Equal(t, tc.wantDisplay, f.roots.DisplayOf(tc.abs))
		})
	}
	t.Run("outside", func(t *testing.T) {
		_, err := f.roots.Classify(filepath.Join(f.outside, "secret.txt"))
		require.ErrorIs(t, err, ErrOutsideRoots)
	})
	t.Run("sibling with a common prefix is outside", func(t *testing.T) {
		_, err := f.roots.Classify(f.ws + "-other/x")
		require.ErrorIs(t, err, ErrOutsideRoots)
	})
}

func TestScratchInsideWorkspaceIsScratch(t *testing.T) {
	ws, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	scratch := filepath.Join(ws, ".state", "scratch", "s1")
	r, err := NewRoots([]string{ws}, scratch, nil)
	require.NoError(t, err)
	got, err := r.Resolve(filepath.Join(scratch, "x.log"))
	require.NoError(t, err)
	require.Equal(t, Scratch, got.Root)
	require.Equal(t, filepath.Join(scratch, "x.log"), got.Display)
}

func TestNewRoots(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "f")
	require.NoError(t, os.WriteFile(file, nil, 0o644))
	tests := []struct {
		name      string
		workspace []string
		external  []string
	}{
		{"no workspace", nil, nil},
		{"missing workspace", []string{filepath.Join(dir, "nope")}, nil},
		{"workspace is a file", []string{file}, nil},
		{"relative external", []string{dir}, []string{"rel/dir"}},
		{"missing external", []string{dir}, []string{filepath.Join(dir, "nope")}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := NewRoots(tc.workspace, "", tc.external)
			require.Error(t, err)
		})
	}
	t.Run("workspace through a symlink", func(t *testing.T) {
		link := filepath.Join(t.TempDir(), "ws")
		require.NoError(t, os.Symlink(dir, link))
		r, err := NewRoots([]string{link}, "", nil)
		require.NoError(t, err)
		got, err := r.Resolve(filepath.Join(link, "f"))
		require.NoError(t, err)
		require.Equal(t, "f", got.Display)
		require.Equal(t, Workspace, got.Root)
	})
}

func FuzzResolve(f *testing.F) {
	for _, s := range []string{"a", "../x", "/etc/passwd", "a/../../b", "./a/./b/", "a\x00b", "", "//", "a/b/../../.."} {
		f.Add(s)
	}
	ws := f.TempDir()
	r, err := NewRoots([]string{ws}, "", nil)
	require.NoError(f, err)
	ws = r.First()
	f.Fuzz(func(t *testing.T, p string) {
		got, err := r.Resolve(p)
		if err != nil {
			return
		}
		require.Equal(t, Workspace, got.Root)
		require.True(t, Within(ws, got.Abs), "%q resolved to %q outside %q", p, got.Abs, ws)
		require.False(t, filepath.IsAbs(got.Display))
	})
}
