package atomicfile

import (
	"io/fs"
	"os"
)

// keepOwner does nothing on Windows: a new file takes the directory's
// inherited ACL, and the owner is the creating user.
func keepOwner(*os.File, fs.FileInfo) {}
