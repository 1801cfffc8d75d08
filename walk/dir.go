package walk

import "io/fs"

// Entry types a directory listing reports (the platform's d_type, mapped).
const (
	typeUnknown uint8 = iota // the listing did not say: stat the entry
	typeDir
	typeReg
	typeOther // symlink, FIFO, socket, device: never entered or opened
)

// fileStat is what the walk needs of an entry's lstat.
type fileStat struct {
	typ   uint8
	mtime int64 // Unix nanoseconds
	size  int64
}

// A dirHandle (one per platform: dir_linux.go lists with getdents,
// dir_unix.go with readdir, dir_windows.go with FindFirstFile through
// os.ReadDir) is one open directory. openDir never follows a symlink at abs;
// list appends the entries ("." and ".." left out) to ents, using buf where
// the platform reads raw records; stat never follows a symlink at name;
// open opens a regular file for reading through the directory and stats
// it through its descriptor (Unix; elsewhere it opens nothing).

// appendEntries appends des to ents, with their types mapped.
func appendEntries(ents []dirent, des []fs.DirEntry) []dirent {
	for _, de := range des {
		typ := typeOther
		switch t := de.Type(); {
		case t.IsDir():
			typ = typeDir
		case t.IsRegular():
			typ = typeReg
		}
		ents = append(ents, dirent{name: de.Name(), typ: typ})
	}
	return ents
}
