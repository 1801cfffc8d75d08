package gitignore

import (
	"os"
	"path/filepath"
	"strings"
)

// ExcludeFile returns the info/exclude file of the repository whose work
// tree is dir, or "" when dir holds no .git. A .git directory is the git
// dir; a .git file ("gitdir: PATH", as linked worktrees and
// --separate-git-dir repositories have) points to it. A git dir holding
// "commondir" (a linked worktree's) shares that directory's info/exclude.
func ExcludeFile(dir string) string {
	gitDir := filepath.Join(dir, ".git")
	fi, err := os.Stat(gitDir)
	switch {
	case err != nil:
		return ""
	case fi.Mode().IsRegular():
		data, err := os.ReadFile(gitDir)
		if err != nil {
			return ""
		}
		line, _, _ := strings.Cut(string(data), "\n")
		target, ok := strings.CutPrefix(strings.TrimRight(line, "\r"), "gitdir: ")
		if !ok || target == "" {
			return ""
		}
		if !filepath.IsAbs(target) {
			target = filepath.Join(dir, target)
		}
		gitDir = target
	case !fi.IsDir():
		return ""
	}
	if data, err := os.ReadFile(filepath.Join(gitDir, "commondir")); err == nil {
		common := strings.TrimRight(string(data), "\r\n")
		if !filepath.IsAbs(common) {
			common = filepath.Join(gitDir, common)
		}
		gitDir = common
	}
	return filepath.Join(gitDir, "info", "exclude")
}

// GlobalExcludesFile returns the path of the user's global excludes file
// as git finds it, without running git: the last core.excludesFile of the
// system config ($GIT_CONFIG_SYSTEM, else /etc/gitconfig; skipped when
// $GIT_CONFIG_NOSYSTEM is set) and the global ones ($GIT_CONFIG_GLOBAL, else
// $XDG_CONFIG_HOME/git/config (~/.config/git/config) then ~/.gitconfig),
// "~/" expanded; when none sets it, $XDG_CONFIG_HOME/git/ignore, else
// ~/.config/git/ignore. A repository's own config and include directives are
// not read. A relative result is relative to the work tree's top, as in git.
// getenv is os.Getenv in production.
func GlobalExcludesFile(getenv func(string) string) string {
	home := getenv("HOME")
	xdg := getenv("XDG_CONFIG_HOME")
	if xdg == "" && home != "" {
		xdg = filepath.Join(home, ".config")
	}
	var files []string
	if getenv("GIT_CONFIG_NOSYSTEM") == "" {
		if sys := getenv("GIT_CONFIG_SYSTEM"); sys != "" {
			files = append(files, sys)
		} else {
			files = append(files, "/etc/gitconfig")
		}
	}
	if g := getenv("GIT_CONFIG_GLOBAL"); g != "" {
		files = append(files, g)
	} else {
		if xdg != "" {
			files = append(files, filepath.Join(xdg, "git", "config"))
		}
		if home != "" {
			files = append(files, filepath.Join(home, ".gitconfig"))
		}
	}
	value, set := "", false
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		if v, ok := ConfigValue(data, "core", "excludesfile"); ok {
			value, set = v, true
		}
	}
	if !set {
		if xdg == "" {
			return ""
		}
		return filepath.Join(xdg, "git", "ignore")
	}
	if rest, ok := strings.CutPrefix(value, "~/"); ok && home != "" {
		return filepath.Join(home, rest)
	}
	return value
}
