//go:build !linux

package diff

import "time"

// cpuTime is not measured off Linux: the benchmarks report 0.
func cpuTime() time.Duration { return 0 }
