//go:build race

package conformance

// raceEnabled makes TestMain build the server with the race detector when the
// suite itself runs under -race, so black-box tests catch server data races.
const raceEnabled = true
