package report

import "fmt"

// Plural counts what in words: "1 change", "2 changes" (the reports'
// wording, shared by the engine and the renderers).
func Plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// FirstNonEmpty is the first of xs that is not empty, or "".
func FirstNonEmpty(xs ...string) string {
	for _, x := range xs {
		if x != "" {
			return x
		}
	}
	return ""
}
