package githubtest

import (
	"bytes"
	"embed"
	"encoding/json"
	"fmt"
	"strings"
	"time"
)

// payloadFiles are real GitHub webhook payloads (see scripts/
// extract-webhook-examples.mjs). Each delivery starts from one of them and
// has its identifying fields overwritten, so it keeps GitHub's shape.
//
//go:embed payloads/*.json
var payloadFiles embed.FS

// loadTemplate returns a fresh decoded copy of payloads/<name>.json.
func loadTemplate(name string) (map[string]any, error) {
	raw, err := payloadFiles.ReadFile("payloads/" + name + ".json")
	if err != nil {
		return nil, fmt.Errorf("githubtest: payload template %s: %w", name, err)
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		return nil, fmt.Errorf("githubtest: payload template %s: %w", name, err)
	}
	return m, nil
}

// overlay lays mine over the template value t: objects merge key by key
// (the template's keys, with mine's values where it has them, plus mine's
// other keys, which newer payloads have and the older examples lack);
// anything else is replaced by mine.
func overlay(t, mine any) any {
	tm, tObj := t.(map[string]any)
	mm, mObj := mine.(map[string]any)
	if !tObj || !mObj {
		return mine
	}
	out := make(map[string]any, len(tm)+len(mm))
	for k, tv := range tm {
		if mv, ok := mm[k]; ok {
			out[k] = overlay(tv, mv)
		} else {
			out[k] = tv
		}
	}
	for k, mv := range mm {
		if _, ok := tm[k]; !ok {
			out[k] = mv
		}
	}
	return out
}

// event is the identity of a delivery being built.
type event struct {
	name     string // X-GitHub-Event
	action   string
	template string
	repo     *repository   // the repository the event is about (nil for installation)
	inst     *installation // the installation itself, for installation events
	sender   *account
	fields   map[string]any // top-level fields overlaid on the template
	set      map[string]any // top-level fields replacing the template's
	post     func(p map[string]any)
}

// build renders the delivery payload for inst (nil: no installation key).
// Callers hold s.mu.
func (s *Server) build(ev event, inst *installation) ([]byte, error) {
	p, err := loadTemplate(ev.template)
	if err != nil {
		return nil, err
	}
	base := s.apiBaseLocked()
	mine := map[string]any{"sender": s.userJSON(ev.sender, base)}
	if ev.action != "" {
		mine["action"] = ev.action
	}
	if ev.repo != nil {
		mine["repository"] = s.repoJSON(ev.repo, base, false)
	}
	if inst != nil && ev.name != "installation" {
		mine["installation"] = map[string]any{"id": inst.id, "node_id": nodeID("IN", inst.id)}
	}
	for k, v := range ev.fields {
		mine[k] = v
	}
	for k, v := range mine {
		if tv, ok := p[k]; ok {
			p[k] = overlay(tv, v)
		} else {
			p[k] = v
		}
	}
	for k, v := range ev.set {
		if v == nil {
			delete(p, k)
			continue
		}
		p[k] = v
	}
	if ev.repo != nil {
		if ev.repo.owner.typ == "Organization" {
			org := s.orgJSON(ev.repo.owner, base)
			if tv, ok := p["organization"]; ok {
				p["organization"] = overlay(tv, org)
			} else {
				p["organization"] = org
			}
		} else {
			delete(p, "organization")
		}
	}
	if inst == nil && ev.name != "installation" {
		delete(p, "installation")
	}
	if ev.post != nil {
		ev.post(p)
	}
	out, err := json.Marshal(p)
	if err != nil {
		return nil, fmt.Errorf("githubtest: encode %s payload: %w", ev.name, err)
	}
	return out, nil
}

// emit builds ev for every app installed on the event's repository (or for
// inst's app) that subscribes to it, the primary app first. Callers hold
// s.mu.
func (s *Server) emit(ev event, only *app) ([]*outgoing, error) {
	type target struct {
		a  *app
		in *installation
	}
	var targets []target
	switch {
	case only != nil:
		in := ev.inst
		if in == nil && ev.repo != nil {
			in = s.st.installationFor(only, ev.repo)
		}
		targets = append(targets, target{only, in})
	case ev.repo != nil:
		seen := map[*app]bool{}
		for _, in := range s.st.sortedInstallations() {
			if in.covers(ev.repo) && !seen[in.app] {
				seen[in.app] = true
				t := target{in.app, in}
				if in.app.id == s.st.primaryAppID {
					targets = append([]target{t}, targets...)
				} else {
					targets = append(targets, t)
				}
			}
		}
	}
	var out []*outgoing
	for _, t := range targets {
		if !t.a.subscribed(ev.name) {
			continue
		}
		payload, err := s.build(ev, t.in)
		if err != nil {
			return nil, err
		}
		var instID, repoID int64
		if t.in != nil {
			instID = t.in.id
		}
		if ev.repo != nil {
			repoID = ev.repo.id
		}
		out = append(out, s.prepare(t.a, ev.name, ev.action, instID, repoID, payload))
	}
	return out, nil
}

// webhookPR renders a pull request as payloads carry it.
func (s *Server) webhookPR(pr *pullRequest) map[string]any {
	return s.prJSON(pr, s.apiBaseLocked(), true)
}

// commitJSON renders a commit as push and check_suite payloads carry it.
func (s *Server) commitJSON(r *repository, c *commit, added, removed, modified []string) map[string]any {
	who := map[string]any{
		"name":     c.author.login,
		"email":    c.author.login + "@users.noreply.github.com",
		"username": c.author.login,
	}
	m := map[string]any{
		"id":        c.sha,
		"tree_id":   c.tree,
		"distinct":  true,
		"message":   c.message,
		"timestamp": c.time.UTC().Format(time.RFC3339),
		"url":       s.opts.HTMLURL + "/" + r.fullName() + "/commit/" + c.sha,
		"author":    who,
		"committer": who,
	}
	if added != nil || removed != nil || modified != nil {
		m["added"], m["removed"], m["modified"] = nonNil(added), nonNil(removed), nonNil(modified)
	}
	return m
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// checkSuiteJSON renders a check suite as check_suite and check_run
// payloads carry it.
func (s *Server) checkSuiteJSON(cs *checkSuite) map[string]any {
	base := s.apiBaseLocked()
	status, conclusion := s.suiteOutcome(cs)
	before := zeroSHA
	var headCommit any
	if c := s.st.commits[cs.headSHA]; c != nil {
		if c.parent != "" {
			before = c.parent
		}
		hc := s.commitJSON(cs.repo, c, nil, nil, nil)
		delete(hc, "distinct")
		delete(hc, "url")
		headCommit = hc
	}
	runs := 0
	for _, cr := range s.st.runs {
		if cr.suite == cs {
			runs++
		}
	}
	u := base + "/repos/" + cs.repo.fullName() + "/check-suites/" + fmt.Sprint(cs.id)
	return map[string]any{
		"id":                      cs.id,
		"node_id":                 nodeID("CS", cs.id),
		"head_branch":             strOrNil(cs.headBranch),
		"head_sha":                cs.headSHA,
		"status":                  status,
		"conclusion":              conclusion,
		"url":                     u,
		"before":                  before,
		"after":                   cs.headSHA,
		"pull_requests":           s.checkRunPulls(cs.repo, cs.headSHA, base),
		"app":                     s.appJSON(cs.app, base),
		"created_at":              ts(cs.createdAt),
		"updated_at":              ts(cs.updatedAt),
		"latest_check_runs_count": runs,
		"check_runs_url":          u + "/check-runs",
		"head_commit":             headCommit,
		"rerequestable":           true,
		"runs_rerequestable":      true,
	}
}

// suiteOutcome aggregates a suite's runs as GitHub does: in progress while
// any run is, else the most severe conclusion.
func (s *Server) suiteOutcome(cs *checkSuite) (string, any) {
	severity := map[string]int{"skipped": 0, "success": 1, "neutral": 1, "stale": 2, "cancelled": 3, "timed_out": 4, "action_required": 5, "failure": 6}
	status, worst, found := "completed", "", false
	for _, cr := range s.st.runs {
		if cr.suite != cs {
			continue
		}
		found = true
		if cr.status != "completed" {
			status = "in_progress"
			continue
		}
		if worst == "" || severity[cr.conclusion] > severity[worst] {
			worst = cr.conclusion
		}
	}
	if !found {
		return "queued", nil
	}
	if status != "completed" {
		return status, nil
	}
	if worst == "neutral" || worst == "skipped" {
		worst = "success"
	}
	return status, worst
}

// checkRunWebhookJSON renders a check run as check_run payloads carry it
// (with its full check suite).
func (s *Server) checkRunWebhookJSON(cr *checkRun) map[string]any {
	m := s.checkRunJSON(cr, s.apiBaseLocked())
	m["check_suite"] = s.checkSuiteJSON(cr.suite)
	return m
}

// reviewWebhookJSON renders a review as pull_request_review payloads carry
// it: the REST object with a lower-case state.
func (s *Server) reviewWebhookJSON(pr *pullRequest, rv *review) map[string]any {
	m := s.reviewJSON(pr, rv, s.apiBaseLocked())
	m["state"] = strings.ToLower(rv.state)
	return m
}
