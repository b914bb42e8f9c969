package agent

import "testing"

// TestFrontmatterSize: the bytes Frontmatter parses as YAML, which the
// engine charges to its work budget; the Markdown after the block is only
// scanned.
func TestFrontmatterSize(t *testing.T) {
	for _, c := range []struct {
		data string
		want int
	}{
		{"---\nname: x\n---\nLong prose.\n", len("name: x\n")},
		{"\xef\xbb\xbf---\r\nname: x\r\n---\r\nbody", len("name: x\r\n")},
		{"---\n---\nbody", 0},
		{"no frontmatter\n---\nx: 1\n---\n", 0},
		{"---\nname: x\nnever closed\n", 0},
		{"", 0},
	} {
		if got := FrontmatterSize([]byte(c.data)); got != c.want {
			t.Errorf("FrontmatterSize(%q) = %d, want %d", c.data, got, c.want)
		}
	}
}
