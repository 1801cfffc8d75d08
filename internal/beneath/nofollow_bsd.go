//go:build unix && !linux && !darwin

package beneath

// noFollowAny: only the last component is checked here (O_NOFOLLOW).
const noFollowAny = 0
