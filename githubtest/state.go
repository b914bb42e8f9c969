package githubtest

import (
	"crypto/rsa"
	"encoding/base64"
	"fmt"
	"strings"
	"time"
)

// state is everything the fake knows. Every field is guarded by Server.mu.
type state struct {
	seq           map[string]int64
	apps          map[int64]*app
	primaryAppID  int64
	accounts      map[string]*account // by lower-case login
	installations map[int64]*installation
	repos         map[string]*repository // by lower-case "owner/name"
	reposByID     map[int64]*repository
	commits       map[string]*commit // the object store, shared by forks
	diffCache     map[string][]fileChange
	tokens        map[string]*installToken
	writes        map[int64][]time.Time // per installation: accepted content-creating requests, oldest first
	secondaryHits int
	suites        map[int64]*checkSuite
	runs          map[int64]*checkRun
	teams         map[string]*team // by lower-case "org/slug"
	deliveries    []*Delivery
	// listHide picks the attempts GET /app/hook/deliveries does not list
	// yet, and listHidden holds them (HideDeliveryAttempts).
	listHide      func(Delivery) bool
	listHidden    map[int64]bool
	manifestCodes map[string]*manifestCode
	buckets       map[string]*bucket
	faults        []*faultState
	counts        map[RequestCount]int
	log           []RequestRecord
	requests      int64
}

func newState(now time.Time) *state {
	return &state{
		seq:           map[string]int64{},
		apps:          map[int64]*app{},
		accounts:      map[string]*account{},
		installations: map[int64]*installation{},
		repos:         map[string]*repository{},
		reposByID:     map[int64]*repository{},
		commits:       map[string]*commit{},
		diffCache:     map[string][]fileChange{},
		tokens:        map[string]*installToken{},
		writes:        map[int64][]time.Time{},
		suites:        map[int64]*checkSuite{},
		runs:          map[int64]*checkRun{},
		teams:         map[string]*team{},
		manifestCodes: map[string]*manifestCode{},
		buckets:       map[string]*bucket{},
		counts:        map[RequestCount]int{},
	}
}

// idBase gives each kind of object its own recognisable range of IDs, so
// an ID in a test failure says what it is.
func idBase(kind string) int64 {
	switch kind {
	case "account":
		return 10000
	case "app":
		return 100
	case "installation":
		return 40000
	case "repo":
		return 700000
	case "pull":
		return 5000000
	case "review":
		return 8000000
	case "suite":
		return 3000000
	case "run":
		return 9000000
	case "delivery":
		return 20000000
	case "team":
		return 600
	}
	return 0
}

// next allocates the next ID of a kind.
func (st *state) next(kind string) int64 {
	st.seq[kind]++
	return idBase(kind) + st.seq[kind]
}

// nodeID makes a GitHub-style global node ID for an object.
func nodeID(prefix string, id int64) string {
	return prefix + "_" + base64.RawURLEncoding.EncodeToString([]byte(fmt.Sprintf("%d", id)))
}

type account struct {
	id        int64
	login     string
	typ       string // User, Organization or Bot
	createdAt time.Time
}

type app struct {
	id            int64
	slug          string
	name          string
	description   string
	owner         *account
	bot           *account
	clientID      string
	clientSecret  string
	webhookURL    string
	webhookSecret string
	hookID        int64
	publicKey     *rsa.PublicKey
	permissions   map[string]string
	events        []string
	externalURL   string
	createdAt     time.Time
}

type installation struct {
	id          int64
	app         *app
	account     *account
	selection   string // all or selected
	repoIDs     map[int64]bool
	permissions map[string]string
	events      []string
	createdAt   time.Time
}

type repository struct {
	id            int64
	owner         *account
	name          string
	description   string
	private       bool
	defaultBranch string
	branches      map[string]string // branch → head SHA
	known         map[string]bool   // commits reachable in this repository
	pulls         map[int]*pullRequest
	nextNumber    int
	parent        *repository // set for forks
	createdAt     time.Time
	updatedAt     time.Time
	pushedAt      time.Time
}

func (r *repository) fullName() string { return r.owner.login + "/" + r.name }

type pullRequest struct {
	id        int64
	number    int
	repo      *repository // base repository
	headRepo  *repository
	baseRef   string
	headRef   string
	headSHA   string
	title     string
	body      string
	user      *account
	state     string // open or closed
	draft     bool
	merged    bool
	createdAt time.Time
	updatedAt time.Time
	closedAt  *time.Time
	reviews   []*review
	// reviewComments are the line comments (routes_reviews.go).
	reviewComments []*reviewComment
}

type review struct {
	id          int64
	user        *account
	state       string // APPROVED, CHANGES_REQUESTED, COMMENTED, DISMISSED
	body        string
	commitID    string
	submittedAt time.Time
}

type team struct {
	id      int64
	org     *account
	slug    string
	name    string
	members map[string]*teamMember // by lower-case login
}

type teamMember struct {
	user  *account
	role  string // member or maintainer
	state string // active or pending
}

type manifestCode struct {
	manifest []byte
	expires  time.Time
}

// defaultPermissions are what Shipgate's manifest asks for.
func defaultPermissions() map[string]string {
	return map[string]string{
		"checks":        "write",
		"contents":      "read",
		"metadata":      "read",
		"pull_requests": "write",
		"members":       "read",
	}
}

func copyPerms(p map[string]string) map[string]string {
	out := make(map[string]string, len(p))
	for k, v := range p {
		out[k] = v
	}
	return out
}

// addPrimaryApp registers the app described by Options.
func (st *state) addPrimaryApp(opts Options, now time.Time) {
	owner := st.ensureAccount(opts.AppOwner, "Organization", now)
	a := &app{
		id:            opts.AppID,
		slug:          opts.AppSlug,
		name:          opts.AppName,
		description:   "Reviews pull requests that change what an AI coding agent may do.",
		owner:         owner,
		clientID:      fmt.Sprintf("Iv1.%016x", opts.AppID),
		clientSecret:  fmt.Sprintf("%040x", opts.AppID),
		webhookURL:    opts.WebhookURL,
		webhookSecret: opts.WebhookSecret,
		hookID:        400000000 + opts.AppID,
		publicKey:     opts.AppPublicKey,
		permissions:   copyPerms(opts.AppPermissions),
		events:        []string{"check_run", "check_suite", "pull_request", "pull_request_review", "push"},
		externalURL:   "https://shipgate.example",
		createdAt:     now,
	}
	st.registerApp(a, now)
	st.primaryAppID = a.id
}

func (st *state) registerApp(a *app, now time.Time) {
	a.bot = st.ensureAccount(a.slug+"[bot]", "Bot", now)
	st.apps[a.id] = a
}

// ensureAccount returns the account with login, creating it with typ when
// it does not exist yet.
func (st *state) ensureAccount(login, typ string, now time.Time) *account {
	key := strings.ToLower(login)
	if a, ok := st.accounts[key]; ok {
		return a
	}
	if typ == "" {
		typ = "User"
	}
	a := &account{id: st.next("account"), login: login, typ: typ, createdAt: now}
	st.accounts[key] = a
	return a
}

func (st *state) repo(owner, name string) *repository {
	return st.repos[strings.ToLower(owner+"/"+name)]
}

func (st *state) team(org, slug string) *team {
	return st.teams[strings.ToLower(org+"/"+slug)]
}

// installationFor returns the installation of app a that covers repo r.
func (st *state) installationFor(a *app, r *repository) *installation {
	for _, in := range st.sortedInstallations() {
		if in.app == a && in.covers(r) {
			return in
		}
	}
	return nil
}

func (in *installation) covers(r *repository) bool {
	if !strings.EqualFold(in.account.login, r.owner.login) {
		return false
	}
	return in.selection == "all" || in.repoIDs[r.id]
}
