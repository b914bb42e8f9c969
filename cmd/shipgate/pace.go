package main

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/shipgate-app/shipgate/app"
)

// parseWritePace reads --write-pace: comma-separated N/DURATION windows
// ("75/1m,480/1h": at most 75 check-run writes a minute and 480 an hour per
// installation), or "off" (unpaced: a GitHub Enterprise Server without
// secondary limits). Empty is the default, app.GitHubWritePace.
func parseWritePace(s string) ([]app.WritePace, error) {
	s = strings.TrimSpace(s)
	switch s {
	case "":
		return app.GitHubWritePace, nil
	case "off", "0":
		return nil, nil
	}
	var out []app.WritePace
	for _, part := range strings.Split(s, ",") {
		n, per, ok := strings.Cut(strings.TrimSpace(part), "/")
		if !ok {
			return nil, fmt.Errorf("write pace %q: write each window as N/DURATION (75/1m), or off", part)
		}
		count, err := strconv.Atoi(strings.TrimSpace(n))
		if err != nil || count <= 0 || count > 1_000_000 {
			return nil, fmt.Errorf("write pace %q: %q is not a positive count", part, n)
		}
		d, err := time.ParseDuration(strings.TrimSpace(per))
		if err != nil || d < time.Second || d > 24*time.Hour {
			return nil, fmt.Errorf("write pace %q: %q is not a duration from 1s to 24h", part, per)
		}
		out = append(out, app.WritePace{Per: d, N: count})
	}
	return out, nil
}
