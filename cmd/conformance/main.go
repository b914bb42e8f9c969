// Command conformance holds Shipgate's model to the pinned Claude Code
// binary: it generates a corpus of (settings, call) decisions, asks Claude
// Code (offline, against a fake Messages API) and the engine's effective
// view, prints the agreement per class and every disagreement, and exits 1
// on any disagreement internal/conformance/known.txt does not list.
//
//	go run ./cmd/conformance [-seed N] [-n DECISIONS] [-workers W] [-bin PATH]
//	go run ./cmd/conformance -agent codex|gemini [-seed N] [-n DECISIONS]
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/shipgate-app/shipgate/internal/conformance"
)

func main() {
	seed := flag.Uint64("seed", 1, "corpus seed (the same seed gives the same corpus)")
	n := flag.Int("n", 24000, "about how many decisions to generate")
	workers := flag.Int("workers", 2, "Claude Code sessions run at a time")
	bin := flag.String("bin", "", "claude executable (default: $"+conformance.BinaryEnv+", else the pinned package in the cache; make claude-code installs it)")
	all := flag.Bool("all", false, "print every known disagreement, not a few of each group")
	record := flag.String("record", "", "write a sample of the measured decisions as table rows to this file")
	recordAll := flag.Bool("record-all", false, "with -record: write every decision, not a few of each group")
	dump := flag.String("dump", "", "write every decision of both sides, with Claude Code's result text, to this file (JSON lines)")
	class := flag.String("class", "", "run only the batches of the corpus classes matching this glob (bash-*, bypass)")
	realPairs := flag.String("real-pairs", "", "ask Claude Code about the witnesses Shipgate printed on real pull requests: the JSON lines internal/accuracy -witness-pairs writes (each witness must run under the head's settings and not under the base's)")
	replay := flag.String("replay", "", "judge the rows of this file (written by -record) with the engine as it is now, without running Claude Code; with -record, write a sample of them")
	flag.Parse()
	if handled, err := runAgent(*seed, *n, *workers, *all); handled {
		if err != nil {
			fmt.Fprintln(os.Stderr, "conformance:", err)
			os.Exit(1)
		}
		return
	}
	if *realPairs != "" {
		if err := runRealPairs(*realPairs, *workers, *bin); err != nil {
			fmt.Fprintln(os.Stderr, "conformance:", err)
			os.Exit(1)
		}
		return
	}
	if *replay != "" {
		if err := replayRows(*replay, *all, *record); err != nil {
			fmt.Fprintln(os.Stderr, "conformance:", err)
			os.Exit(1)
		}
		return
	}
	perGroup := conformance.RowsPerGroup
	if *recordAll {
		perGroup = -1
	}
	if err := run(*seed, *n, *workers, *bin, *all, *record, perGroup, *dump, *class); err != nil {
		fmt.Fprintln(os.Stderr, "conformance:", err)
		os.Exit(1)
	}
}

// replayRows judges recorded rows again and prints the report.
func replayRows(path string, all bool, record string) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	rows, err := conformance.ParseRows(data)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	known, err := conformance.KnownDisagreements()
	if err != nil {
		return err
	}
	r := conformance.Replay(rows, known)
	examples := 3
	if all {
		examples = -1
	}
	r.Write(os.Stdout, examples)
	if record != "" {
		if err := os.WriteFile(record, []byte(r.Rows(0, conformance.RowsPerGroup)), 0o644); err != nil {
			return fmt.Errorf("write %s: %w", record, err)
		}
	}
	if r.Failed() {
		return fmt.Errorf("the recorded Claude Code %s decisions and Shipgate disagree (see above)", r.Version)
	}
	return nil
}

func run(seed uint64, n, workers int, bin string, all bool, record string, perGroup int, dump, class string) error {
	if bin == "" {
		bin = conformance.FindBinary()
	}
	if bin == "" {
		return fmt.Errorf("no claude binary: run `make claude-code` (installs @anthropic-ai/claude-code@%s into %s) or set $%s",
			conformance.ClaudeCodeVersion, conformance.CacheDir(), conformance.BinaryEnv)
	}
	if err := conformance.CheckVersion(context.Background(), bin); err != nil {
		return err
	}
	known, err := conformance.KnownDisagreements()
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	batches := conformance.Generate(seed, n)
	if class != "" {
		batches = conformance.OnlyClasses(batches, class)
	}
	fmt.Fprintf(os.Stderr, "conformance: %d sessions, Claude Code %s at %s\n", len(batches), conformance.ClaudeCodeVersion, bin)
	r := conformance.Execute(ctx, conformance.Driver{Binary: bin}, batches, workers, known, func(done, total int) {
		fmt.Fprintf(os.Stderr, "\rconformance: %d/%d sessions", done, total)
	})
	fmt.Fprintln(os.Stderr)
	r.Seed = seed
	examples := 3
	if all {
		examples = -1
	}
	r.Write(os.Stdout, examples)
	if record != "" {
		if err := os.WriteFile(record, []byte(r.Rows(seed, perGroup)), 0o644); err != nil {
			return fmt.Errorf("write %s: %w", record, err)
		}
	}
	if dump != "" {
		if err := os.WriteFile(dump, r.Dump(), 0o644); err != nil {
			return fmt.Errorf("write %s: %w", dump, err)
		}
	}
	if r.Failed() {
		return fmt.Errorf("the pinned Claude Code %s and Shipgate disagree (see above)", conformance.ClaudeCodeVersion)
	}
	return nil
}

// runRealPairs asks Claude Code about every witness Shipgate printed on
// the real pull requests of file, under each pair's own settings files,
// and prints the witnesses that do not newly run.
func runRealPairs(file string, workers int, bin string) error {
	data, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	pairs, err := conformance.ReadRealPairs(data)
	if err != nil {
		return fmt.Errorf("%s: %w", file, err)
	}
	if bin == "" {
		bin = conformance.FindBinary()
	}
	if bin == "" {
		return fmt.Errorf("no claude binary: run `make claude-code` or set $%s", conformance.BinaryEnv)
	}
	if err := conformance.CheckVersion(context.Background(), bin); err != nil {
		return err
	}
	batches, skipped := conformance.RealWitnessBatches(pairs)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	fmt.Fprintf(os.Stderr, "conformance: %d real pairs, %d with witnesses the harness can call (%d witnesses left out: a program named by a path, an expansion, a file outside the session)\n", len(pairs), len(batches), skipped)
	r := conformance.Execute(ctx, conformance.Driver{Binary: bin}, batches, workers, nil, func(done, total int) {
		fmt.Fprintf(os.Stderr, "\rconformance: %d/%d pairs", done, total)
	})
	fmt.Fprintln(os.Stderr)
	var runs, not, unread int
	for _, o := range r.Outcomes {
		switch o.Claude {
		case conformance.Allow:
			runs++
		case conformance.Unclassified:
			unread++
			fmt.Printf("unread      %s  %s  %s\n", r.Batches[o.Batch].Name, o.Case.Call, o.ClaudeText)
		default:
			not++
			fmt.Printf("NOT NEWLY   %s  %s  %s\n", r.Batches[o.Batch].Name, o.Case.Call, o.ClaudeText)
		}
	}
	for _, e := range r.Errors {
		fmt.Println("error:", e)
	}
	fmt.Printf("real pairs: %d witnesses asked in %d pairs: %d newly run, %d do not, %d measured nothing\n", runs+not+unread, len(batches), runs, not, unread)
	if not > 0 || len(r.Errors) > 0 {
		return fmt.Errorf("%d printed witnesses do not newly run in Claude Code %s", not, conformance.ClaudeCodeVersion)
	}
	return nil
}
