package conformance

import (
	"bufio"
	"io"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/shipgate-app/shipgate/rating"
)

// setLiteral is a JavaScript Set of lowercase words as the binary's
// bundled code writes it: new Set(["a","b",…]).
var setLiteral = regexp.MustCompile(`new Set\(\[("[a-z]+"(?:,"[a-z]+")*)\]\)`)

// execWrapperSets are the word sets in the binary's code that hold the
// exec wrappers: those naming timeout and nohup and no shell.
func execWrapperSets(t *testing.T, bin string) [][]string {
	f, err := os.Open(bin)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	const chunk, overlap = 8 << 20, 4 << 10
	r := bufio.NewReaderSize(f, chunk)
	buf := make([]byte, 0, chunk+overlap)
	seen := map[string]bool{}
	var out [][]string
	for {
		n, err := io.ReadFull(r, buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		for _, m := range setLiteral.FindAllSubmatch(buf, -1) {
			words := strings.Split(strings.ReplaceAll(string(m[1]), `"`, ""), ",")
			key := strings.Join(words, ",")
			if seen[key] || !slices.Contains(words, "timeout") || !slices.Contains(words, "nohup") || slices.Contains(words, "sh") {
				continue
			}
			seen[key] = true
			out = append(out, words)
		}
		if err != nil {
			break
		}
		keep := buf[len(buf)-min(overlap, len(buf)):]
		buf = append(buf[:0], keep...)
	}
	return out
}

// TestExecWrappersFromBinary holds rating.ExecWrappers — the wrappers the
// exec tier rates like the launchers, because what follows them is a
// command they run — to the pinned Claude Code binary's own set of such
// wrappers (the bundled code's new Set(["time","command","builtin",
// "noglob","env","nice","nohup","sudo","doas","stdbuf","timeout"]) in
// 2.1.328). A new Claude Code version that adds or drops one fails here
// with the sets it has, not silently.
func TestExecWrappersFromBinary(t *testing.T) {
	bin := ClaudeForTest(t)
	if testing.Short() {
		t.Skip("reads the 370 MB binary; not in -short")
	}
	// The bundle holds several such sets (the permission checker's, the
	// read-only classifier's, the sandbox's); the exec wrappers are the one
	// that names exactly the commands that run their operand as a command.
	sets := execWrapperSets(t, bin)
	want := slices.Sorted(slices.Values(rating.ExecWrappers))
	found := false
	for _, s := range sets {
		found = found || slices.Equal(slices.Sorted(slices.Values(s)), want)
	}
	if !found {
		t.Errorf("no set in Claude Code %s's bundle is rating.ExecWrappers %q; its sets naming timeout and nohup: %q (a new version changed its wrappers: update rating.ExecWrappers and the tier)", ClaudeCodeVersion, want, sets)
	}
	for _, w := range rating.ExecWrappers {
		if !slices.Contains(rating.Launchers, w) {
			t.Errorf("exec wrapper %q is not in the tier's launchers", w)
		}
	}
}
