package limits

// Limits of the model dialects (SPEC §16).
const (
	// DialectMaxFileBytes bounds a file a dialect edit reads whole
	// (str_replace, insert, apply_patch, Gemini's replace): larger files are
	// refused, pointing at tools/edit, which streams.
	DialectMaxFileBytes = 16 * MiB
	// DialectClosestLines bounds the file lines a failed match shows as the
	// closest to what was asked for.
	DialectClosestLines = 6
	// DialectListedMatches bounds the line numbers listed for a text that
	// matches several times.
	DialectListedMatches = 20
)
