package main

import "strings"

// shellQuote quotes s for a POSIX shell where it needs it, so that a
// Reproduce line can be pasted as it is: a word of plain characters stays
// as it is, anything else goes in single quotes (a quote inside is
// closed, escaped with a backslash and reopened).
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.,/:=@%+") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// shellJoin is the command line of words, each quoted as needed.
func shellJoin(words ...string) string {
	q := make([]string, len(words))
	for i, w := range words {
		q[i] = shellQuote(w)
	}
	return strings.Join(q, " ")
}
