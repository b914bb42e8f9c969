//go:build unix

package gitrepo

import (
	"os"
	"runtime"
	"syscall"
)

// maxRSSKB returns the peak resident set of a finished process in KiB: the
// larger of the process's own and that of its largest waited-for child.
func maxRSSKB(ps *os.ProcessState) int64 {
	ru, ok := ps.SysUsage().(*syscall.Rusage)
	if !ok {
		return -1
	}
	if runtime.GOOS == "darwin" || runtime.GOOS == "ios" {
		return int64(ru.Maxrss) / 1024 // bytes there
	}
	return int64(ru.Maxrss)
}
