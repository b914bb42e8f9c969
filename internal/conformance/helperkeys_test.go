package conformance

import (
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/shipgate-app/shipgate/agentfiles/claude"
)

// binaryHelperList is the pinned binary's list of the settings that hold a
// command it runs itself (the keys it reports a session's shell settings
// from): a JavaScript array of quoted names that holds apiKeyHelper and
// subagentStatusLine.
var binaryHelperList = regexp.MustCompile(`\[("[A-Za-z]+",)*"[A-Za-z]+"\]`)

// TestHelperKeysInBinary holds claude.HelperKeys to the binary: every key
// the binary lists as one whose command it runs must be one Shipgate
// compares as a command helper (a new proxyAuthHelper passed as "no
// permission changes" before this test). A new version's new helper fails
// here as a row.
func TestHelperKeysInBinary(t *testing.T) {
	_, data := pinnedBinaryBytes(t)
	var found [][]string
	for _, m := range binaryHelperList.FindAll(data, -1) {
		s := string(m)
		if !strings.Contains(s, `"apiKeyHelper"`) || !strings.Contains(s, `"subagentStatusLine"`) {
			continue
		}
		found = append(found, strings.Split(strings.NewReplacer(`"`, "", "[", "", "]", "").Replace(s), ","))
	}
	if len(found) == 0 {
		t.Fatalf("Claude Code %s has no list of helper settings holding apiKeyHelper and subagentStatusLine: find where it now lists them", ClaudeCodeVersion)
	}
	for _, list := range found {
		for _, k := range list {
			if !slices.Contains(claude.HelperKeys, k) {
				t.Errorf("Claude Code %s runs the command in setting %q (its list %v), which claude.HelperKeys does not compare", ClaudeCodeVersion, k, list)
			}
		}
	}
}
