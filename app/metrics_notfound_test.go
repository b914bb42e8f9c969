package app

import (
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
)

// TestRoutineNotFoundIsNotAnError: a 404 on a file read (no policy file) is
// counted as a request but not as an error; a 404 anywhere else, a 5xx or a
// 404 on a write still is.
func TestRoutineNotFoundIsNotAnError(t *testing.T) {
	cases := []struct {
		name, method, path string
		code               int
		wantErrors         float64
	}{
		{"no policy file", http.MethodGet, "/repos/acme/web/contents/.github/shipgate.yml", 404, 0},
		{"GHES prefix", http.MethodGet, "/api/v3/repos/acme/web/contents/.claude/settings.json", 404, 0},
		{"file read ok", http.MethodGet, "/repos/acme/web/contents/.github/shipgate.yml", 200, 0},
		{"file read 500", http.MethodGet, "/repos/acme/web/contents/.github/shipgate.yml", 500, 1},
		{"file read 403", http.MethodGet, "/repos/acme/web/contents/.github/shipgate.yml", 403, 1},
		{"pull request gone", http.MethodGet, "/repos/acme/web/pulls/7", 404, 1},
		{"check run 404", http.MethodPatch, "/repos/acme/web/check-runs/9", 404, 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m, err := NewAPIMetrics(prometheus.NewRegistry())
			if err != nil {
				t.Fatal(err)
			}
			tr := &Transport{Attempts: 1, Metrics: m, Base: rtFunc(func(*http.Request) (*http.Response, error) {
				return &http.Response{StatusCode: c.code, Header: http.Header{}, Body: io.NopCloser(strings.NewReader("{}"))}, nil
			})}
			req, _ := http.NewRequest(c.method, "https://api.github.com"+c.path, nil)
			resp, err := tr.RoundTrip(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			ep := Endpoint(req.URL.Path)
			if got := counterValue(t, m.Errors.WithLabelValues(ep)); got != c.wantErrors {
				t.Errorf("errors{endpoint=%s} = %v, want %v", ep, got, c.wantErrors)
			}
			if got := counterValue(t, m.Requests.WithLabelValues(ep, c.method, strconv.Itoa(c.code))); got != 1 {
				t.Errorf("requests{endpoint=%s,code=%d} = %v, want 1", ep, c.code, got)
			}
		})
	}
}

type rtFunc func(*http.Request) (*http.Response, error)

func (f rtFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

func counterValue(t *testing.T, c prometheus.Counter) float64 {
	t.Helper()
	var m dto.Metric
	if err := c.Write(&m); err != nil {
		t.Fatal(err)
	}
	return m.GetCounter().GetValue()
}
