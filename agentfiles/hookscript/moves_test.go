package hookscript

import "testing"

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
