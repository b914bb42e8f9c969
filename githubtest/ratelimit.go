package githubtest

import (
	"fmt"
	"net/http"
	"strconv"
	"time"
)

// bucket is one primary rate-limit window ("core" resource).
type bucket struct {
	limit int
	used  int
	reset time.Time
}

// Primary limits other than the per-installation one (Options.RateLimit).
const (
	appRateLimit       = 5000 // requests an hour with an app JWT
	anonymousRateLimit = 60   // requests an hour per IP address
)

// bucketFor returns the caller's rate-limit window, opening a new one when
// the old one has reset. Callers hold s.mu.
func (s *Server) bucketFor(who caller) *bucket {
	var key string
	limit := anonymousRateLimit
	switch who.kind {
	case callerToken:
		key, limit = fmt.Sprintf("installation:%d", who.inst.id), s.opts.RateLimit
	case callerApp:
		key, limit = fmt.Sprintf("app:%d", who.app.id), appRateLimit
	default:
		key = "ip:" + who.ip
	}
	now := s.now()
	b := s.st.buckets[key]
	if b == nil || !now.Before(b.reset) {
		b = &bucket{limit: limit, reset: now.Add(time.Hour)}
		s.st.buckets[key] = b
	}
	return b
}

// consumeRate counts the request against the caller's primary limit, sets
// the X-RateLimit-* headers and refuses the request once the limit is
// spent, with GitHub's 403 body.
func (s *Server) consumeRate(c *call) *apiError {
	s.mu.Lock()
	defer s.mu.Unlock()
	b := s.bucketFor(c.who)
	if b.used >= b.limit {
		setRateHeaders(c.w.Header(), b)
		return &apiError{status: http.StatusForbidden, message: primaryLimitMessage(c.who), docURL: docRateLimit}
	}
	b.used++
	setRateHeaders(c.w.Header(), b)
	return nil
}

func setRateHeaders(h http.Header, b *bucket) {
	h.Set("X-RateLimit-Limit", strconv.Itoa(b.limit))
	h.Set("X-RateLimit-Remaining", strconv.Itoa(max(b.limit-b.used, 0)))
	h.Set("X-RateLimit-Used", strconv.Itoa(b.used))
	h.Set("X-RateLimit-Reset", strconv.FormatInt(b.reset.Unix(), 10))
	h.Set("X-RateLimit-Resource", "core")
}

// getRateLimit serves GET /rate_limit, which does not count against the
// limit it reports.
func (s *Server) getRateLimit(c *call) (int, any, *apiError) {
	b := s.bucketFor(c.who)
	setRateHeaders(c.w.Header(), b)
	rate := map[string]any{"limit": b.limit, "remaining": max(b.limit-b.used, 0), "reset": b.reset.Unix(), "used": b.used, "resource": "core"}
	other := func(limit int, resource string) map[string]any {
		return map[string]any{"limit": limit, "remaining": limit, "reset": s.now().Add(time.Hour).Unix(), "used": 0, "resource": resource}
	}
	return http.StatusOK, map[string]any{
		"resources": map[string]any{
			"core":                 rate,
			"search":               other(30, "search"),
			"graphql":              other(5000, "graphql"),
			"integration_manifest": other(5000, "integration_manifest"),
			"code_search":          other(10, "code_search"),
		},
		"rate": rate,
	}, nil
}
