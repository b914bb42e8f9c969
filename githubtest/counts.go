package githubtest

import (
	"context"
	"regexp"
	"sort"
	"strings"
	"time"
)

// RequestCount is how many requests one route received from one
// installation (InstallationID 0: requests made with an app JWT or with no
// credentials). It is also the key of the fake's counters.
type RequestCount struct {
	Method         string // HTTP method
	Route          string // OpenAPI-style pattern, e.g. /repos/{owner}/{repo}/pulls/{pull_number}/files; "" for unknown paths
	InstallationID int64  // the installation whose token was used, 0 for none
	Count          int    // requests counted
}

// RequestRecord is one served request, for tests that assert on the exact
// sequence of calls.
type RequestRecord struct {
	Time           time.Time // on the fake's clock
	Method         string    // HTTP method
	Path           string    // as received, /api/v3 prefix included
	Route          string    // the matched route pattern, "" for none
	Status         int       // the response status
	InstallationID int64     // the installation whose token was used, 0 for none
	AppID          int64     // the app authenticated (JWT or token), 0 for none
	RequestID      string    // the X-GitHub-Request-Id sent
	Faulted        bool      // answered by an injected fault
}

// maxLogRecords bounds the request log of a long-running demo.
const maxLogRecords = 10000

type reqInfoKey struct{}

// reqInfo is what the router learns before routing: the base URL the
// client used (with /api/v3 when it used it) and the path as received.
type reqInfo struct {
	base string
	path string
}

func withReqInfo(ctx context.Context, info reqInfo) context.Context {
	return context.WithValue(ctx, reqInfoKey{}, info)
}

func reqInfoFrom(ctx context.Context) reqInfo {
	info, _ := ctx.Value(reqInfoKey{}).(reqInfo)
	return info
}

func (s *Server) record(c *call) {
	route := ""
	if c.rt != nil {
		route = c.rt.pattern
	}
	var instID, appID int64
	if c.who.inst != nil {
		instID = c.who.inst.id
	}
	if c.who.app != nil {
		appID = c.who.app.id
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.st.counts[RequestCount{Method: c.r.Method, Route: route, InstallationID: instID}]++
	s.st.log = append(s.st.log, RequestRecord{
		Time: s.now(), Method: c.r.Method, Path: reqInfoFrom(c.r.Context()).path, Route: route, Status: c.status,
		InstallationID: instID, AppID: appID, RequestID: c.reqID, Faulted: c.faulted,
	})
	if len(s.st.log) > maxLogRecords {
		s.st.log = append([]RequestRecord(nil), s.st.log[len(s.st.log)-maxLogRecords:]...)
	}
}

// Requests returns a snapshot of the request counters, one entry per
// (method, route, installation), sorted.
func (s *Server) Requests() []RequestCount {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]RequestCount, 0, len(s.st.counts))
	for k, n := range s.st.counts {
		k.Count = n
		out = append(out, k)
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Route != b.Route {
			return a.Route < b.Route
		}
		if a.Method != b.Method {
			return a.Method < b.Method
		}
		return a.InstallationID < b.InstallationID
	})
	return out
}

// RequestCount returns how many requests matched method ("" = any) and
// route, summed over installations. Parameter names in route do not matter:
// "/repos/{owner}/{repo}/pulls/{number}/files" counts the same route as
// "/repos/{owner}/{repo}/pulls/{pull_number}/files".
func (s *Server) RequestCount(method, route string) int {
	want := normalizePattern(route)
	n := 0
	for _, rc := range s.Requests() {
		if (method == "" || strings.EqualFold(method, rc.Method)) && normalizePattern(rc.Route) == want {
			n += rc.Count
		}
	}
	return n
}

// RequestLog returns every request served since the last ResetCounts (the
// newest 10,000), oldest first.
func (s *Server) RequestLog() []RequestRecord {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]RequestRecord(nil), s.st.log...)
}

// ResetCounts clears the request counters and the request log.
func (s *Server) ResetCounts() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.st.counts = map[RequestCount]int{}
	s.st.log = nil
}

var paramRE = regexp.MustCompile(`\{[^}]*\}`)

// normalizePattern makes route patterns comparable whatever their
// parameter names or /api/v3 prefix.
func normalizePattern(p string) string {
	p = strings.TrimPrefix(p, "/api/v3")
	return paramRE.ReplaceAllString(p, "{}")
}
