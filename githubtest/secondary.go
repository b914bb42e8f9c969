package githubtest

import (
	"math"
	"net/http"
	"strconv"
	"time"
)

// ContentLimit is one window of GitHub's secondary rate limit on
// content-creating requests: at most Max such requests per Window.
type ContentLimit struct {
	Window time.Duration
	Max    int
}

// GitHubContentLimits are the secondary limits GitHub documents for
// content-creating requests: no more than 80 a minute and 500 an hour.
var GitHubContentLimits = []ContentLimit{{Window: time.Minute, Max: 80}, {Window: time.Hour, Max: 500}}

// contentCreating reports whether a request creates or changes content
// (GitHub counts POST, PATCH, PUT and DELETE; token minting is not one).
func contentCreating(method, pattern string) bool {
	switch method {
	case http.MethodPost, http.MethodPatch, http.MethodPut, http.MethodDelete:
		return pattern != "/app/installations/{installation_id}/access_tokens"
	}
	return false
}

// consumeContent enforces Options.ContentLimits per installation: a
// content-creating request past a window's Max is refused as GitHub does,
// 403 with the secondary-rate-limit message and a Retry-After of the
// seconds until the window has room. Refused requests do not count.
func (s *Server) consumeContent(c *call, method, pattern string) *apiError {
	if len(s.opts.ContentLimits) == 0 || c.who.kind != callerToken || !contentCreating(method, pattern) {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.clock()
	id := c.who.inst.id
	longest := time.Duration(0)
	for _, l := range s.opts.ContentLimits {
		longest = max(longest, l.Window)
	}
	log := s.st.writes[id]
	for len(log) > 0 && !log[0].After(now.Add(-longest)) {
		log = log[1:]
	}
	for _, l := range s.opts.ContentLimits {
		in := 0
		var oldest time.Time
		for i := len(log) - 1; i >= 0 && log[i].After(now.Add(-l.Window)); i-- {
			in++
			oldest = log[i]
		}
		if in >= l.Max {
			s.st.writes[id] = log
			s.st.secondaryHits++
			wait := oldest.Add(l.Window).Sub(now)
			return &apiError{status: http.StatusForbidden, docURL: docSecondaryRate,
				message: "You have exceeded a secondary rate limit and have been temporarily blocked from content creation. Please retry your request again later. " +
					"If you reach out to GitHub Support for help, please include the request ID " + c.reqID + ".",
				header: map[string]string{"Retry-After": strconv.Itoa(max(int(math.Ceil(wait.Seconds())), 1))}}
		}
	}
	s.st.writes[id] = append(log, now)
	return nil
}

// SecondaryLimitHits is how many requests the content-creation limits
// (Options.ContentLimits) refused since the fake started.
func (s *Server) SecondaryLimitHits() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.st.secondaryHits
}
