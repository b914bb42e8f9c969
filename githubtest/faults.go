package githubtest

import (
	"fmt"
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Fault is an injected failure. Faults are consumed in the order they were
// injected: a request takes the first pending fault that matches it.
type Fault struct {
	// Method matches the request method; "" matches any.
	Method string
	// PathPattern matches the route, written as an OpenAPI-style pattern
	// such as "/repos/{owner}/{repo}/pulls/{number}/files" (parameter names
	// do not matter); "" matches any route.
	PathPattern string
	// Times is how many requests the fault answers (default 1; ignored
	// with Until).
	Times int
	// Until, when set, makes the fault an outage: it answers every
	// matching request until the fake's clock (Options.Clock) reaches it,
	// and is then dropped.
	Until time.Time
	// Status is the response status (e.g. 500, 502, 429, 404). Zero with
	// SecondaryLimit means 403; zero otherwise means the request is served
	// normally after Latency.
	Status int
	// RetryAfter sets the Retry-After header (whole seconds, rounded up).
	RetryAfter time.Duration
	// SecondaryLimit answers with GitHub's secondary-rate-limit message and
	// documentation URL (403 unless Status says 429), with Retry-After
	// (60 s unless RetryAfter is set).
	SecondaryLimit bool
	// Latency delays the response (cut short when the client gives up or
	// the server closes).
	Latency time.Duration
	// Message overrides the error message.
	Message string
	// AfterApply serves the request first and then answers with the fault's
	// status instead of the result: the change landed but the client was
	// told it failed, as when a gateway times out after GitHub wrote it.
	// A client that blindly retries a non-idempotent request (appending
	// check-run annotations) then applies it twice.
	AfterApply bool
}

type faultState struct {
	Fault
	left int
}

// Inject queues a fault.
func (s *Server) Inject(f Fault) {
	if f.Times <= 0 {
		f.Times = 1
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.st.faults = append(s.st.faults, &faultState{Fault: f, left: f.Times})
}

// PendingFaults returns the faults not yet used up, with Times set to the
// number of requests each will still answer.
func (s *Server) PendingFaults() []Fault {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Fault
	for _, f := range s.st.faults {
		g := f.Fault
		g.Times = f.left
		out = append(out, g)
	}
	return out
}

// ClearFaults drops every pending fault.
func (s *Server) ClearFaults() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.st.faults = nil
}

func (s *Server) takeFault(method, pattern string) (Fault, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.takeFaultLocked(method, normalizePattern(pattern))
}

// takeFaultLocked is takeFault; callers hold s.mu.
func (s *Server) takeFaultLocked(method, norm string) (Fault, bool) {
	for i, f := range s.st.faults {
		if f.Method != "" && !strings.EqualFold(f.Method, method) {
			continue
		}
		if f.PathPattern != "" && normalizePattern(f.PathPattern) != norm {
			continue
		}
		if !f.Until.IsZero() {
			if !s.now().Before(f.Until) {
				s.st.faults = append(s.st.faults[:i:i], s.st.faults[i+1:]...)
				return s.takeFaultLocked(method, norm)
			}
			return f.Fault, true
		}
		f.left--
		if f.left <= 0 {
			s.st.faults = append(s.st.faults[:i:i], s.st.faults[i+1:]...)
		}
		return f.Fault, true
	}
	return Fault{}, false
}

// faultError builds the response of an injected fault, or nil for a
// latency-only fault.
func (s *Server) faultError(f Fault, who caller, requestID string) *apiError {
	status := f.Status
	if status == 0 && f.SecondaryLimit {
		status = http.StatusForbidden
	}
	if status == 0 {
		return nil
	}
	e := &apiError{status: status, header: map[string]string{}, docURL: docREST}
	retry := f.RetryAfter
	switch {
	case f.SecondaryLimit:
		e.message = "You have exceeded a secondary rate limit. Please wait a few minutes before you try again. " +
			"If you reach out to GitHub Support for help, please include the request ID " + requestID + "."
		e.docURL = docSecondaryRate
		if retry == 0 {
			retry = time.Minute
		}
	case status == http.StatusTooManyRequests:
		e.message = primaryLimitMessage(who)
		e.docURL = docRateLimit
	case status == http.StatusNotFound:
		e.message = "Not Found"
	case status >= 500:
		e.message = "Server Error"
	default:
		e.message = http.StatusText(status)
	}
	if f.Message != "" {
		e.message = f.Message
	}
	if retry > 0 {
		e.header["Retry-After"] = strconv.Itoa(int(math.Ceil(retry.Seconds())))
	}
	return e
}

func primaryLimitMessage(who caller) string {
	switch who.kind {
	case callerToken:
		return fmt.Sprintf("API rate limit exceeded for installation ID %d.", who.inst.id)
	case callerApp:
		return fmt.Sprintf("API rate limit exceeded for app ID %d.", who.app.id)
	}
	return fmt.Sprintf("API rate limit exceeded for %s. (But here's the good news: Authenticated requests get a higher rate limit. Check out the documentation for more details.)", who.ip)
}
