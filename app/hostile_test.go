package app

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/shipgate-app/shipgate/report"
)

// TestEvaluateInputBound: a pull request whose agent-config files add up
// to far more than report.MaxInputBytes (40 settings files of ~1 MiB,
// edited: 80 MiB at base and head) gets a blocking check run whose
// finding names the files not read; the App reads only what its bound
// allows for the engine. The peak heap of the evaluation is logged (the
// figure in docs/checks.md).
func TestEvaluateInputBound(t *testing.T) {
	if testing.Short() {
		t.Skip("reads 80 MiB through the stub")
	}
	const n = 40
	file := func(i int, allow string) string {
		s := fmt.Sprintf(`{"permissions":{"allow":[%q],"deny":["Read(.env)"]},"pad":"`, allow)
		return s + strings.Repeat("a", report.MaxFileSize-100-len(s)) + `"}`
	}
	s := &stubGitHub{base: map[string]string{}, head: map[string]string{}}
	for i := 0; i < n; i++ {
		p := fmt.Sprintf("p%02d/.claude/settings.json", i)
		s.base[p] = file(i, "Bash(npm test)")
		s.head[p] = file(i, "Bash(*)")
	}
	w, cl, _ := stubWorker(t, s)
	var peak atomic.Uint64
	done := make(chan struct{})
	go func() {
		var m runtime.MemStats
		for {
			select {
			case <-done:
				return
			case <-time.After(5 * time.Millisecond):
				runtime.ReadMemStats(&m)
				if m.HeapInuse > peak.Load() {
					peak.Store(m.HeapInuse)
				}
			}
		}
	}()
	runtime.GC()
	var m0 runtime.MemStats
	runtime.ReadMemStats(&m0)
	err := w.evaluatePR(context.Background(), cl, Job{Kind: KindEvaluatePR, Owner: "o", Repo: "r", PRNumber: 1, HeadSHA: stubHead}, 1)
	close(done)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("heap in use before %d MiB, peak %d MiB; %d API calls", m0.HeapInuse>>20, peak.Load()>>20, len(s.calls))
	if len(s.posts) != 1 || s.posts[0]["conclusion"] != "failure" {
		t.Fatalf("check runs %v, want one failure", s.posts)
	}
	out := s.posts[0]["output"].(map[string]any)
	text := fmt.Sprint(out["summary"], out["text"])
	if !strings.Contains(text, "not read") || !strings.Contains(text, "p39/.claude/settings.json") && !strings.Contains(text, "more") {
		t.Errorf("the run does not name the files not read:\n%s", text)
	}
}
