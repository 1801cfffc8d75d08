//go:build !race

package shellsession

// raceBuilt is true in a -race build.
const raceBuilt = false
