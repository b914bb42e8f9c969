package app

import (
	"time"

	"github.com/shipgate-app/shipgate/gather"
)

// ttlEntry is a cached value read at a moving ref (the org default policy
// on the default branch of the org's .github repository).
type ttlEntry struct {
	v  gather.OrgPolicy
	at time.Time
}

// isSHA reports whether a ref is a full commit SHA (immutable content).
func isSHA(ref string) bool {
	if len(ref) != 40 {
		return false
	}
	for _, c := range ref {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

func shortSHA(s string) string {
	if len(s) > 8 && isSHA(s) {
		return s[:8]
	}
	return s
}
