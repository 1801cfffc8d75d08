//go:build race

package shellsession

// raceBuilt is true in a -race build, where the differential test runs
// fewer sequences: the race detector checks the same code paths with 50.
const raceBuilt = true
