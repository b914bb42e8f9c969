package lattice

import "testing"

// TestPathDomain: witnesses are drawn from normalised relative paths, so
// that the path a reviewer reads is the one the rule matched (Matches
// cleans a path first).
func TestPathDomain(t *testing.T) {
	for s, want := range map[string]bool{
		"x": true, "x/y": true, ".x": true, "..x": true, "...": true, "x./y": true, "a/.b/c": true, ".env": true,
		".": false, "..": false, "./x": false, "x/.": false, "x/../y": false, "x//y": false, "": false, "/x": false, "x/": false, "a/./b": false,
	} {
		if got := pathDomain.run(s); got != want {
			t.Errorf("pathDomain accepts %q: %v, want %v", s, got, want)
		}
	}
}
