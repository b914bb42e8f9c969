package main

import (
	"slices"
	"testing"
	"time"

	"github.com/shipgate-app/shipgate/app"
)

func TestParseWritePace(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []app.WritePace
		err  bool
	}{
		{"", app.GitHubWritePace, false},
		{"off", nil, false},
		{"0", nil, false},
		{"75/1m,480/1h", []app.WritePace{{Per: time.Minute, N: 75}, {Per: time.Hour, N: 480}}, false},
		{" 10 / 2s ", []app.WritePace{{Per: 2 * time.Second, N: 10}}, false},
		{"75", nil, true},
		{"0/1m", nil, true},
		{"-1/1m", nil, true},
		{"5/10ms", nil, true},
		{"5/48h", nil, true},
		{"5/1m,", nil, true},
		{"x/1m", nil, true},
	} {
		got, err := parseWritePace(tc.in)
		if (err != nil) != tc.err || !slices.Equal(got, tc.want) {
			t.Errorf("parseWritePace(%q) = %v, %v; want %v, error %v", tc.in, got, err, tc.want, tc.err)
		}
	}
}

func FuzzParseWritePace(f *testing.F) {
	for _, s := range []string{"", "off", "75/1m,480/1h", "1/1s", "5/1m,", "9999999/24h"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		ws, err := parseWritePace(s)
		if err != nil {
			return
		}
		for _, w := range ws {
			if w.N <= 0 || w.Per < time.Second || w.Per > 24*time.Hour {
				t.Fatalf("parseWritePace(%q) accepted the window %+v", s, w)
			}
		}
	})
}
