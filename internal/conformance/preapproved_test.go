package conformance

import (
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/shipgate-app/shipgate/lattice"
)

// TestPreapprovedHostsInBinary holds lattice's preapproved WebFetch hosts
// to the pinned binary's own list (a Set of hosts and host/path prefixes
// that holds modelcontextprotocol.io): every entry without a path must be
// in lattice's table and every host of the table in the list, so a new
// Claude Code version shows its changes as failing rows.
func TestPreapprovedHostsInBinary(t *testing.T) {
	bin, data := pinnedBinaryBytes(t)
	var list []string
	for _, m := range regexp.MustCompile(`new Set\(\[("[^"\]]*"(?:,"[^"\]]*")*)\]\)`).FindAllSubmatch(data, -1) {
		s := string(m[1])
		if !strings.Contains(s, `"modelcontextprotocol.io"`) || !strings.Contains(s, `"docs.python.org"`) {
			continue
		}
		for _, e := range strings.Split(s, ",") {
			if e = strings.Trim(e, `"`); !strings.Contains(e, "/") && !slices.Contains(list, e) {
				list = append(list, e)
			}
		}
		break
	}
	if len(list) < 20 {
		t.Fatalf("the preapproved host list was not found in %s (%d hosts): find how Claude Code %s preapproves WebFetch hosts", bin, len(list), ClaudeCodeVersion)
	}
	have := lattice.PreapprovedHosts()
	for _, h := range list {
		if !slices.Contains(have, h) {
			t.Errorf("Claude Code %s preapproves %s; lattice.preapprovedHosts lacks it", ClaudeCodeVersion, h)
		}
	}
	for _, h := range have {
		if !slices.Contains(list, h) {
			t.Errorf("lattice.preapprovedHosts holds %s, which Claude Code %s does not preapprove", h, ClaudeCodeVersion)
		}
	}
}
