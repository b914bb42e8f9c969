package hookscript

import (
	"bytes"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// SameShellCode reports whether two versions of the shell script at
// repository path p run the same code: both parse as Bash and print the
// same once their comments are dropped (the parser keeps no comment; the
// printer lays the code out one way), and their #! lines are equal (a
// comment that names the interpreter). A guard script whose edit only
// rewords a comment (coleam00/Archon d58aca6ba2) is then no change of the
// hook. Heredoc bodies and strings are code: a "#" inside them stays. A
// script that is not shell, or that either version fails to parse, is
// not the same.
func SameShellCode(p string, a, b []byte) bool {
	p = CleanPath(p)
	if langOf(p, a) != langShell || langOf(p, b) != langShell || shebang(a) != shebang(b) {
		return false
	}
	x, okA := shellCode(a)
	y, okB := shellCode(b)
	return okA && okB && bytes.Equal(x, y)
}

// shebang is a script's #! line ("" for none).
func shebang(data []byte) string {
	if !bytes.HasPrefix(data, []byte("#!")) {
		return ""
	}
	line, _, _ := strings.Cut(string(data), "\n")
	return strings.TrimRight(line, " \t\r")
}

// shellCode is a script printed without its comments.
func shellCode(data []byte) ([]byte, bool) {
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(bytes.NewReader(data), "")
	if err != nil {
		return nil, false
	}
	var out bytes.Buffer
	if err := syntax.NewPrinter().Print(&out, f); err != nil {
		return nil, false
	}
	return out.Bytes(), true
}
