//go:build !race

package diff

// raceEnabled is set when the tests run under the race detector.
const raceEnabled = false
