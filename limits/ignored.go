package limits

// IgnoredCountEntries bounds the directory entries a grep or glob reads
// below ignored directories to count, for its notice, the files the ignore
// rules excluded (SPEC §5); past it the notice says "at least".
const IgnoredCountEntries = 2000
