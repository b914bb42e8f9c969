package main

import (
	"errors"
	"flag"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/shipgate-app/shipgate/policy"
)

// envName finds the environment variables a flag's usage names, such as
// "(SHIPGATE_WORKERS)": the first one is the flag's own variable, the others
// alternatives (SHIPGATE_PRIVATE_KEY beside SHIPGATE_PRIVATE_KEY_FILE).
var envName = regexp.MustCompile(`SHIPGATE_[A-Z0-9_]+`)

// checkEnv holds the SHIPGATE_* environment to the flags of fs, after the
// flags are parsed: every SHIPGATE_* variable must be one a flag names (a
// typo such as SHIPGATE_WROKERS is an error with a suggestion, never
// ignored), and the value of each variable whose flag was not given on the
// command line must parse as the flag's type (SHIPGATE_WORKERS=abc is an
// error naming it, never the silent default). An empty value counts as
// unset. environ is os.Environ().
func checkEnv(fs *flag.FlagSet, environ []string) error {
	known := map[string]bool{}
	flagOf := map[string]*flag.Flag{}
	fs.VisitAll(func(f *flag.Flag) {
		for i, n := range envName.FindAllString(f.Usage, -1) {
			known[n] = true
			if _, taken := flagOf[n]; i == 0 && !taken {
				flagOf[n] = f
			}
		}
	})
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	names := make([]string, 0, len(known))
	for n := range known {
		names = append(names, n)
	}
	sort.Strings(names)
	env := append([]string(nil), environ...)
	sort.Strings(env)
	var errs []error
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		if !strings.HasPrefix(k, "SHIPGATE_") {
			continue
		}
		if !known[k] {
			msg := fmt.Sprintf("unknown environment variable %s", k)
			if s := closestName(k, names); s != "" {
				msg += fmt.Sprintf(" (did you mean %s?)", s)
			}
			errs = append(errs, errors.New(msg+"; 'shipgate "+fs.Name()+" -h' lists the variables it reads"))
			continue
		}
		f := flagOf[k]
		if f == nil || given[f.Name] || v == "" {
			continue
		}
		if err := parsesAs(f, v); err != nil {
			errs = append(errs, fmt.Errorf("environment variable %s=%q: %v (it sets --%s)", k, v, err, f.Name))
		}
	}
	return errors.Join(errs...)
}

// parsesAs checks that v is a valid value of the flag's type, without
// setting it (the flag's default already came from the variable).
func parsesAs(f *flag.Flag, v string) error {
	g, ok := f.Value.(flag.Getter)
	if !ok {
		return nil
	}
	var err error
	switch g.Get().(type) {
	case int:
		_, err = strconv.Atoi(v)
		if err != nil {
			err = errors.New("not a whole number")
		}
	case int64:
		_, err = strconv.ParseInt(v, 10, 64)
		if err != nil {
			err = errors.New("not a whole number")
		}
	case uint, uint64:
		_, err = strconv.ParseUint(v, 10, 64)
		if err != nil {
			err = errors.New("not a non-negative whole number")
		}
	case float64:
		_, err = strconv.ParseFloat(v, 64)
		if err != nil {
			err = errors.New("not a number")
		}
	case bool:
		_, err = strconv.ParseBool(v)
		if err != nil {
			err = errors.New("use true or false")
		}
	case time.Duration:
		_, err = time.ParseDuration(v)
		if err != nil {
			err = errors.New("not a duration such as 30s or 2m")
		}
	}
	return err
}

// closestName is the candidate nearest to s by edit distance
// (policy.EditDistance, a swap of neighbours counting one), if it is near
// enough to be a typo (at most a third of s's length, and 3 edits).
func closestName(s string, candidates []string) string {
	best, bestD := "", -1
	for _, c := range candidates {
		if d := policy.EditDistance(strings.ToLower(s), strings.ToLower(c)); bestD < 0 || d < bestD {
			best, bestD = c, d
		}
	}
	if bestD < 0 || bestD > 3 || bestD*3 > len(s) {
		return ""
	}
	return best
}

// flagSuggestion returns " (did you mean --X?)" for an unknown-flag error
// of the flag package when fs has a flag near the mistyped name.
func flagSuggestion(fs *flag.FlagSet, err error) string {
	const prefix = "flag provided but not defined: -"
	msg := err.Error()
	if !strings.HasPrefix(msg, prefix) {
		return ""
	}
	typed := strings.TrimLeft(strings.TrimPrefix(msg, prefix), "-")
	var names []string
	fs.VisitAll(func(f *flag.Flag) { names = append(names, f.Name) })
	if s := closestName(typed, names); s != "" {
		return fmt.Sprintf("did you mean --%s?", s)
	}
	return ""
}
