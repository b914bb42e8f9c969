package main

import (
	"io"
	"os"
	"strings"
)

// useColor decides whether the text report is coloured. --color always and
// never win; auto colours only a terminal, and never when NO_COLOR is set to
// anything but the empty string (https://no-color.org) or TERM is "dumb".
// JSON, Markdown and SARIF are never coloured.
func useColor(mode string, stdout io.Writer, lookup func(string) (string, bool)) bool {
	switch mode {
	case "always":
		return true
	case "never":
		return false
	}
	if v, ok := lookup("NO_COLOR"); ok && v != "" {
		return false
	}
	if v, _ := lookup("TERM"); v == "dumb" {
		return false
	}
	f, ok := stdout.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

const (
	ansiReset  = "\x1b[0m"
	ansiBold   = "\x1b[1m"
	ansiRed    = "\x1b[31m"
	ansiYellow = "\x1b[33m"
	ansiGreen  = "\x1b[32m"
)

// colorize adds ANSI colours to the text report, line by line, from the
// shapes render.Text prints: a widening change (⚠) yellow, red when its
// risk is high or critical; a blocking finding red and a review finding
// yellow; the closing decision red (block), yellow (require_review) or
// green (allow). The words stay the same, so a reader without colour loses
// nothing. Rule text in the report is already stripped of control
// characters, so no input can forge these escapes.
func colorize(text string) string {
	lines := strings.SplitAfter(text, "\n")
	for i, l := range lines {
		body := strings.TrimRight(l, "\n")
		nl := l[len(body):]
		c := ""
		switch {
		case strings.HasPrefix(body, "⚠ high ") || strings.HasPrefix(body, "⚠ critical "):
			c = ansiBold + ansiRed
		case strings.HasPrefix(body, "⚠ "):
			c = ansiYellow
		case strings.HasPrefix(body, "  block "):
			c = ansiRed
		case strings.HasPrefix(body, "  review ") || strings.HasPrefix(body, "  require_review "):
			c = ansiYellow
		case strings.Contains(body, "Decision: block."):
			c = ansiBold + ansiRed
		case strings.Contains(body, "Decision: require_review."):
			c = ansiBold + ansiYellow
		case strings.Contains(body, "Decision: allow."):
			c = ansiGreen
		}
		if c != "" && body != "" {
			lines[i] = c + body + ansiReset + nl
		}
	}
	return strings.Join(lines, "")
}
