package lattice

import "testing"

// TestMeasuredAcceptEdits holds AcceptEditsRuns to what defaultMode
// acceptEdits did with each line on ClaudeCodeVersion, with no rule, in a
// project holding README.md and src/app.go (internal/conformance
// TestAcceptEditsCommands; the same in settings.json and as a local
// override).
func TestMeasuredAcceptEdits(t *testing.T) {
	for _, c := range []struct {
		line string
		runs bool
	}{
		{"sed -i s/a/b/ README.md", true},
		{"sed --in-place s/a/b/ README.md", true},
		{"sed -i s/a/b/ src/app.go", true},
		{"sed s/a/b/ README.md", true},
		{"sed -i s/a/b/ /etc/hostname", false},
		{"sed -i s/a/b/ ../x", false},
		{"sed -i s/a/b/ ~/x", false},
		{"sed -i.bak s/a/b/ README.md", false},
		{"sed -i -e s/a/b/ README.md", false},
		{"sed -e s/a/b/ -i README.md", false},
		{"sed -i 's/a/b/w /tmp/o' README.md", false},
		{"sed -i -f x.sed README.md", false},
		{"mv a b", true},
		{"mv src/a src/b", true},
		{"mv a /tmp/b", false},
		{"mv -f a b", false},
		{"mv a ../b", false},
		{"cp a b", true},
		{"cp -r src dst", false},
		{"cp a /tmp/b", false},
		{"cp /etc/hostname a", false},
		{"cp a ~/b", false},
		{"rmdir d", true},
		{"rmdir -p a/b", true},
		{"rmdir /tmp/d", false},
		{"touch x", true},
		{"touch -c x", false},
		{"touch -t 202001010000 x", false},
		{"touch /tmp/x", false},
		{"mkdir -p a/b", true},
		{"mkdir /tmp/d", false},
		{"rm x", true},
		{"rm -rf build", true},
		{"rm /tmp/x", false},
		{"chmod +x a", false},
		{"ln -s a b", false},
		{"npm test > out.txt", false},
		{"echo x > out.txt", true},
	} {
		if got := AcceptEditsRuns(c.line, nil); got != c.runs {
			t.Errorf("AcceptEditsRuns(%q) = %v, measured %v on Claude Code %s", c.line, got, c.runs, measured)
		}
	}
}
