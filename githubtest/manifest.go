package githubtest

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"
)

// manifestCodeLifetime is how long a manifest-flow code can be exchanged.
const manifestCodeLifetime = time.Hour

// IssueManifestCode does what GitHub does when a user confirms an app
// manifest: it stores the manifest and returns the temporary code that
// POST /app-manifests/{code}/conversions exchanges, once, within an hour.
func (s *Server) IssueManifestCode(manifest []byte) string {
	code := strings.ToLower(rand.Text())
	s.mu.Lock()
	defer s.mu.Unlock()
	s.st.manifestCodes[code] = &manifestCode{manifest: append([]byte(nil), manifest...), expires: s.now().Add(manifestCodeLifetime)}
	return code
}

// appManifest is the part of GitHub's app manifest the fake uses.
type appManifest struct {
	Name           string `json:"name"`
	URL            string `json:"url"`
	Description    string `json:"description"`
	HookAttributes struct {
		URL string `json:"url"`
	} `json:"hook_attributes"`
	DefaultEvents      []string          `json:"default_events"`
	DefaultPermissions map[string]string `json:"default_permissions"`
}

// convertManifest serves POST /app-manifests/{code}/conversions (no
// authentication): it registers a new app with a fresh key pair, so JWTs
// signed with the returned pem verify from then on.
func (s *Server) convertManifest(c *call) (int, any, *apiError) {
	code := s.st.manifestCodes[c.param("code")]
	if code == nil || !s.now().Before(code.expires) {
		return 0, nil, errNotFound(c.rt.doc)
	}
	var mf appManifest
	invalid := func(msg string) *apiError {
		return &apiError{status: http.StatusUnprocessableEntity, message: "Validation Failed", docURL: c.rt.doc, simple: []string{msg}}
	}
	if err := json.Unmarshal(code.manifest, &mf); err != nil {
		return 0, nil, invalid("The manifest is not valid JSON")
	}
	// GitHub's manifest requires name and url.
	if mf.Name == "" {
		return 0, nil, invalid("Name can't be blank")
	}
	if mf.URL == "" {
		return 0, nil, invalid("Url can't be blank")
	}
	key, pemBytes, err := GenerateAppKey()
	if err != nil {
		return 0, nil, &apiError{status: http.StatusInternalServerError, message: err.Error(), docURL: c.rt.doc}
	}
	secret := make([]byte, 20)
	clientSecret := make([]byte, 20)
	_, _ = rand.Read(secret)
	_, _ = rand.Read(clientSecret)
	delete(s.st.manifestCodes, c.param("code"))
	now := s.now()
	perms := mf.DefaultPermissions
	if perms == nil {
		perms = map[string]string{"metadata": "read"}
	}
	id := s.st.next("app")
	for s.st.apps[id] != nil {
		id = s.st.next("app")
	}
	a := &app{
		id:            id,
		slug:          slugify(mf.Name),
		name:          mf.Name,
		description:   mf.Description,
		owner:         s.st.apps[s.st.primaryAppID].owner,
		clientID:      fmt.Sprintf("Iv1.%016x", id),
		clientSecret:  hex.EncodeToString(clientSecret),
		webhookURL:    mf.HookAttributes.URL,
		webhookSecret: hex.EncodeToString(secret),
		hookID:        400000000 + id,
		publicKey:     &key.PublicKey,
		permissions:   copyPerms(perms),
		events:        append([]string{}, mf.DefaultEvents...),
		externalURL:   mf.URL,
		createdAt:     now,
	}
	s.st.registerApp(a, now)
	out := s.appJSON(a, c.base)
	out["client_id"] = a.clientID
	out["client_secret"] = a.clientSecret
	out["webhook_secret"] = a.webhookSecret
	out["pem"] = string(pemBytes)
	return http.StatusCreated, out, nil
}

// slugify derives an app slug from its name as GitHub does: lower case,
// runs of other characters as one hyphen.
func slugify(name string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(name) {
		if (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') {
			b.WriteRune(r)
			dash = false
			continue
		}
		if !dash && b.Len() > 0 {
			b.WriteByte('-')
			dash = true
		}
	}
	return strings.TrimSuffix(b.String(), "-")
}
