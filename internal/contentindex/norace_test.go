//go:build !race

package contentindex

// raceBuilt: the tests run under the race detector.
const raceBuilt = false
