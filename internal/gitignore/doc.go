// Package gitignore answers git's ignore question for one ignore file exactly
// as git does: an ignore file (.gitignore, .ignore, info/exclude or the
// global core.excludesFile) compiles once into a Matcher, whose Match names
// the rule that decides a path, in about constant time per path. The
// package also finds the ignore files git reads outside the tree:
// ExcludeFile (a repository's info/exclude, linked worktrees included) and
// GlobalExcludesFile (core.excludesFile from git's config files, else the
// XDG default).
//
// # What a rule matches
//
// Parse follows gitignore(5) line by line: a blank line or one starting
// with "#" is no rule; trailing spaces are dropped unless escaped with "\";
// "\" escapes a leading "#" or "!". Then, for a pattern:
//
//   - "!" negates it: a path it matches is re-included;
//   - a trailing "/" makes it match directories only;
//   - a pattern without any other "/" matches a base name at any depth below
//     the file's directory ("*.o", "node_modules");
//   - a pattern with a "/" (leading or in the middle) is matched against the
//     path relative to the file's directory ("/build", "doc/*.html");
//   - "*", "?" and "[a-z]" match within one path element; "**" matches any
//     number of elements: "**/x" (x at any depth), "x/**" (all below x) and
//     "a/**/b" (zero or more between). Wildcards follow git's wildmatch, not
//     path.Match or doublestar.
//
// # Precedence
//
// Within one file the last matching rule decides: Match returns it, and the
// path is ignored when that rule is not a negation (nil: the file says
// nothing). Match looks at the path alone, never at its parents: as in git,
// a file below an ignored directory cannot be re-included, because a walk
// stops at the ignored directory (package walk does). Between files —
// any .ignore over every .gitignore, a deeper .gitignore over a shallower
// one, any .gitignore over info/exclude over the global file — the caller
// decides; package walk's doc states the order it applies.
//
// # Example
//
//	m := gitignore.Compile(".gitignore", []byte("*.log\n!keep.log\n/build/\n"))
//	m.Match("debug.log", false)    // rule ".gitignore:1 *.log": ignored
//	m.Match("a/keep.log", false)   // rule ".gitignore:2 !keep.log": negated, kept
//	m.Match("build", true)         // rule ".gitignore:3 /build/": ignored
//	m.Match("src/build", true)     // nil: "/build/" is anchored to the top
//	m.Match("build", false)        // nil: a file, and the rule is for directories
//
// Rule.String gives a rule as file:line pattern, the form grep's and glob's
// notices name it in.
package gitignore
