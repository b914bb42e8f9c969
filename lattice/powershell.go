package lattice

import (
	"context"
	"strings"
)

// PowerShell rules match case-insensitively and canonicalise aliases: Claude
// Code reads `gci`, `ls` and `dir` as Get-ChildItem (code.claude.com/docs/en/permissions,
// "PowerShell"). A rule and a command are compared in that canonical form:
// the first word of a rule written with an alias (`cat secret.txt`,
// `cat:*`, `rm *`) is replaced by the cmdlet it stands for, and so is the
// first word of a command before it is matched. So PowerShell(c*) does not
// cover `cat secret.txt` — it is `Get-Content secret.txt` — and
// PowerShell(Get-Content *) does. A first word with a wildcard is matched
// against the canonical name.
//
// psAliases are PowerShell's built-in aliases (Windows PowerShell 5.1 and
// PowerShell 7; `curl`, `wget`, `sc` and friends exist in 5.1 only, and
// are read as their 5.1 cmdlets: a rule naming them means those there).
var psAliases = map[string]string{
	"ac": "add-content", "asnp": "add-pssnapin", "cat": "get-content", "cd": "set-location", "chdir": "set-location",
	"clc": "clear-content", "clear": "clear-host", "clhy": "clear-history", "cli": "clear-item", "clp": "clear-itemproperty",
	"cls": "clear-host", "clv": "clear-variable", "cnsn": "connect-pssession", "compare": "compare-object", "copy": "copy-item",
	"cp": "copy-item", "cpi": "copy-item", "cpp": "copy-itemproperty", "curl": "invoke-webrequest", "cvpa": "convert-path",
	"dbp": "disable-psbreakpoint", "del": "remove-item", "diff": "compare-object", "dir": "get-childitem", "dnsn": "disconnect-pssession",
	"ebp": "enable-psbreakpoint", "echo": "write-output", "epal": "export-alias", "epcsv": "export-csv", "epsn": "export-pssession",
	"erase": "remove-item", "etsn": "enter-pssession", "exsn": "exit-pssession", "fc": "format-custom", "fhx": "format-hex",
	"fl": "format-list", "foreach": "foreach-object", "%": "foreach-object", "ft": "format-table", "fw": "format-wide",
	"gal": "get-alias", "gbp": "get-psbreakpoint", "gc": "get-content", "gcb": "get-clipboard", "gci": "get-childitem",
	"gcm": "get-command", "gcs": "get-pscallstack", "gdr": "get-psdrive", "ghy": "get-history", "gi": "get-item",
	"gin": "get-computerinfo", "gjb": "get-job", "gl": "get-location", "gm": "get-member", "gmo": "get-module",
	"gp": "get-itemproperty", "gps": "get-process", "gpv": "get-itempropertyvalue", "group": "group-object", "gsn": "get-pssession",
	"gsnp": "get-pssnapin", "gsv": "get-service", "gtz": "get-timezone", "gu": "get-unique", "gv": "get-variable",
	"gwmi": "get-wmiobject", "h": "get-history", "history": "get-history", "icm": "invoke-command", "iex": "invoke-expression",
	"ihy": "invoke-history", "ii": "invoke-item", "ipal": "import-alias", "ipcsv": "import-csv", "ipmo": "import-module",
	"ipsn": "import-pssession", "irm": "invoke-restmethod", "iwmi": "invoke-wmimethod",
	"iwr": "invoke-webrequest", "kill": "stop-process", "lp": "out-printer", "ls": "get-childitem", "man": "help",
	"md": "mkdir", "measure": "measure-object", "mi": "move-item", "mount": "new-psdrive", "move": "move-item",
	"mp": "move-itemproperty", "mv": "move-item", "nal": "new-alias", "ndr": "new-psdrive", "ni": "new-item",
	"nmo": "new-module", "npssc": "new-pssessionconfigurationfile", "nsn": "new-pssession", "nv": "new-variable",
	"ogv": "out-gridview", "oh": "out-host", "popd": "pop-location", "ps": "get-process", "pushd": "push-location",
	"pwd": "get-location", "r": "invoke-history", "rbp": "remove-psbreakpoint", "rcjb": "receive-job", "rcsn": "receive-pssession",
	"rd": "remove-item", "rdr": "remove-psdrive", "ren": "rename-item", "ri": "remove-item", "rjb": "remove-job",
	"rm": "remove-item", "rmdir": "remove-item", "rmo": "remove-module", "rni": "rename-item", "rnp": "rename-itemproperty",
	"rp": "remove-itemproperty", "rsn": "remove-pssession", "rsnp": "remove-pssnapin", "rujb": "resume-job", "rv": "remove-variable",
	"rvpa": "resolve-path", "rwmi": "remove-wmiobject", "sajb": "start-job", "sal": "set-alias", "saps": "start-process",
	"sasv": "start-service", "sbp": "set-psbreakpoint", "sc": "set-content", "scb": "set-clipboard", "select": "select-object",
	"set": "set-variable", "shcm": "show-command", "si": "set-item", "sl": "set-location", "sleep": "start-sleep",
	"sls": "select-string", "sort": "sort-object", "sp": "set-itemproperty", "spjb": "stop-job", "spps": "stop-process",
	"spsv": "stop-service", "start": "start-process", "stz": "set-timezone", "sujb": "suspend-job", "sv": "set-variable",
	"swmi": "set-wmiinstance", "tee": "tee-object", "trcm": "trace-command", "type": "get-content", "wget": "invoke-webrequest",
	"where": "where-object", "?": "where-object", "wjb": "wait-job", "write": "write-output",
}

// psCanonicalCommand lowercases a PowerShell command and replaces an alias
// in its first word by the cmdlet it stands for.
func psCanonicalCommand(cmd string) string {
	cmd = strings.ToLower(cmd)
	word, rest, _ := strings.Cut(cmd, " ")
	if c, ok := psAliases[word]; ok {
		if rest == "" && !strings.HasSuffix(cmd, " ") {
			return c
		}
		return c + " " + rest
	}
	return cmd
}

// psTrueWitness keeps a PowerShell witness true: the automata read the
// command as written, Match reads an alias as its cmdlet (`%` is
// ForEach-Object), so a word of b's language may not match b (found by
// FuzzSurfaceCovers: `%` for PowerShell(%*)). It returns w when Match
// agrees (b matches it, a — when given — does not), else a close word that
// does, or false. Other tools' words are returned as they are.
func psTrueWitness(ctx context.Context, b, a *reading, w string) (string, bool) {
	if b.tool != "PowerShell" || b.param != "" {
		return w, true
	}
	ok := func(x string) bool {
		return b.args.run(strings.ToLower(x)) && b.matchArg(ctx, x) && (a == nil || !a.matchArg(ctx, x))
	}
	for _, x := range []string{w, w + "x", w + " x", w + "-x", w + "0"} {
		if ok(x) {
			return x, true
		}
	}
	return "", false
}

// psCanonicalSpec canonicalises the first word of a PowerShell rule's
// specifier when it is an alias written literally (no wildcard, no
// escape): `cat *` → `get-content *`, `cat:*` → `get-content:*`.
func psCanonicalSpec(spec string) string {
	s := strings.ToLower(spec)
	end := strings.IndexByte(s, ' ')
	if end < 0 {
		end = len(s)
	}
	word := s[:end]
	suffix := ""
	if end == len(s) && strings.HasSuffix(word, ":*") {
		word, suffix = word[:len(word)-2], ":*"
	}
	if strings.ContainsAny(word, "*\\") {
		return s
	}
	if c, ok := psAliases[word]; ok {
		return c + suffix + s[end:]
	}
	return s
}
