package agentfiles

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// FoldName folds a path or name as a case-insensitive file system may
// when it opens it: each rune whose Unicode case-folding orbit holds an
// ASCII letter becomes that letter in lower case ("ſ" U+017F → "s",
// "K" U+212A KELVIN SIGN → "k", "S" → "s"), any other rune its lower case.
// macOS's APFS compares names by Unicode case folding and Windows' NTFS
// by upper-casing ("ſ" upper-cases to "S"), so `.vſcode/ſettings.json`
// may open as `.vscode/settings.json`; Shipgate reads such a spelling as
// that file (fail closed) rather than ignore it. Look-alikes that do not
// fold (Cyrillic "а") stay distinct, as they do on those file systems.
func FoldName(s string) string {
	ascii := true
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			ascii = false
			break
		}
	}
	if ascii {
		return strings.ToLower(s)
	}
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		b.WriteRune(foldRune(r))
	}
	return b.String()
}

// foldRune is FoldName of one rune.
func foldRune(r rune) rune {
	if r < utf8.RuneSelf {
		return unicode.ToLower(r)
	}
	for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
		if f < utf8.RuneSelf {
			return unicode.ToLower(f)
		}
	}
	return unicode.ToLower(r)
}
