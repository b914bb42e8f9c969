package app

import (
	"context"
	"fmt"
	"strings"

	"github.com/google/go-github/v62/github"

	"github.com/shipgate-app/shipgate/report"
)

// maxSuggestionComments bounds the review comments one run posts: each is
// a content-creating request, within GitHub's 80 a minute and 500 an hour
// per App; the rest stay in the summary and the JSON report.
const maxSuggestionComments = 10

// suggestionMarker identifies a posted suggestion independently of the
// head (report.SuggestionMarker: the file, the line and the edit). A re-run of
// the same head (or a push that leaves the line alone) finds it and posts
// nothing new.
func suggestionMarker(sg report.Suggestion) report.SuggestionMarker {
	return report.SuggestionMarkerOf(sg.Path, sg.Line, sg.Before, sg.After)
}

// suggestionBody is the review comment of a suggestion: what it replaces,
// GitHub's suggested-change block (one click applies it on the PR), the
// lattice's proof in a sentence, and the marker.
func suggestionBody(sg report.Suggestion) string {
	fence := "```"
	for strings.Contains(sg.After, fence) {
		fence += "`"
	}
	rules := make([]string, len(sg.Rules))
	for i, r := range sg.Rules {
		rules[i] = "`" + strings.ReplaceAll(r, "`", "'") + "`"
	}
	return fmt.Sprintf("**Shipgate: a narrower rule is enough.** Replace `%s` with %s.\n\n%ssuggestion\n%s\n%s\n\n%s",
		strings.ReplaceAll(sg.Rule, "`", "'"), strings.Join(rules, " and "), fence, sg.After, fence, sg.Why) + report.Trailer(suggestionMarker(sg))
}

// postSuggestions posts each suggestion of the report as a pull-request
// review comment on its line of the head commit, once: comments already
// on the pull request (found by their marker) are not posted again.
// Failures are logged, not returned: the check run is complete and carries
// every suggestion in its summary; a missing pull_requests write
// permission (an installation that has not accepted it yet) or a line
// GitHub will not comment on costs only the comment.
func (p *Worker) postSuggestions(ctx context.Context, cl *github.Client, ev *evaluation, r report.Report) {
	if len(r.Suggestions) == 0 || ev.pr == nil {
		return
	}
	log := p.log(ctx)
	posted, err := p.postedSuggestions(ctx, cl, ev)
	if err != nil {
		log.Warn("could not list the pull request's review comments; suggestions stay in the summary", "error", err)
		return
	}
	n := 0
	for _, sg := range r.Suggestions {
		if posted[suggestionMarker(sg)] {
			continue
		}
		if n == maxSuggestionComments {
			log.Info("more suggestions than one run posts; the rest are in the summary", "suggestions", len(r.Suggestions))
			break
		}
		_, _, err := cl.PullRequests.CreateComment(ctx, ev.owner, ev.repo, ev.pr.GetNumber(), &github.PullRequestComment{
			Body: github.String(suggestionBody(sg)), CommitID: github.String(ev.head), Path: github.String(sg.Path),
			Line: github.Int(sg.Line), Side: github.String("RIGHT"),
		})
		if err != nil {
			log.Warn("could not post a suggestion as a review comment; it stays in the summary", "path", sg.Path, "line", sg.Line, "error", err)
			continue
		}
		n++
	}
}

// postedSuggestions returns the markers of the suggestions this App already
// posted on the pull request (postedByApp: a marker quoted by anyone else
// does not count).
func (p *Worker) postedSuggestions(ctx context.Context, cl *github.Client, ev *evaluation) (map[report.SuggestionMarker]bool, error) {
	out := map[report.SuggestionMarker]bool{}
	opts := &github.PullRequestListCommentsOptions{ListOptions: github.ListOptions{PerPage: 100}}
	for {
		cs, resp, err := cl.PullRequests.ListComments(ctx, ev.owner, ev.repo, ev.pr.GetNumber(), opts)
		if err != nil {
			return nil, fmt.Errorf("listing the review comments of pull request #%d: %w", ev.pr.GetNumber(), err)
		}
		for _, c := range cs {
			if !p.postedByApp(c.GetUser()) {
				continue
			}
			for _, m := range report.ParseMarkers(c.GetBody()).Suggestions {
				out[m] = true
			}
		}
		if resp.NextPage == 0 {
			return out, nil
		}
		opts.Page = resp.NextPage
	}
}

// postedByApp reports whether a review comment's author is this App's bot
// user (Config.BotLogin), or, while the App's slug is not known, any bot.
func (p *Worker) postedByApp(u *github.User) bool {
	if p.cfg.BotLogin != nil {
		if bot := p.cfg.BotLogin(); bot != "" {
			return strings.EqualFold(u.GetLogin(), bot)
		}
	}
	return u.GetType() == "Bot"
}
