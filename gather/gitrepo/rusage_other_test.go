//go:build !unix

package gitrepo

import "os"

// maxRSSKB is unknown on this platform.
func maxRSSKB(*os.ProcessState) int64 { return -1 }
