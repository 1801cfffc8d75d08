package limits

// GlobMaxBraceGroups bounds the {a,b} groups of one glob pattern (Glob's
// pattern, Grep's glob): matching alternations that contain wildcards backtracks
// exponentially in their number, so one pattern could pin a core forever.
const GlobMaxBraceGroups = 8
