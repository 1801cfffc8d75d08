//go:build !race

package conformance

// raceEnabled is false: the server is built without the race detector.
const raceEnabled = false
