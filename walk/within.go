package walk

import "github.com/toolrpc/toolrpc/roots"

// within reports whether p is dir or below it (roots.Within); both must be
// clean and absolute.
func within(dir, p string) bool { return roots.Within(dir, p) }
