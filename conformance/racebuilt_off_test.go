//go:build !race

package conformance

// raceBuilt is false: the suite (and so the server it runs) is built without
// the race detector, whose shadow memory would inflate memory figures.
const raceBuilt = false
