package githubtest

import (
	"sort"
	"strconv"
	"strings"
	"time"
)

// Annotation is one check-run annotation as the app sent it.
type Annotation struct {
	Path            string `json:"path"`                   // file path in the repository
	StartLine       int    `json:"start_line"`             // first line, from 1
	EndLine         int    `json:"end_line"`               // last line
	StartColumn     *int   `json:"start_column,omitempty"` // only when StartLine == EndLine
	EndColumn       *int   `json:"end_column,omitempty"`   // only when StartLine == EndLine
	AnnotationLevel string `json:"annotation_level"`       // notice, warning or failure
	Message         string `json:"message"`                // up to 64 KB
	Title           string `json:"title,omitempty"`        // up to 255 characters
	RawDetails      string `json:"raw_details,omitempty"`  // up to 64 KB
}

// CheckRunAction is one requested-action button of a check run.
type CheckRunAction struct {
	Label       string `json:"label"`       // button text, up to 20 characters
	Description string `json:"description"` // up to 40 characters
	Identifier  string `json:"identifier"`  // sent back in requested_action, up to 20 characters
}

// CheckRun is a snapshot of a check run with its full output: what a test
// asserts on after the app has published.
type CheckRun struct {
	ID             int64            // the run's ID
	CheckSuiteID   int64            // the suite of (app, repository, head SHA)
	AppID          int64            // the app whose installation token created the run
	InstallationID int64            // the installation whose token created the run
	Owner, Repo    string           // the repository
	Name           string           // the check's name
	HeadSHA        string           // the commit checked
	ExternalID     string           // the app's reference
	DetailsURL     string           // as the app set it ("" when unset)
	Status         string           // queued, in_progress or completed
	Conclusion     string           // empty until completed
	StartedAt      time.Time        // as set, or creation time
	CompletedAt    time.Time        // zero until completed
	Title          string           // output.title, the latest sent
	Summary        string           // output.summary, the latest sent
	Text           string           // output.text, the latest sent
	Annotations    []Annotation     // every annotation, appended across requests
	Actions        []CheckRunAction // the requested-action buttons
	Requests       int              // create and update requests that changed the run
}

// CheckRunFilter selects check runs; zero fields match everything.
type CheckRunFilter struct {
	HeadSHA    string // runs on this commit
	Name       string // runs with this name
	PullNumber int    // runs on the pull request's current head
	AppID      int64  // runs created by this app
}

type checkSuite struct {
	id         int64
	repo       *repository
	app        *app
	headSHA    string
	headBranch string
	createdAt  time.Time
	updatedAt  time.Time
}

type checkRun struct {
	id             int64
	repo           *repository
	app            *app
	installationID int64
	suite          *checkSuite
	name           string
	headSHA        string
	externalID     string
	detailsURL     string
	status         string
	conclusion     string
	startedAt      time.Time
	completedAt    *time.Time
	title          *string
	summary        *string
	text           *string
	annotations    []Annotation
	images         []any
	actions        []CheckRunAction
	requests       int
}

// suiteFor returns app a's check suite for sha in r, creating it.
func (st *state) suiteFor(r *repository, a *app, sha string, now time.Time) *checkSuite {
	for _, cs := range st.suites {
		if cs.repo == r && cs.app == a && cs.headSHA == sha {
			return cs
		}
	}
	cs := &checkSuite{id: st.next("suite"), repo: r, app: a, headSHA: sha, createdAt: now, updatedAt: now}
	for _, b := range sortedKeys(r.branches) {
		if r.branches[b] == sha {
			cs.headBranch = b
			break
		}
	}
	st.suites[cs.id] = cs
	return cs
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// apply copies a validated body onto a run. Title, summary and text
// replace; annotations append; a conclusion completes the run.
func (cr *checkRun) apply(in *checkRunInput, now time.Time) {
	if in.name != nil {
		cr.name = *in.name
	}
	if in.detailsURL != nil {
		cr.detailsURL = *in.detailsURL
	}
	if in.externalID != nil {
		cr.externalID = *in.externalID
	}
	if in.status != nil {
		cr.status = *in.status
	}
	if in.conclusion != nil {
		cr.conclusion = *in.conclusion
		cr.status = "completed"
	}
	if in.startedAt != nil {
		cr.startedAt = *in.startedAt
	}
	if in.completedAt != nil {
		t := *in.completedAt
		cr.completedAt = &t
	}
	if cr.status == "completed" && cr.completedAt == nil {
		t := now
		cr.completedAt = &t
	}
	if o := in.output; o != nil {
		if o.title != nil {
			cr.title = o.title
		}
		if o.summary != nil {
			cr.summary = o.summary
		}
		if o.text != nil {
			cr.text = o.text
		}
		cr.annotations = append(cr.annotations, o.annotations...)
		if o.images != nil {
			cr.images = o.images
		}
	}
	if in.actionsGiven {
		cr.actions = in.actions
	}
	cr.requests++
}

func deref(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

func (cr *checkRun) snapshot() CheckRun {
	out := CheckRun{
		ID: cr.id, CheckSuiteID: cr.suite.id, AppID: cr.app.id, InstallationID: cr.installationID,
		Owner: cr.repo.owner.login, Repo: cr.repo.name, Name: cr.name, HeadSHA: cr.headSHA,
		ExternalID: cr.externalID, DetailsURL: cr.detailsURL, Status: cr.status, Conclusion: cr.conclusion,
		StartedAt: cr.startedAt, Title: deref(cr.title), Summary: deref(cr.summary), Text: deref(cr.text),
		Annotations: append([]Annotation(nil), cr.annotations...),
		Actions:     append([]CheckRunAction(nil), cr.actions...),
		Requests:    cr.requests,
	}
	if cr.completedAt != nil {
		out.CompletedAt = *cr.completedAt
	}
	return out
}

// CheckRuns returns the check runs of owner/repo that match f, oldest
// first, with their full output and every annotation.
func (s *Server) CheckRuns(owner, repo string, f CheckRunFilter) []CheckRun {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.st.repo(owner, repo)
	if r == nil {
		return nil
	}
	head := strings.ToLower(f.HeadSHA)
	if f.PullNumber != 0 {
		pr := r.pulls[f.PullNumber]
		if pr == nil {
			return nil
		}
		head = pr.headSHA
	}
	var out []CheckRun
	for _, cr := range s.sortedRuns() {
		if cr.repo != r || (head != "" && cr.headSHA != head) || (f.Name != "" && cr.name != f.Name) || (f.AppID != 0 && cr.app.id != f.AppID) {
			continue
		}
		out = append(out, cr.snapshot())
	}
	return out
}

// CheckRunByID returns one check run by ID.
func (s *Server) CheckRunByID(id int64) (CheckRun, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	cr := s.st.runs[id]
	if cr == nil {
		return CheckRun{}, false
	}
	return cr.snapshot(), true
}

func (s *Server) sortedRuns() []*checkRun {
	out := make([]*checkRun, 0, len(s.st.runs))
	for _, cr := range s.st.runs {
		out = append(out, cr)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].id < out[j].id })
	return out
}

// checkRunPulls lists the open pull requests whose head is sha in r itself:
// GitHub leaves pull_requests empty for fork heads.
func (s *Server) checkRunPulls(r *repository, sha, base string) []any {
	var nums []int
	for n, pr := range r.pulls {
		if pr.state == "open" && pr.headRepo == r && pr.headSHA == sha {
			nums = append(nums, n)
		}
	}
	sort.Ints(nums)
	out := []any{}
	for _, n := range nums {
		out = append(out, s.prMinimalJSON(r.pulls[n], base))
	}
	return out
}

// checkRunJSON renders check-run.
func (s *Server) checkRunJSON(cr *checkRun, base string) map[string]any {
	u := base + "/repos/" + cr.repo.fullName() + "/check-runs/" + strconv.FormatInt(cr.id, 10)
	details := cr.detailsURL
	if details == "" {
		details = cr.app.externalURL
	}
	var title, summary, text any
	if cr.title != nil {
		title = *cr.title
	}
	if cr.summary != nil {
		summary = *cr.summary
	}
	if cr.text != nil {
		text = *cr.text
	}
	var conclusion any
	if cr.conclusion != "" {
		conclusion = cr.conclusion
	}
	return map[string]any{
		"id":           cr.id,
		"name":         cr.name,
		"node_id":      nodeID("CR", cr.id),
		"head_sha":     cr.headSHA,
		"external_id":  cr.externalID,
		"url":          u,
		"html_url":     s.opts.HTMLURL + "/" + cr.repo.fullName() + "/runs/" + strconv.FormatInt(cr.id, 10),
		"details_url":  details,
		"status":       cr.status,
		"conclusion":   conclusion,
		"started_at":   ts(cr.startedAt),
		"completed_at": tsOrNil(cr.completedAt),
		"output": map[string]any{
			"title":             title,
			"summary":           summary,
			"text":              text,
			"annotations_count": len(cr.annotations),
			"annotations_url":   u + "/annotations",
		},
		"check_suite":   map[string]any{"id": cr.suite.id},
		"app":           s.appJSON(cr.app, base),
		"pull_requests": s.checkRunPulls(cr.repo, cr.headSHA, base),
	}
}

// annotationJSON renders check-annotation.
func (s *Server) annotationJSON(cr *checkRun, a Annotation) map[string]any {
	intOrNil := func(p *int) any {
		if p == nil {
			return nil
		}
		return *p
	}
	return map[string]any{
		"path":             a.Path,
		"blob_href":        s.opts.HTMLURL + "/" + cr.repo.fullName() + "/blob/" + cr.headSHA + "/" + escapePath(a.Path),
		"start_line":       a.StartLine,
		"end_line":         a.EndLine,
		"start_column":     intOrNil(a.StartColumn),
		"end_column":       intOrNil(a.EndColumn),
		"annotation_level": a.AnnotationLevel,
		"title":            strOrNil(a.Title),
		"message":          a.Message,
		"raw_details":      strOrNil(a.RawDetails),
	}
}
