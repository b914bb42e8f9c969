package lattice

import "strings"

// ReadOnlyProbe is one command line with what Claude Code does with it
// when no rule decides it: Runs says it ran without a prompt (a read-only
// command), else it asked.
type ReadOnlyProbe struct {
	Line string
	Runs bool
}

// ReadOnlyProbes are the read-only table's measurement (ClaudeCodeVersion,
// in a session with no permission rule; the conformance class
// readonly-table asks the binary every one again, so a new version's
// drift fails as a row): for each command of the table its plain forms
// that run, and the options and operands that make it ask. A test holds
// ReadOnly to every row and every command of the table to a row that runs.
func ReadOnlyProbes() []ReadOnlyProbe {
	return append([]ReadOnlyProbe(nil), readOnlyProbes...)
}

var readOnlyProbes = []ReadOnlyProbe{
	{"ls", true}, {"ls -la", true}, {"ls src", true}, {"ls ~/.ssh", false}, {"ls /etc", false},
	{"cat README.md", true}, {"cat *.md", true}, {"ls *.md", true}, {"cat ~/.ssh/id_rsa", false}, {"cat /etc/passwd", false},
	{"head -n 1 README.md", true}, {"tail -n 1 README.md", true}, {"tail /etc/hostname", false},
	{"wc -l README.md", true}, {"grep x README.md", true}, {"grep -r x .", true}, {"grep x /etc/hostname", false},
	{"grep -f README.md x .", true}, {"grep --exclude-from=README.md -r x .", true}, {"grep --file=README.md x", true},
	{"grep -f /etc/hostname x .", false}, {"grep --exclude-from=/etc/hostname -r x .", false},
	{"rg x", true}, {"rg -n x src", true}, {"rg --pre cat x", false}, {"rg --files", false}, {"rg -f README.md x", true},
	{"rg --ignore-file README.md x", false}, {"rg --pre-glob '*.md' x", false},
	{"find . -fprint0 out", false},
	{"fd x", true}, {"sort README.md", true}, {"diff README.md package.json", true},
	{"stat README.md", true}, {"du -sh .", true}, {"tree", true}, {"file README.md", true},
	{"od README.md", true}, {"md5sum README.md", true}, {"sha256sum README.md", true},
	{"base64 README.md", true}, {"realpath README.md", true}, {"readlink README.md", true},
	{"basename a/b", true}, {"dirname a/b", true}, {"jq . package.json", true}, {"which ls", true},
	{"pwd", true}, {"pwd -P", false}, {"pwd -L", false},
	{"true", true}, {"whoami", true}, {"id", true}, {"uname", true}, {"uname -a", true}, {"ps", true},
	{"echo hi", true}, {"test -f README.md", true}, {"[ -f README.md ]", true}, {"sleep 1", true},
	{"date +%s", true}, {"date -u", true}, {"hostname", true}, {"hostname -f", true},
	{"find . -name x", true}, {"find /etc/ssl -name x", false},
	{"sed -n 1p README.md", true}, {"sed -i s/a/b/ README.md", false},
	{"cd src", true}, {"cd", false}, {"cd ~", false},
	{"git status", true}, {"git log --oneline", true}, {"git diff", true}, {"git show", true},
	{"git blame README.md", true}, {"git rev-parse HEAD", true}, {"git ls-files", true},
	{"git branch -a", true}, {"git tag -l", true}, {"git remote -v", true}, {"git stash list", true},
	{"git config --get user.name", true}, {"git fetch", false}, {"git config user.name", false},
	{"docker ps", true}, {"node --version", true}, {"node -v", true},
	{"python3 --version", true}, {"python3 -V", false},
	{"xargs", true}, {"xargs echo", true}, {"timeout 5 ls", true}, {"command ls", true},
	{"printenv", false}, {"env", false}, {"npm --version", false}, {"touch x", false}, {"mkdir d", false},
}

// ReadOnlyAsking returns the measured lines of ReadOnlyProbes whose
// command word is word and that ask with no rule (`rg --files`, `rg --pre
// cat x`): the forms of a read-only command a rule over it may newly let
// run. The engine offers them as witnesses when its search finds none.
func ReadOnlyAsking(word string) []string {
	var out []string
	for _, p := range readOnlyProbes {
		if p.Runs {
			continue
		}
		if w, _, _ := strings.Cut(p.Line, " "); w == word {
			out = append(out, p.Line)
		}
	}
	return out
}
