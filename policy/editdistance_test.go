package policy

import "testing"

// TestEditDistance: one measure for every suggestion — a swap of two
// neighbours is one edit, runes not bytes.
func TestEditDistance(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want int
	}{
		{"", "", 0}, {"base", "base", 0}, {"bsae", "base", 1}, {"base", "bsae", 1}, {"", "abc", 3},
		{"kitten", "sitting", 3}, {"ca", "abc", 3}, {"fial-on", "fail-on", 1}, {"ſettings", "settings", 1},
		{"abcd", "badc", 2}, {"deny", "dney", 1},
	} {
		if got := EditDistance(c.a, c.b); got != c.want {
			t.Errorf("EditDistance(%q, %q) = %d, want %d", c.a, c.b, got, c.want)
		}
	}
	if got := Suggest("dney", []string{"deny", "allow", "ask"}); got != "deny" {
		t.Errorf("Suggest(dney) = %q", got)
	}
}
