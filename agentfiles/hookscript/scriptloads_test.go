package hookscript

import (
	"reflect"
	"sort"
	"strings"
	"testing"
)

func TestLoadsOf(t *testing.T) {
	node := func(q string) []string {
		var out []string
		out = append(out, q)
		for _, ext := range []string{".js", ".mjs", ".cjs", ".json", ".ts", ".mts", ".cts", ".node"} {
			out = append(out, q+ext)
		}
		for _, idx := range []string{"index.js", "index.mjs", "index.cjs", "index.json", "index.ts", "package.json"} {
			out = append(out, q+"/"+idx)
		}
		return out
	}
	cases := []struct {
		name, path, text string
		paths            []string // nil: none
		dynamic          int      // how many loads Shipgate cannot resolve
	}{
		{"python import: the script's folder first", "scripts/guard.py", "import sys\nimport policy as p, json\n",
			[]string{"scripts/json.py", "scripts/json/__init__.py", "scripts/policy.py", "scripts/policy/__init__.py", "scripts/sys.py", "scripts/sys/__init__.py"}, 0},
		{"python dotted import runs each package's __init__", "s/g.py", "import a.b\n",
			[]string{"s/a/__init__.py", "s/a/b.py", "s/a/b/__init__.py"}, 0},
		{"python from lib import policy", "scripts/guard.py", "from lib import policy, (other)\n",
			[]string{"scripts/lib.py", "scripts/lib/__init__.py", "scripts/lib/other.py", "scripts/lib/other/__init__.py", "scripts/lib/policy.py", "scripts/lib/policy/__init__.py"}, 0},
		{"python from . import x", "scripts/guard.py", "from . import x\n",
			[]string{"scripts/__init__.py", "scripts/x.py", "scripts/x/__init__.py"}, 0},
		{"python from ..pkg import y", "a/b/g.py", "from ..pkg import y\n",
			[]string{"a/pkg.py", "a/pkg/__init__.py", "a/pkg/y.py", "a/pkg/y/__init__.py"}, 0},
		{"python relative import above the repository", "g.py", "from .. import x\n", nil, 0},
		{"python comments and strings are not imports", "g.py", "# import evil\nx = 'import evil'\n", nil, 0},
		{"python sys.path changed: dynamic, imports looked for above too", "a/b/g.py", "import sys\nsys.path.insert(0, '..')\nimport policy\n",
			[]string{"a/b/policy.py", "a/b/policy/__init__.py", "a/b/sys.py", "a/b/sys/__init__.py", "a/policy.py", "a/policy/__init__.py", "a/sys.py", "a/sys/__init__.py", "policy.py", "policy/__init__.py", "sys.py", "sys/__init__.py"}, 1},
		{"python importlib: dynamic", "g.py", "importlib.import_module(name)\n", nil, 1},
		{"python by #! line", "bin/guard", "#!/usr/bin/env python3\nimport policy\n", []string{"bin/policy.py", "bin/policy/__init__.py"}, 0},
		{"shell . $(dirname \"$0\")/common.sh", "tools/check.sh", "#!/bin/sh\n. \"$(dirname \"$0\")/common.sh\"\n", []string{"tools/common.sh"}, 0},
		{"shell ${0%/*} and BASH_SOURCE", "tools/check.sh", "source ${0%/*}/a.sh\nsource \"$(dirname \"${BASH_SOURCE[0]}\")\"/b.sh\n", []string{"tools/a.sh", "tools/b.sh"}, 0},
		{"shell relative: the project and the script's folder", "tools/check.sh", "source ./lib/common.sh\n", []string{"lib/common.sh", "tools/lib/common.sh"}, 0},
		{"shell $CLAUDE_PROJECT_DIR", "tools/check.sh", "if true; then . \"$CLAUDE_PROJECT_DIR\"/lib/x.sh; fi\n", []string{"lib/x.sh"}, 0},
		{"shell a variable path: dynamic", "tools/check.sh", ". \"$LIB/x.sh\"\n", nil, 1},
		{"shell a glob: dynamic", "tools/check.sh", "for f in lib/*.sh; do . $f; done\n", nil, 1},
		{"shell an absolute path is not a repository file", "tools/check.sh", "source /etc/profile\n", nil, 0},
		{"shell comments and dots in words are not loads", "tools/check.sh", "# source evil.sh\necho a. b\nx=1 # . evil.sh\n", nil, 0},
		{"shell by #! line", "bin/check", "#!/bin/bash\nsource lib.sh\n", []string{"bin/lib.sh", "lib.sh"}, 0},
		{"node require of a relative module", "hooks/guard.js", "const p = require('./policy')\nconst fs = require('fs')\n", node("hooks/policy"), 0},
		{"node import from, export from", "hooks/g.mjs", "import { a } from '../lib/a.mjs'\nexport * from \"./b\"\n",
			append(node("hooks/b"), node("lib/a.mjs")...), 0},
		{"node computed require: dynamic", "hooks/g.js", "require(name)\nimport(`./${x}`)\n", nil, 2},
		{"node line comments are not loads", "hooks/g.js", "// require('./evil')\n", nil, 0},
		{"not a script", "README.md", "import policy\nsource x.sh\n", nil, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := LoadsOf(c.path, []byte(c.text))
			want := append([]string(nil), c.paths...)
			sort.Strings(want)
			if len(got.Paths) == 0 {
				got.Paths = nil
			}
			if len(want) == 0 {
				want = nil
			}
			if !reflect.DeepEqual(got.Paths, want) {
				t.Errorf("Paths = %q\nwant    %q", got.Paths, want)
			}
			if len(got.Dynamic) != c.dynamic {
				t.Errorf("Dynamic = %q, want %d", got.Dynamic, c.dynamic)
			}
		})
	}
}

// FuzzLoadsOf: LoadsOf never panics, names only clean repository paths
// (no absolute path, no .., not the script itself), sorted and distinct,
// and a load Shipgate cannot resolve is reported as written in the text.
func FuzzLoadsOf(f *testing.F) {
	f.Add("scripts/guard.py", "import policy\nfrom . import x\nfrom ..a import b\n")
	f.Add("tools/check.sh", ". \"$(dirname \"$0\")/common.sh\"\nsource \"$LIB/x\"\n")
	f.Add("hooks/g.js", "require('./a'); import b from '../b.js'; require(x)\n")
	f.Add("bin/x", "#!/bin/sh\nsource ../../../etc/x\n")
	f.Fuzz(func(t *testing.T, p, text string) {
		got := LoadsOf(p, []byte(text))
		self := CleanPath(p)
		for i, x := range got.Paths {
			if x == "" || strings.HasPrefix(x, "/") || x == ".." || strings.HasPrefix(x, "../") || strings.Contains(x, "/../") || x == self {
				t.Fatalf("LoadsOf(%q) names %q", p, x)
			}
			if i > 0 && got.Paths[i-1] >= x {
				t.Fatalf("LoadsOf(%q) paths not sorted and distinct: %q", p, got.Paths)
			}
		}
		for _, d := range got.Dynamic {
			if d == "" {
				t.Fatalf("LoadsOf(%q): an empty dynamic load", p)
			}
		}
	})
}
