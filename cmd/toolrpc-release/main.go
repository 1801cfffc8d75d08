// Command toolrpc-release builds toolrpc for every supported platform into
// reproducible archives with a SHA256SUMS file:
//
//	go run ./cmd/toolrpc-release [-version v1.2.3] [-out dist] [-targets linux/amd64,...]
//
// Each binary is built with CGO_ENABLED=0, -trimpath and -buildid= and
// stamped with the version (default: the tag on HEAD, from git describe)
// and the commit (git rev-parse HEAD). Archives (tar.gz; zip for Windows)
// hold toolrpc[.exe], LICENSE and README.md with every time set to the
// commit's time and no owner, so the same commit and Go version give the
// same bytes on any machine.
package main

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Targets are the platforms a release is built for.
var Targets = []string{"linux/amd64", "linux/arm64", "darwin/amd64", "darwin/arm64", "windows/amd64", "windows/arm64"}

func main() {
	version := flag.String("version", "", "version to stamp (default: git describe --tags --exact-match, else 0.0.0-<short commit>)")
	out := flag.String("out", "dist", "output directory")
	targets := flag.String("targets", strings.Join(Targets, ","), "comma-separated GOOS/GOARCH list")
	flag.Parse()
	if err := release(*version, *out, strings.Split(*targets, ",")); err != nil {
		fmt.Fprintln(os.Stderr, "toolrpc-release:", err)
		os.Exit(1)
	}
}

func git(args ...string) (string, error) {
	b, err := exec.Command("git", args...).Output()
	return strings.TrimSpace(string(b)), err
}

func release(version, out string, targets []string) error {
	commit, err := git("rev-parse", "HEAD")
	if err != nil {
		return fmt.Errorf("git rev-parse HEAD: %w", err)
	}
	if dirty, _ := git("status", "--porcelain", "--untracked-files=no"); dirty != "" {
		commit += "-dirty"
	}
	if version == "" {
		if version, err = git("describe", "--tags", "--exact-match"); err != nil {
			version = "0.0.0-" + commit[:12]
		}
	}
	ct, err := git("log", "-1", "--format=%ct")
	if err != nil {
		return fmt.Errorf("git log: %w", err)
	}
	secs, err := strconv.ParseInt(ct, 10, 64)
	if err != nil {
		return fmt.Errorf("commit time %q: %w", ct, err)
	}
	mtime := time.Unix(secs, 0).UTC()
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	var sums []string
	for _, t := range targets {
		name, sum, err := buildTarget(t, version, commit, out, mtime)
		if err != nil {
			return err
		}
		sums = append(sums, sum+"  "+name)
		fmt.Println(name)
	}
	sort.Strings(sums)
	return os.WriteFile(filepath.Join(out, "SHA256SUMS"), []byte(strings.Join(sums, "\n")+"\n"), 0o644)
}

// buildTarget builds one platform's binary and archive; it returns the
// archive's name and SHA-256.
func buildTarget(target, version, commit, out string, mtime time.Time) (string, string, error) {
	goos, goarch, ok := strings.Cut(target, "/")
	if !ok {
		return "", "", fmt.Errorf("target %q: want GOOS/GOARCH", target)
	}
	exe := "toolrpc"
	if goos == "windows" {
		exe += ".exe"
	}
	tmp, err := os.MkdirTemp("", "toolrpc-release-")
	if err != nil {
		return "", "", err
	}
	defer os.RemoveAll(tmp)
	binPath := filepath.Join(tmp, exe)
	ldflags := "-s -w -buildid= -X github.com/toolrpc/toolrpc/internal/cli.version=" + version + " -X github.com/toolrpc/toolrpc/internal/cli.commit=" + commit
	cmd := exec.Command("go", "build", "-trimpath", "-buildvcs=false", "-ldflags", ldflags, "-o", binPath, "./cmd/toolrpc")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS="+goos, "GOARCH="+goarch, "GOFLAGS=")
	if b, err := cmd.CombinedOutput(); err != nil {
		return "", "", fmt.Errorf("build %s: %w\n%s", target, err, b)
	}
	files := []archived{{name: exe, path: binPath, mode: 0o755}, {name: "LICENSE", path: "LICENSE", mode: 0o644}, {name: "README.md", path: "README.md", mode: 0o644}}
	base := fmt.Sprintf("toolrpc_%s_%s_%s", strings.TrimPrefix(version, "v"), goos, goarch)
	var buf bytes.Buffer
	var name string
	if goos == "windows" {
		name = base + ".zip"
		err = writeZip(&buf, base, files, mtime)
	} else {
		name = base + ".tar.gz"
		err = writeTarGz(&buf, base, files, mtime)
	}
	if err != nil {
		return "", "", fmt.Errorf("archive %s: %w", target, err)
	}
	if err := os.WriteFile(filepath.Join(out, name), buf.Bytes(), 0o644); err != nil {
		return "", "", err
	}
	sum := sha256.Sum256(buf.Bytes())
	return name, hex.EncodeToString(sum[:]), nil
}

// archived is one file of an archive.
type archived struct {
	name, path string
	mode       int64
}

func writeTarGz(w io.Writer, dir string, files []archived, mtime time.Time) error {
	gz, _ := gzip.NewWriterLevel(w, gzip.BestCompression) // no name, no mtime in the header
	tw := tar.NewWriter(gz)
	for _, f := range files {
		b, err := os.ReadFile(f.path)
		if err != nil {
			return err
		}
		hdr := &tar.Header{Name: dir + "/" + f.name, Mode: f.mode, Size: int64(len(b)), ModTime: mtime, Typeflag: tar.TypeReg, Format: tar.FormatPAX}
		if err := tw.WriteHeader(hdr); err != nil {
			return err
		}
		if _, err := tw.Write(b); err != nil {
			return err
		}
	}
	return errors.Join(tw.Close(), gz.Close())
}

func writeZip(w io.Writer, dir string, files []archived, mtime time.Time) error {
	zw := zip.NewWriter(w)
	for _, f := range files {
		b, err := os.ReadFile(f.path)
		if err != nil {
			return err
		}
		hdr := &zip.FileHeader{Name: dir + "/" + f.name, Method: zip.Deflate, Modified: mtime}
		hdr.SetMode(os.FileMode(f.mode))
		fw, err := zw.CreateHeader(hdr)
		if err != nil {
			return err
		}
		if _, err := fw.Write(b); err != nil {
			return err
		}
	}
	return zw.Close()
}
