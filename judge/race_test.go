//go:build race

package judge

// raceEnabled is set when the tests run under the race detector.
const raceEnabled = true
