// Package docs holds the documents for host authors; its tests keep every
// link and section reference of the repository pointing somewhere real.
package docs

import (
	"bytes"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"unicode"

	"github.com/stretchr/testify/require"

	"github.com/toolrpc/toolrpc/limits"
	"github.com/toolrpc/toolrpc/methods"
	"github.com/toolrpc/toolrpc/wire"
)

// repoRoot is the repository's top, relative to this package's directory.
const repoRoot = ".."

// readmeMaxBytes bounds README.md: it is a front page, the manual lives in
// docs/ (issue 22).
const readmeMaxBytes = 12 * 1024

// skipDirs are never searched for documents: other people's files and
// generated trees.
var skipDirs = map[string]bool{".git": true, "node_modules": true}

// textFile is one file of the repository that holds text.
type textFile struct {
	rel  string // slash-separated, relative to repoRoot
	data []byte
}

// repoFiles returns every text file of the repository (no NUL byte in it).
func repoFiles(t *testing.T) []textFile {
	t.Helper()
	_, err := os.Stat(filepath.Join(repoRoot, "go.mod"))
	require.NoError(t, err, "the docs tests run in docs/, below the repository's top")
	var out []textFile
	err = filepath.WalkDir(repoRoot, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if skipDirs[d.Name()] {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if bytes.IndexByte(data, 0) >= 0 {
			return nil
		}
		rel, err := filepath.Rel(repoRoot, p)
		if err != nil {
			return err
		}
		out = append(out, textFile{rel: filepath.ToSlash(rel), data: data})
		return nil
	})
	require.NoError(t, err)
	return out
}

// sectionRef is a "§N" or "§N.M" reference anywhere in the repository.
var sectionRef = regexp.MustCompile(`§(\d+(?:\.\d+)*)`)

// sectionHeading is a heading of docs/protocol.md that defines a section.
var sectionHeading = regexp.MustCompile(`(?m)^#{2,4} §(\d+(?:\.\d+)*)\s`)

// protocolSections returns the sections docs/protocol.md defines.
func protocolSections(t *testing.T) map[string]bool {
	t.Helper()
	data, err := os.ReadFile("protocol.md")
	require.NoError(t, err)
	secs := map[string]bool{}
	for _, m := range sectionHeading.FindAllSubmatch(data, -1) {
		secs[string(m[1])] = true
	}
	return secs
}

// TestProtocolKeepsSectionNumbers checks that docs/protocol.md defines §1–§13,
// the numbers the code, the tests and the issues refer to.
func TestProtocolKeepsSectionNumbers(t *testing.T) {
	secs := protocolSections(t)
	for _, want := range []string{"1", "2", "3", "4", "4.1", "5", "6", "6.1", "6.2", "6.3", "6.4", "6.5", "6.6",
		"7", "8", "9", "10", "11", "12", "13", "13.1", "13.2", "13.3", "13.4"} {
		require.True(t, secs[want], "docs/protocol.md has no heading for §%s", want)
	}
}

// TestSectionReferencesResolve checks that every §N in the repository (the
// `SPEC §N` comments of the code, the tests, the documents) names a section
// docs/protocol.md defines.
func TestSectionReferencesResolve(t *testing.T) {
	secs := protocolSections(t)
	var bad []string
	for _, f := range repoFiles(t) {
		for i, line := range bytes.Split(f.data, []byte("\n")) {
			for _, m := range sectionRef.FindAllSubmatch(line, -1) {
				if !secs[string(m[1])] {
					bad = append(bad, f.rel+":"+strconv.Itoa(i+1)+": §"+string(m[1]))
				}
			}
		}
	}
	require.Empty(t, strings.Join(bad, "\n"), "section references that docs/protocol.md does not define")
}

// outsideContract finds mentions of the files that lived outside the
// repository before docs/protocol.md: the contract, its style guide and the
// design note it came from. A relative link that leaves the repository is
// the links test's to catch.
var outsideContract = regexp.MustCompile(`SPEC\.md|STYLE\.md|seed-16-tool-result-limits`)

// TestNoContractOutsideRepo checks that nothing points at the contract's
// old place outside the repository: SPEC means docs/protocol.md.
func TestNoContractOutsideRepo(t *testing.T) {
	var bad []string
	for _, f := range repoFiles(t) {
		if f.rel == "docs/docs_test.go" {
			continue
		}
		for i, line := range bytes.Split(f.data, []byte("\n")) {
			if outsideContract.Match(line) {
				bad = append(bad, f.rel+":"+strconv.Itoa(i+1)+": "+strings.TrimSpace(string(line)))
			}
		}
	}
	require.Empty(t, strings.Join(bad, "\n"), "SPEC is docs/protocol.md; the files it replaced are outside the repository")
}

// mdLink is an inline Markdown link or image target: [text](target) or
// [text](target "title").
var mdLink = regexp.MustCompile(`\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)`)

// mdRefLink is a reference-style link definition: [label]: target.
var mdRefLink = regexp.MustCompile(`(?m)^\s{0,3}\[[^\]]+\]:\s+<?(\S+?)>?(?:\s|$)`)

// fence opens or closes a fenced code block.
var fence = regexp.MustCompile("^\\s{0,3}(```|~~~)")

// markdownLinks returns the link targets of a Markdown document, outside
// fenced code blocks and code spans.
func markdownLinks(data []byte) []string {
	var out []string
	inFence := false
	for _, line := range strings.Split(string(data), "\n") {
		if fence.MatchString(line) {
			inFence = !inFence
			continue
		}
		if inFence {
			continue
		}
		line = stripCodeSpans(line)
		for _, m := range mdLink.FindAllStringSubmatch(line, -1) {
			out = append(out, m[1])
		}
		for _, m := range mdRefLink.FindAllStringSubmatch(line, -1) {
			out = append(out, m[1])
		}
	}
	return out
}

// stripCodeSpans removes `code spans` from a line.
func stripCodeSpans(line string) string {
	var b strings.Builder
	in := false
	for _, part := range strings.Split(line, "`") {
		if !in {
			b.WriteString(part)
		}
		in = !in
	}
	return b.String()
}

// heading is an ATX heading of a Markdown document.
var heading = regexp.MustCompile(`^#{1,6}\s+(.*?)\s*#*\s*$`)

// anchors returns the anchors GitHub generates for a Markdown document's
// headings: lower case, punctuation dropped, spaces as hyphens, "-N" for
// repeats.
func anchors(data []byte) map[string]bool {
	out := map[string]bool{}
	seen := map[string]int{}
	inFence := false
	for _, line := range strings.Split(string(data), "\n") {
		if fence.MatchString(line) {
			inFence = !inFence
			continue
		}
		m := heading.FindStringSubmatch(line)
		if inFence || m == nil {
			continue
		}
		var b strings.Builder
		for _, r := range strings.ToLower(m[1]) {
			switch {
			case unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-' || r == '_':
				b.WriteRune(r)
			case r == ' ':
				b.WriteByte('-')
			}
		}
		a := b.String()
		if n := seen[a]; n > 0 {
			out[a+"-"+strconv.Itoa(n)] = true
		} else {
			out[a] = true
		}
		seen[a]++
	}
	return out
}

// publicURL reports whether a link target leaves the repository for a public
// address, which the links test does not fetch.
func publicURL(target string) bool {
	for _, p := range []string{"https://", "http://", "mailto:"} {
		if strings.HasPrefix(target, p) {
			return true
		}
	}
	return false
}

// TestMarkdownLinksStayInRepo checks every link of every Markdown document:
// a public URL, or a path inside the repository that exists, and, for a
// fragment into a Markdown file, a heading of that file.
func TestMarkdownLinksStayInRepo(t *testing.T) {
	files := repoFiles(t)
	byRel := map[string][]byte{}
	for _, f := range files {
		byRel[f.rel] = f.data
	}
	var bad []string
	for _, f := range files {
		if !strings.HasSuffix(f.rel, ".md") {
			continue
		}
		for _, target := range markdownLinks(f.data) {
			if publicURL(target) {
				continue
			}
			if problem := checkLink(f.rel, target, byRel); problem != "" {
				bad = append(bad, f.rel+": ("+target+") "+problem)
			}
		}
	}
	sort.Strings(bad)
	require.Empty(t, strings.Join(bad, "\n"), "links that leave the repository or point at nothing")
}

// checkLink returns what is wrong with a relative link target of the
// document from (slash-separated, relative to repoRoot), or "".
func checkLink(from, target string, byRel map[string][]byte) string {
	path, frag, _ := strings.Cut(target, "#")
	if strings.Contains(path, ":") {
		return "not a public URL nor a repository path"
	}
	rel := from
	if path != "" {
		joined := filepath.ToSlash(filepath.Join(filepath.Dir(from), path))
		if joined == ".." || strings.HasPrefix(joined, "../") {
			return "leaves the repository"
		}
		rel = joined
		if _, err := os.Stat(filepath.Join(repoRoot, filepath.FromSlash(rel))); err != nil {
			return "no such file or directory"
		}
	}
	if frag == "" || !strings.HasSuffix(rel, ".md") {
		return ""
	}
	if !anchors(byRel[rel])[frag] {
		return "no heading #" + frag + " in " + rel
	}
	return ""
}

// TestAnchors pins the heading-to-anchor rule the links test relies on.
func TestAnchors(t *testing.T) {
	got := anchors([]byte("## §8 Edit source set, tools/edit and tools/write\n" +
		"## §9 Checkpoint truncation (`context/compact`, `context/load`)\n" +
		"```\n# not a heading\n```\n### Ignore rules\n### Ignore rules\n"))
	require.Equal(t, map[string]bool{
		"8-edit-source-set-toolsedit-and-toolswrite":         true,
		"9-checkpoint-truncation-contextcompact-contextload": true,
		"ignore-rules":   true,
		"ignore-rules-1": true,
	}, got)
}

// TestLinkCheckCatches shows the links test failing on each kind of bad
// link it is there to catch.
func TestLinkCheckCatches(t *testing.T) {
	byRel := map[string][]byte{"docs/protocol.md": []byte("## §1 Transport\n")}
	for target, want := range map[string]string{
		"../../outside/SPEC.md":       "leaves the repository",
		"../nothing-here.md":          "no such file or directory",
		"protocol.md#no-such-heading": "no heading #no-such-heading in docs/protocol.md",
		"file:///etc/passwd":          "not a public URL nor a repository path",
		"protocol.md#1-transport":     "",
		"../walk/doc.go":              "",
		"#1-transport":                "no heading #1-transport in docs/mcp-hosts.md",
	} {
		from := "docs/protocol.md"
		if strings.HasPrefix(target, "#") {
			from = "docs/mcp-hosts.md"
		}
		require.Equal(t, want, checkLink(from, target, byRel), target)
	}
	require.Equal(t, []string{"a.md", "b.md"}, markdownLinks([]byte("[a](a.md) `[x](skip.md)`\n```\n[c](c.md)\n```\n[b]: b.md\n")))
}

// readmeCallPath is a path a README example call names.
var readmeCallPath = regexp.MustCompile(`"path":\s*"([^"]+)"`)

// TestReadmeIsAFrontPage checks README.md's size and that the files its
// example calls name exist in a fresh clone.
func TestReadmeIsAFrontPage(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(repoRoot, "README.md"))
	require.NoError(t, err)
	require.LessOrEqual(t, len(data), readmeMaxBytes, "README.md is a front page; move the manual to docs/")
	for _, m := range readmeCallPath.FindAllSubmatch(data, -1) {
		_, err := os.Stat(filepath.Join(repoRoot, filepath.FromSlash(string(m[1]))))
		require.NoError(t, err, "README.md's example names %s, which a fresh clone lacks", m[1])
	}
}

// TestProtocolNamesEveryMethodAndLimit checks that docs/protocol.md names
// every method the server serves, every limit initialize reports and every
// §10 data.code, so a new one cannot ship undocumented.
func TestProtocolNamesEveryMethodAndLimit(t *testing.T) {
	data, err := os.ReadFile("protocol.md")
	require.NoError(t, err)
	doc := string(data)
	var missing []string
	for _, m := range methods.All() {
		if !strings.Contains(doc, "`"+m.Name+"`") {
			missing = append(missing, "method "+m.Name)
		}
	}
	for name := range limits.Table() {
		if !strings.Contains(doc, "`"+name+"`") {
			missing = append(missing, "limit "+name)
		}
	}
	for _, kind := range wire.Kinds() {
		if !strings.Contains(doc, "`"+kind+"`") {
			missing = append(missing, "data.code "+kind)
		}
	}
	sort.Strings(missing)
	require.Empty(t, strings.Join(missing, "\n"), "docs/protocol.md does not name these")
}

// TestContributingCoversEveryTool checks SPEC §1 (tools/list): every tool
// the method table lists has the places docs/contributing.md marks checked
// — a Go client method, a TypeScript client call, and the conformance MCP
// maps — and every repository path contributing.md names exists.
func TestContributingCoversEveryTool(t *testing.T) {
	read := func(paths ...string) string {
		var b strings.Builder
		for _, p := range paths {
			data, err := os.ReadFile(filepath.Join(repoRoot, p))
			require.NoError(t, err)
			b.Write(data)
		}
		return b.String()
	}
	places := map[string]string{
		"client/":                 read("client/tools.go", "client/process.go"),
		"clients/typescript/":     read("clients/typescript/src/client.ts"),
		"conformance/mcp_test.go": read("conformance/mcp_test.go"),
	}
	var missing []string
	for _, m := range methods.All() {
		if !m.Tool || m.Family != "" { // a dialect tool takes the model's input as is (§16): no typed client call
			continue
		}
		mcp := strings.ReplaceAll(strings.TrimPrefix(m.Name, "tools/"), "/", "_")
		for place, text := range places {
			want := `"` + m.Name + `"`
			if place == "clients/typescript/" {
				want = "'" + m.Name + "'"
			}
			if place == "conformance/mcp_test.go" {
				want = `"` + mcp + `": "` + m.Name + `"`
			}
			if !strings.Contains(text, want) {
				missing = append(missing, m.Name+" in "+place)
			}
		}
	}
	doc := read("docs/contributing.md")
	for _, p := range regexp.MustCompile("`((?:[a-z]+/)+[A-Za-z_.]*)`").FindAllStringSubmatch(doc, -1) {
		if strings.Contains(p[1], "<") || strings.HasPrefix(p[1], "/") {
			continue
		}
		if _, err := os.Stat(filepath.Join(repoRoot, p[1])); err != nil {
			missing = append(missing, "path "+p[1]+" named by contributing.md")
		}
	}
	sort.Strings(missing)
	require.Empty(t, strings.Join(missing, "\n"), "a tool misses these places (docs/contributing.md)")
}

// TestPublicPackages pins the top level: what a host may import (the client,
// the wire types, the frame codec, the conformance suite), the packages the
// design card names at the top (rpc, methods, limits, walk, procgroup, spill:
// toolrpc's own API, documented as such), plus this package and the commands.
// Everything else is plumbing under internal/, so a new package lands there
// unless it is added here on purpose.
func TestPublicPackages(t *testing.T) {
	out, err := exec.Command("go", "list", "github.com/toolrpc/toolrpc/...").Output()
	require.NoError(t, err)
	public := map[string]bool{"client": true, "wire": true, "lspframe": true, "conformance": true, "docs": true,
		"rpc": true, "methods": true, "limits": true, "walk": true, "procgroup": true, "spill": true}
	for _, pkg := range strings.Fields(string(out)) {
		rel := strings.TrimPrefix(strings.TrimPrefix(pkg, "github.com/toolrpc/toolrpc"), "/")
		if rel == "" || public[rel] || strings.HasPrefix(rel, "internal/") || strings.HasPrefix(rel, "cmd/") {
			continue
		}
		t.Errorf("package %s is public: move it under internal/, or add it to the public list with the reason a host imports it", rel)
	}
}
