package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// runProbe is `shipgate probe URL`: one GET, exit 0 when the answer is 2xx
// and 1 otherwise, printing the status and the start of the body. The image
// is distroless (no shell, no curl), so the chart's `helm test` hook and
// container health checks run the image's own binary with this.
func runProbe(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	fs := newFlagSet("probe", "URL [--timeout D]   (exit 0 on a 2xx answer, 1 otherwise)", stderr)
	timeout := fs.Duration("timeout", 10*time.Second, "give up after this long")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return flagError(err)
	}
	if len(pos) != 1 {
		return usageError(stderr, "probe", "give one URL, got %d", len(pos))
	}
	u, err := url.Parse(pos[0])
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return usageError(stderr, "probe", "%q is not an http:// or https:// URL", pos[0])
	}
	if *timeout <= 0 {
		return usageError(stderr, "probe", "--timeout %s: use a positive duration", *timeout)
	}
	ctx, cancel := context.WithTimeout(context.Background(), *timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return usageError(stderr, "probe", "%v", err)
	}
	req.Header.Set("User-Agent", "shipgate-probe/"+version)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		fmt.Fprintf(stderr, "shipgate probe: GET %s: %v\n", u.Redacted(), err)
		return exitFail
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 2048))
	line := strings.TrimSpace(string(body))
	fmt.Fprintf(stdout, "GET %s: %s %s\n", u.Redacted(), resp.Status, line)
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return exitFail
	}
	return exitOK
}
