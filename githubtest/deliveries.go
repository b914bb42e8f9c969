package githubtest

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"net/http"
	"sort"
	"strconv"
	"time"
)

// Delivery is one attempt to deliver a webhook, as GitHub's
// webhook-deliveries API records it. A redelivery is a new attempt with a
// new ID and the same GUID and payload.
type Delivery struct {
	ID             int64         // this attempt's ID
	GUID           string        // the X-GitHub-Delivery header
	AppID          int64         // the app the delivery is for
	Event          string        // the X-GitHub-Event header
	Action         string        // the payload's action, "" for push
	InstallationID int64         // the payload's installation
	RepositoryID   int64         // the payload's repository, 0 for none
	Redelivery     bool          // a redelivery of an earlier attempt
	URL            string        // where it was sent; "" when the app has no webhook URL
	DeliveredAt    time.Time     // on the fake's clock
	Duration       time.Duration // how long the receiver took
	// StatusCode is the receiver's HTTP status, 0 when nothing answered.
	StatusCode int
	// Status is GitHub's wording: "OK", "Invalid HTTP Response: 500", a
	// connection failure, or "not sent: the app has no webhook URL".
	Status          string
	RequestHeaders  map[string]string // the headers sent, signatures included
	Payload         []byte            // the JSON body sent
	ResponseHeaders map[string]string // the receiver's headers, nil when nothing answered
	ResponseBody    string            // the receiver's body (first 64 KB)
}

// maxResponseRecorded bounds the receiver's body kept per delivery.
const maxResponseRecorded = 64 << 10

// outgoing is a delivery prepared under the lock and sent after it.
type outgoing struct {
	d Delivery
}

// newGUID returns a random UUID, the form of X-GitHub-Delivery.
func newGUID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	h := hex.EncodeToString(b[:])
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:32]
}

// subscribed reports whether app a receives event. Installation events
// reach every app, as on GitHub.
func (a *app) subscribed(event string) bool {
	if event == "installation" {
		return true
	}
	for _, e := range a.events {
		if e == event {
			return true
		}
	}
	return false
}

// prepare builds a delivery of payload to app a. Callers hold s.mu.
func (s *Server) prepare(a *app, event, action string, instID, repoID int64, payload []byte) *outgoing {
	if a == nil || !a.subscribed(event) {
		return nil
	}
	d := Delivery{
		ID: s.st.next("delivery"), GUID: newGUID(), AppID: a.id, Event: event, Action: action,
		InstallationID: instID, RepositoryID: repoID, URL: a.webhookURL, Payload: payload,
	}
	d.RequestHeaders = map[string]string{
		"Accept":                                 "*/*",
		"Content-Type":                           "application/json",
		"User-Agent":                             "GitHub-Hookshot/5b0f4e3",
		"X-GitHub-Event":                         event,
		"X-GitHub-Delivery":                      d.GUID,
		"X-GitHub-Hook-ID":                       strconv.FormatInt(a.hookID, 10),
		"X-GitHub-Hook-Installation-Target-ID":   strconv.FormatInt(a.id, 10),
		"X-GitHub-Hook-Installation-Target-Type": "integration",
	}
	if a.webhookSecret != "" {
		d.RequestHeaders["X-Hub-Signature"] = "sha1=" + sign(sha1.New, a.webhookSecret, payload)
		d.RequestHeaders["X-Hub-Signature-256"] = "sha256=" + sign(sha256.New, a.webhookSecret, payload)
	}
	return &outgoing{d: d}
}

func sign(h func() hash.Hash, secret string, payload []byte) string {
	m := hmac.New(h, []byte(secret))
	m.Write(payload)
	return hex.EncodeToString(m.Sum(nil))
}

// deliver sends prepared deliveries in order, without holding s.mu, and
// records each attempt. It returns the GUID of the first one ("" if none).
func (s *Server) deliver(list ...*outgoing) string {
	guid := ""
	for _, o := range list {
		if o == nil {
			continue
		}
		if guid == "" {
			guid = o.d.GUID
		}
		d := s.send(o.d)
		s.mu.Lock()
		s.st.deliveries = append(s.st.deliveries, &d)
		if s.st.listHide != nil && s.st.listHide(copyDelivery(&d)) {
			if s.st.listHidden == nil {
				s.st.listHidden = map[int64]bool{}
			}
			s.st.listHidden[d.ID] = true
		}
		s.mu.Unlock()
	}
	return guid
}

// send POSTs one delivery and fills in the outcome.
func (s *Server) send(d Delivery) Delivery {
	d.DeliveredAt = s.now()
	if d.URL == "" {
		d.Status = "not sent: the app has no webhook URL"
		return d
	}
	ctx, cancel := context.WithTimeout(context.Background(), s.opts.DeliveryTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, d.URL, bytes.NewReader(d.Payload))
	if err != nil {
		d.Status = fmt.Sprintf("invalid webhook URL: %v", err)
		return d
	}
	for k, v := range d.RequestHeaders {
		req.Header.Set(k, v)
	}
	start := time.Now()
	resp, err := s.hooks.Do(req)
	d.Duration = time.Since(start)
	if err != nil {
		d.Status = "failed to connect to host"
		if errors.Is(err, context.DeadlineExceeded) {
			d.Status = "timed out"
		}
		return d
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, maxResponseRecorded))
	d.StatusCode = resp.StatusCode
	d.ResponseBody = string(body)
	d.ResponseHeaders = map[string]string{}
	for k := range resp.Header {
		d.ResponseHeaders[k] = resp.Header.Get(k)
	}
	d.Status = "OK"
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		d.Status = fmt.Sprintf("Invalid HTTP Response: %d", resp.StatusCode)
	}
	return d
}

func copyDelivery(d *Delivery) Delivery {
	out := *d
	out.Payload = append([]byte(nil), d.Payload...)
	out.RequestHeaders = copyPerms(d.RequestHeaders)
	if d.ResponseHeaders != nil {
		out.ResponseHeaders = copyPerms(d.ResponseHeaders)
	}
	return out
}

// Deliveries returns every delivery attempt, oldest first.
func (s *Server) Deliveries() []Delivery {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Delivery, 0, len(s.st.deliveries))
	for _, d := range s.st.deliveries {
		out = append(out, copyDelivery(d))
	}
	return out
}

// DeliveryAttempts returns the attempts of one delivery (its first
// delivery and every redelivery), oldest first.
func (s *Server) DeliveryAttempts(guid string) []Delivery {
	var out []Delivery
	for _, d := range s.Deliveries() {
		if d.GUID == guid {
			out = append(out, d)
		}
	}
	return out
}

// Redeliver sends a delivery again, as the "Redeliver" button and POST
// /app/hook/deliveries/{id}/attempts do: same payload, same GUID, a new
// delivery ID, redelivery true. It returns the new attempt.
func (s *Server) Redeliver(guid string) (Delivery, error) {
	s.mu.Lock()
	var last *Delivery
	for _, d := range s.st.deliveries {
		if d.GUID == guid {
			last = d
		}
	}
	if last == nil {
		s.mu.Unlock()
		return Delivery{}, fmt.Errorf("githubtest: redeliver: no delivery %s", guid)
	}
	o := s.prepareRedelivery(last)
	s.mu.Unlock()
	s.deliver(o)
	attempts := s.DeliveryAttempts(guid)
	return attempts[len(attempts)-1], nil
}

// prepareRedelivery copies a delivery as a new attempt, re-signed with the
// app's current secret and sent to its current URL. Callers hold s.mu.
func (s *Server) prepareRedelivery(d *Delivery) *outgoing {
	n := copyDelivery(d)
	n.ID = s.st.next("delivery")
	n.Redelivery = true
	n.StatusCode, n.Status, n.Duration, n.ResponseBody, n.ResponseHeaders = 0, "", 0, "", nil
	if a := s.st.apps[d.AppID]; a != nil {
		n.URL = a.webhookURL
		if secret := a.webhookSecret; secret != "" {
			n.RequestHeaders["X-Hub-Signature"] = "sha1=" + sign(sha1.New, secret, n.Payload)
			n.RequestHeaders["X-Hub-Signature-256"] = "sha256=" + sign(sha256.New, secret, n.Payload)
		}
	}
	return &outgoing{d: n}
}

// SetWebhook points app appID's deliveries at url, signed with secret (for
// a demo that learns the App server's address after starting the fake).
func (s *Server) SetWebhook(appID int64, url, secret string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	a := s.st.apps[appID]
	if a == nil {
		return fmt.Errorf("githubtest: set webhook: no app %d", appID)
	}
	a.webhookURL, a.webhookSecret = url, secret
	return nil
}

// deliveriesNewestFirst returns app appID's attempts, newest first.
// Callers hold s.mu.
func (s *Server) deliveriesNewestFirst(appID int64) []*Delivery {
	var out []*Delivery
	for _, d := range s.st.deliveries {
		if d.AppID == appID {
			out = append(out, d)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID > out[j].ID })
	return out
}

// HideDeliveryAttempts keeps the delivery attempts recorded from now on for
// which hide returns true out of GET /app/hook/deliveries until
// RevealDeliveryAttempts, as GitHub's list does under concurrency: it is
// not ordered by arrival, and an attempt can appear after newer ones (with
// higher IDs) were already listed. Deliveries() still returns them.
func (s *Server) HideDeliveryAttempts(hide func(Delivery) bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.st.listHide = hide
}

// RevealDeliveryAttempts lists every hidden attempt again, in its place by
// ID (newest first), and stops hiding new ones. It returns how many it
// revealed.
func (s *Server) RevealDeliveryAttempts() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := len(s.st.listHidden)
	s.st.listHide, s.st.listHidden = nil, nil
	return n
}
