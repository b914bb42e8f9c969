package hookscript

import (
	"strings"
	"testing"
)

// TestMoveBlocker: a Python or shell script that loads only what Shipgate
// resolves and names nothing above its folder runs the same code moved
// with its folder; anything else is refused, with why.
func TestMoveBlocker(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name, path, text string
		run, blocked     bool
	}{
		{"a shell script sourcing a file beside it", "scripts/hooks/start.sh", "#!/bin/bash\nsource \"$(dirname \"$0\")/lib.sh\"\n", true, false},
		{"a Python script importing the standard library", "scripts/hooks/fmt.py", "import json\nfrom pathlib import Path\nprint(...)\n", true, false},
		{"a shell script sourcing a file above its folder", "scripts/hooks/start.sh", "#!/bin/bash\nsource \"$(dirname \"$0\")/../common.sh\"\n", true, true},
		{"a Python script climbing from __file__", "scripts/hooks/fmt.py", "from pathlib import Path\nroot = Path(__file__).parent.parent\n", true, true},
		{"a Python relative import from the parent package", "scripts/hooks/fmt.py", "from .. import common\n", true, true},
		{"a Python script that changes sys.path", "scripts/hooks/fmt.py", "import sys\nsys.path.insert(0, 'lib')\n", true, true},
		{"a Node script", "scripts/hooks/guard.js", "require('./x')\n", true, true},
		{"a script of another language a command runs", "scripts/hooks/guard.rb", "require_relative 'x'\n", true, true},
		{"a data file beside the script", "scripts/hooks/fmt.py.lock", "version = 1\n../x\n", false, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			why := MoveBlocker(c.path, []byte(c.text), c.run)
			if (why != "") != c.blocked {
				t.Errorf("MoveBlocker = %q, want blocked %v", why, c.blocked)
			}
		})
	}
}

// TestRenameBlocker: a Python, shell or Node script renamed in its folder
// runs the same code when it keeps its extension and does not read its
// own name; taking its folder from its path is fine (the folder is the
// same).
func TestRenameBlocker(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name, from, to, text string
		blocked              bool
	}{
		{"a shell script, nothing of its name", "h/full-check.sh", "h/typecheck-lint.sh", "#!/usr/bin/env bash\nINPUT=\"$(cat)\"\nnpx tsc --noEmit\n", false},
		{"a shell script sourcing a file beside it through dirname $0", "h/a.sh", "h/b.sh", "#!/bin/bash\nsource \"$(dirname \"$0\")/lib.sh\"\n", false},
		{"dirname of BASH_SOURCE", "h/a.sh", "h/b.sh", "#!/bin/bash\nD=$(dirname \"${BASH_SOURCE[0]}\")\n. \"$D/lib.sh\"\n", false},
		{"a Python script taking its folder", "h/a.py", "h/b.py", "import os\nhere = os.path.dirname(os.path.abspath(__file__))\nfrom pathlib import Path\nx = Path(__file__).resolve().parent\n", false},
		{"a Node script taking its folder", "h/a.js", "h/b.js", "const d = path.dirname(fileURLToPath(import.meta.url));\nconst e = __dirname;\n", false},
		{"$0 read for itself", "h/a.sh", "h/b.sh", "#!/bin/bash\necho \"$0\"\n", true},
		{"basename of its path", "h/a.sh", "h/b.sh", "#!/bin/bash\nn=$(basename \"$0\")\n", true},
		{"__file__ read for itself", "h/a.py", "h/b.py", "print(__file__)\n", true},
		{"sys.argv", "h/a.py", "h/b.py", "import sys\nif sys.argv[0].endswith('a.py'): pass\n", true},
		{"import.meta.url read for itself", "h/a.mjs", "h/b.mjs", "if (import.meta.url.endsWith('a.mjs')) process.exit(2)\n", true},
		{"the old name spelt", "h/full-check.sh", "h/lint.sh", "#!/bin/sh\n# full-check: run the checks\n", true},
		{"the new name spelt", "h/full-check.sh", "h/lint.sh", "#!/bin/sh\nLINT=1\n", true},
		{"another extension", "h/guard.js", "h/guard.mjs", "process.exit(0)\n", true},
		{"another folder", "h/a.sh", "g/a.sh", "#!/bin/sh\n", true},
		{"a script of another language", "h/a.rb", "h/b.rb", "puts 1\n", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			why := RenameBlocker(c.from, c.to, []byte(c.text))
			if (why != "") != c.blocked {
				t.Errorf("RenameBlocker = %q, want blocked %v", why, c.blocked)
			}
		})
	}
}

// TestSameShellCode: a shell script whose edit only changes comments or
// layout runs the same code; a changed command, #! line, heredoc body or
// string does not.
func TestSameShellCode(t *testing.T) {
	t.Parallel()
	const guard = "#!/bin/bash\n# Block git clean -fd (explicit CLAUDE.md rule)\nif grep -q 'git clean'; then\n  exit 2 # deny\nfi\ncat <<EOF\n# not a comment\nEOF\necho \"# nor this\"\n"
	for _, c := range []struct {
		name, path, b string
		same          bool
	}{
		{"a comment reworded", "h/g.sh", strings.Replace(guard, "CLAUDE.md", "AGENTS.md", 1), true},
		{"a trailing comment dropped, layout changed", "h/g.sh", strings.Replace(strings.Replace(guard, " # deny", "", 1), "  exit 2", "\texit 2", 1), true},
		{"a command changed", "h/g.sh", strings.Replace(guard, "exit 2", "exit 0", 1), false},
		{"the #! line changed", "h/g.sh", strings.Replace(guard, "#!/bin/bash", "#!/bin/sh", 1), false},
		{"a heredoc line changed", "h/g.sh", strings.Replace(guard, "# not a comment", "# not a comment!", 1), false},
		{"a string changed", "h/g.sh", strings.Replace(guard, "# nor this", "# nor that", 1), false},
		{"not shell", "h/g.py", strings.Replace(guard, "CLAUDE.md", "AGENTS.md", 1), false},
		{"does not parse", "h/g.sh", guard + "if then fi (\n", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := SameShellCode(c.path, []byte(guard), []byte(c.b)); got != c.same {
				t.Errorf("SameShellCode = %v, want %v", got, c.same)
			}
		})
	}
}

// FuzzSameShellCode: any two scripts compare without a panic, and a script
// is the same code as itself whenever it parses.
func FuzzSameShellCode(f *testing.F) {
	f.Add("#!/bin/sh\n# c\necho a # b\n", "#!/bin/sh\necho a\n")
	f.Add("cat <<E\n# x\nE\n", "cat <<E\nE\n")
	f.Fuzz(func(t *testing.T, a, b string) {
		_ = SameShellCode("h/x.sh", []byte(a), []byte(b))
		if _, ok := shellCode([]byte(a)); ok && !SameShellCode("h/x.sh", []byte(a), []byte(a)) {
			t.Fatalf("%q is not the same as itself", a)
		}
	})
}
