package githubtest

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"
)

// Page sizes GitHub uses for page-numbered lists.
const (
	defaultPerPage = 30
	maxPerPage     = 100
)

// paginate picks the page of a list of total items that the request's
// page and per_page ask for (per_page defaults to 30 and is capped at 100,
// page starts at 1), and sets the Link header with rel prev, next, last and
// first as GitHub does. It returns the half-open index range.
func (c *call) paginate(total int) (start, end int) {
	per := defaultPerPage
	if v, err := strconv.Atoi(c.query("per_page")); err == nil && v > 0 {
		per = min(v, maxPerPage)
	}
	page := 1
	if v, err := strconv.Atoi(c.query("page")); err == nil && v > 0 {
		page = v
	}
	last := max((total+per-1)/per, 1)
	start = min((page-1)*per, total)
	end = min(start+per, total)
	var links []string
	add := func(p int, rel string) {
		links = append(links, fmt.Sprintf("<%s>; rel=%q", c.pageURL(map[string]string{"page": strconv.Itoa(p)}), rel))
	}
	if page > 1 {
		add(min(page-1, last), "prev")
	}
	if page < last {
		add(page+1, "next")
		add(last, "last")
	}
	if page > 1 {
		add(1, "first")
	}
	if len(links) > 0 {
		c.w.Header().Set("Link", strings.Join(links, ", "))
	}
	return start, end
}

// pageURL is the request's URL with some query parameters replaced. For
// repository routes it uses GitHub's /repositories/{id}/… form.
func (c *call) pageURL(set map[string]string) string {
	q := c.r.URL.Query()
	for k, v := range set {
		q.Set(k, v)
	}
	p := c.r.URL.EscapedPath()
	if rest, ok := strings.CutPrefix(p, "/repos/"); ok {
		parts := strings.SplitN(rest, "/", 3)
		if len(parts) >= 2 {
			owner, _ := url.PathUnescape(parts[0])
			name, _ := url.PathUnescape(parts[1])
			if r := c.s.st.repo(owner, name); r != nil {
				p = "/repositories/" + strconv.FormatInt(r.id, 10)
				if len(parts) == 3 {
					p += "/" + parts[2]
				}
			}
		}
	}
	return c.base + p + "?" + q.Encode()
}
