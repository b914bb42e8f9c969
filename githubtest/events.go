package githubtest

import (
	"fmt"
	"strings"
)

// SubmitReview submits a review of a pull request by user, with state
// APPROVED, CHANGES_REQUESTED or COMMENTED, on commitID (default: the
// current head), and sends pull_request_review.submitted. It returns the
// review ID and the delivery GUID.
func (s *Server) SubmitReview(owner, repo string, number int, user, state, commitID string) (int64, string, error) {
	state = strings.ToUpper(state)
	if state != "APPROVED" && state != "CHANGES_REQUESTED" && state != "COMMENTED" {
		return 0, "", fmt.Errorf("githubtest: submit review: state %q is not APPROVED, CHANGES_REQUESTED or COMMENTED", state)
	}
	s.mu.Lock()
	pr, err := s.pullLocked(owner, repo, number)
	if err != nil {
		s.mu.Unlock()
		return 0, "", err
	}
	if commitID == "" {
		commitID = pr.headSHA
	}
	now := s.now()
	rv := &review{id: s.st.next("review"), user: s.st.ensureAccount(actorOr(user), "User", now), state: state,
		commitID: strings.ToLower(commitID), submittedAt: now}
	pr.reviews = append(pr.reviews, rv)
	ev := event{name: "pull_request_review", action: "submitted", template: "pull_request_review.submitted",
		repo: pr.repo, sender: rv.user,
		fields: map[string]any{"review": s.reviewWebhookJSON(pr, rv), "pull_request": s.webhookPR(pr)}}
	out, err := s.emit(ev, nil)
	s.mu.Unlock()
	if err != nil {
		return rv.id, "", err
	}
	return rv.id, s.deliver(out...), nil
}

// DismissReview dismisses a review (its state becomes DISMISSED) on behalf
// of DefaultActor and sends pull_request_review.dismissed.
func (s *Server) DismissReview(owner, repo string, number int, reviewID int64) (string, error) {
	s.mu.Lock()
	pr, err := s.pullLocked(owner, repo, number)
	if err != nil {
		s.mu.Unlock()
		return "", err
	}
	var rv *review
	for _, r := range pr.reviews {
		if r.id == reviewID {
			rv = r
		}
	}
	if rv == nil {
		s.mu.Unlock()
		return "", fmt.Errorf("githubtest: dismiss review: no review %d on %s/%s#%d", reviewID, owner, repo, number)
	}
	rv.state = "DISMISSED"
	ev := event{name: "pull_request_review", action: "dismissed", template: "pull_request_review.dismissed",
		repo: pr.repo, sender: s.st.ensureAccount(DefaultActor, "User", s.now()),
		fields: map[string]any{"review": s.reviewWebhookJSON(pr, rv), "pull_request": s.webhookPR(pr)}}
	out, err := s.emit(ev, nil)
	s.mu.Unlock()
	if err != nil {
		return "", err
	}
	return s.deliver(out...), nil
}

// RerequestCheckRun does what "Re-run" on a check run does: it sends
// check_run.rerequested, to the app that created the run only.
func (s *Server) RerequestCheckRun(checkRunID int64, sender string) (string, error) {
	return s.checkRunEvent(checkRunID, "rerequested", "", sender)
}

// RequestCheckRunAction does what clicking a check run's action button
// does: it sends check_run.requested_action with requested_action.identifier.
func (s *Server) RequestCheckRunAction(checkRunID int64, identifier, sender string) (string, error) {
	return s.checkRunEvent(checkRunID, "requested_action", identifier, sender)
}

func (s *Server) checkRunEvent(id int64, action, identifier, sender string) (string, error) {
	s.mu.Lock()
	cr := s.st.runs[id]
	if cr == nil {
		s.mu.Unlock()
		return "", fmt.Errorf("githubtest: %s: no check run %d", action, id)
	}
	if action == "requested_action" {
		known := false
		for _, a := range cr.actions {
			known = known || a.Identifier == identifier
		}
		if !known {
			s.mu.Unlock()
			return "", fmt.Errorf("githubtest: requested action: check run %d has no action %q", id, identifier)
		}
	}
	ev := event{name: "check_run", action: action, template: "check_run." + action, repo: cr.repo,
		sender: s.st.ensureAccount(actorOr(sender), "User", s.now()),
		fields: map[string]any{"check_run": s.checkRunWebhookJSON(cr)}}
	if action == "requested_action" {
		ev.set = map[string]any{"requested_action": map[string]any{"identifier": identifier}}
	}
	out, err := s.emit(ev, cr.app)
	s.mu.Unlock()
	if err != nil {
		return "", err
	}
	return s.deliver(out...), nil
}

// RerequestCheckSuite does what "Re-run all checks" does: it sends
// check_suite.rerequested for the primary app's suite on headSHA (created
// if the app has posted no run there yet) to that app.
func (s *Server) RerequestCheckSuite(owner, repo, headSHA, sender string) (string, error) {
	s.mu.Lock()
	r := s.st.repo(owner, repo)
	sha := strings.ToLower(headSHA)
	if r == nil || !r.known[sha] {
		s.mu.Unlock()
		return "", fmt.Errorf("githubtest: rerequest check suite: no commit %s in %s/%s", headSHA, owner, repo)
	}
	a := s.st.apps[s.st.primaryAppID]
	now := s.now()
	cs := s.st.suiteFor(r, a, sha, now)
	cs.updatedAt = now
	ev := event{name: "check_suite", action: "rerequested", template: "check_suite.rerequested", repo: r,
		sender: s.st.ensureAccount(actorOr(sender), "User", now),
		fields: map[string]any{"check_suite": s.checkSuiteJSON(cs)}}
	out, err := s.emit(ev, a)
	s.mu.Unlock()
	if err != nil {
		return "", err
	}
	return s.deliver(out...), nil
}
