package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/toolrpc/toolrpc/internal/textenc"
)

// The SPEC §4.1 rows: a UTF-16LE file read cold against the UTF-8 big
// file, and grep over a tree with 5 % windows-1252 files against the same
// tree all UTF-8.
func encodingScenarios() []scenario {
	return []scenario{
		{name: "read last page of a 1 GB UTF-16LE file, cold (SPEC §4.1)", driven: drivenFreshPerCall, unit: "ms", goal: goal{kind: ratioAtMost, limit: 2.0},
			peer: "the UTF-8 big file's", run: readWideCold},
		{name: "grep count over a tree with 5 % windows-1252 files (SPEC §4.1)", driven: drivenLongLived, unit: "ms", goal: goal{kind: ratioAtMost, limit: 1.1},
			peer: "the same tree all UTF-8", run: grepLegacyTree},
	}
}

// prepareWideFile writes the lines of the UTF-8 big file, as many as fit
// in bf.Bytes bytes of UTF-16LE, after a BOM (an ASCII file: two bytes a
// character).
func prepareWideFile(cache string, bf bigFile, log io.Writer) (bigFile, error) {
	dir := filepath.Join(cache, fmt.Sprintf("big16-%d", bf.Bytes))
	stamp := dir + ".json"
	var wf bigFile
	if b, err := os.ReadFile(stamp); err == nil && json.Unmarshal(b, &wf) == nil && wf.Version == corpusVersion {
		if fi, err := os.Stat(filepath.Join(dir, wf.Name)); err == nil && fi.Size() == wf.Bytes {
			wf.Dir = dir
			return wf, nil
		}
	}
	fmt.Fprintf(log, "generating %s…\n", dir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return wf, err
	}
	wf = bigFile{Dir: dir, Name: "big16.txt", Version: corpusVersion}
	in, err := os.Open(filepath.Join(bf.Dir, bf.Name))
	if err != nil {
		return wf, err
	}
	defer in.Close()
	p := filepath.Join(dir, wf.Name)
	f, err := os.Create(p)
	if err != nil {
		return wf, err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	w.Write(textenc.UTF16LE.BOM())
	wf.Bytes = 2
	br := bufio.NewReaderSize(in, 1<<20)
	unit := make([]byte, 0, 256)
	for {
		line, err := br.ReadSlice('\n')
		if len(line) == 0 || err != nil || wf.Bytes+2*int64(len(line)) > bf.Bytes {
			break
		}
		unit = unit[:0]
		for _, c := range line {
			unit = append(unit, c, 0)
		}
		w.Write(unit)
		wf.Bytes += int64(len(unit))
		wf.Lines++
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return wf, err
	}
	if err := f.Close(); err != nil {
		return wf, err
	}
	old := time.Now().Add(-time.Hour)
	if err := os.Chtimes(p, old, old); err != nil {
		return wf, err
	}
	b, _ := json.Marshal(wf)
	return wf, os.WriteFile(stamp, b, 0o644)
}

func readWideCold(b *bench, r *Row) error {
	bf, err := b.bigFile()
	if err != nil {
		return err
	}
	wf, err := prepareWideFile(b.cfg.cache, bf, b.log)
	if err != nil {
		return err
	}
	var wres, ures json.RawMessage
	cold := func(f bigFile, res *json.RawMessage) func() (time.Duration, error) {
		return func() (time.Duration, error) {
			s, err := b.fresh(f.Dir)
			if err != nil {
				return 0, err
			}
			var d time.Duration
			*res, d, err = s.call("tools/read", readParams(f))
			if cerr := s.close(); err == nil {
				err = cerr
			}
			return d, err
		}
	}
	as, ps, err := interleave(b.cfg.runs, cold(wf, &wres), cold(bf, &ures))
	if err != nil {
		return err
	}
	setFigures(r, as, ps)
	if err := checkRead(wres, wf); err != nil {
		return err
	}
	if err := checkRead(ures, bf); err != nil {
		return err
	}
	var g struct {
		Encoding string `json:"encoding"`
	}
	if json.Unmarshal(wres, &g); g.Encoding != "utf-16le" {
		return fmt.Errorf("read %s: encoding %q, want utf-16le", wf.Name, g.Encoding)
	}
	r.Note = fmt.Sprintf("UTF-16LE %d MB, %d lines; UTF-8 %d MB, %d lines", wf.Bytes/1000000, wf.Lines, bf.Bytes/1000000, bf.Lines)
	return nil
}

// legacyTrees are two trees of the same text: all UTF-8, and with every
// twentieth file in windows-1252.
type legacyTrees struct {
	UTF8, Legacy string `json:"-"`
	Files        int    `json:"files"`
	Version      int    `json:"version"`
}

const (
	legacyFiles   = 4000
	legacyPattern = `\pL+é\pL*` // no literal of three bytes: no index narrows it
)

var legacyWords = []string{"café", "crème", "été", "déjà", "voilà", "naïve", "plain", "text", "line", "mot", "le", "la", "des", "and", "the", "über", "Größe"}

func prepareLegacyTrees(cache string, log io.Writer) (legacyTrees, error) {
	base := filepath.Join(cache, "legacy")
	stamp := base + ".json"
	lt := legacyTrees{UTF8: filepath.Join(base, "utf8"), Legacy: filepath.Join(base, "legacy")}
	var got legacyTrees
	if b, err := os.ReadFile(stamp); err == nil && json.Unmarshal(b, &got) == nil && got.Version == corpusVersion && got.Files == legacyFiles {
		return lt, nil
	}
	fmt.Fprintf(log, "generating %s…\n", base)
	if err := os.RemoveAll(base); err != nil {
		return lt, err
	}
	x := uint64(26)
	old := time.Now().Add(-time.Hour)
	for i := range legacyFiles {
		var text []byte
		for l := 0; l < 60; l++ {
			for w := 0; w < 10; w++ {
				x ^= x << 13
				x ^= x >> 7
				x ^= x << 17
				text = append(text, legacyWords[x%uint64(len(legacyWords))]...)
				text = append(text, ' ')
			}
			text = append(text, '\n')
		}
		rel := fmt.Sprintf("d%02d/f%04d.txt", i%40, i)
		for _, tree := range []string{lt.UTF8, lt.Legacy} {
			data := text
			if tree == lt.Legacy && i%20 == 0 {
				var err error
				if data, err = textenc.Windows1252.Encode(string(text)); err != nil {
					return lt, err
				}
			}
			p := filepath.Join(tree, rel)
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				return lt, err
			}
			if err := os.WriteFile(p, data, 0o644); err != nil {
				return lt, err
			}
			if err := os.Chtimes(p, old, old); err != nil {
				return lt, err
			}
		}
	}
	lt.Files, lt.Version = legacyFiles, corpusVersion
	b, _ := json.Marshal(lt)
	return lt, os.WriteFile(stamp, b, 0o644)
}

func grepLegacyTree(b *bench, r *Row) error {
	lt, err := prepareLegacyTrees(b.cfg.cache, b.log)
	if err != nil {
		return err
	}
	params := map[string]any{"pattern": legacyPattern, "outputMode": "count", "headLimit": wideHeadLimit}
	var lres, ures json.RawMessage
	warm := func(root string, res *json.RawMessage) func() (time.Duration, error) {
		return func() (time.Duration, error) {
			s, err := b.longLived(root)
			if err != nil {
				return 0, err
			}
			var d time.Duration
			*res, d, err = s.call("tools/grep", params)
			return d, err
		}
	}
	as, ps, err := interleave(b.cfg.runs, warm(lt.Legacy, &lres), warm(lt.UTF8, &ures))
	if err != nil {
		return err
	}
	setFigures(r, as, ps)
	var lc, uc struct {
		Count int `json:"count"`
	}
	if json.Unmarshal(lres, &lc) != nil || json.Unmarshal(ures, &uc) != nil || lc.Count != uc.Count || lc.Count == 0 {
		return fmt.Errorf("grep %s: %d matching lines in the legacy tree, %d in the UTF-8 tree; want equal, not 0", legacyPattern, lc.Count, uc.Count)
	}
	r.Note = fmt.Sprintf("%d files of 60 lines, 1 in 20 windows-1252; %d matching lines in each", legacyFiles, lc.Count)
	return nil
}
