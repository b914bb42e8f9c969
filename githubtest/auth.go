package githubtest

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/golang-jwt/jwt/v4"
)

type callerKind int

const (
	callerAnonymous callerKind = iota
	callerApp                  // a verified app JWT
	callerToken                // a live installation token
)

// caller is who made a request.
type caller struct {
	kind  callerKind
	app   *app
	inst  *installation
	token *installToken
	ip    string
}

// installToken is an installation access token.
type installToken struct {
	value       string
	inst        *installation
	expires     time.Time
	repoIDs     map[int64]bool // nil: every repository of the installation
	permissions map[string]string
}

// Token and JWT lifetimes, as GitHub documents them.
const (
	tokenLifetime = time.Hour
	jwtMaxFuture  = 10 * time.Minute
	jwtIatSkew    = 60 * time.Second
)

// GitHub's JWT error messages.
const (
	msgJWTUndecodable = "A JSON web token could not be decoded"
	msgJWTExpired     = "'Expiration time' claim ('exp') must be a numeric value representing the future time at which the assertion expires"
	msgJWTTooFar      = "'Expiration time' claim ('exp') is too far in the future"
	msgJWTIat         = "'Issued at' claim ('iat') must be an Integer representing the time that the assertion was issued"
	msgJWTIss         = "'Issuer' claim ('iss') must be an Integer"
)

// GenerateAppKey makes a 2048-bit RSA key for a test or demo GitHub App and
// returns it with its PKCS#1 PEM encoding (the format GitHub issues, which
// ghinstallation reads).
func GenerateAppKey() (*rsa.PrivateKey, []byte, error) {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return nil, nil, fmt.Errorf("githubtest: generate app key: %w", err)
	}
	pemBytes := pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)})
	return key, pemBytes, nil
}

// AppJWT signs an app JWT as GitHub's documentation recommends (iat 60 s
// before now, exp 9 minutes after), for tests that call /app endpoints
// directly or need a JWT on a fake clock.
func AppJWT(key *rsa.PrivateKey, appID int64, now time.Time) (string, error) {
	claims := jwt.RegisteredClaims{
		Issuer:    strconv.FormatInt(appID, 10),
		IssuedAt:  jwt.NewNumericDate(now.Add(-60 * time.Second).Truncate(time.Second)),
		ExpiresAt: jwt.NewNumericDate(now.Add(9 * time.Minute).Truncate(time.Second)),
	}
	s, err := jwt.NewWithClaims(jwt.SigningMethodRS256, claims).SignedString(key)
	if err != nil {
		return "", fmt.Errorf("githubtest: sign app JWT: %w", err)
	}
	return s, nil
}

// authenticate identifies the caller from the Authorization header. A
// missing header is an anonymous caller; a bad credential is an error.
func (s *Server) authenticate(r *http.Request) (caller, *apiError) {
	who := caller{ip: remoteIP(r)}
	h := strings.TrimSpace(r.Header.Get("Authorization"))
	if h == "" {
		return who, nil
	}
	scheme, cred, ok := strings.Cut(h, " ")
	cred = strings.TrimSpace(cred)
	if !ok || cred == "" || !(strings.EqualFold(scheme, "bearer") || strings.EqualFold(scheme, "token")) {
		return who, errBadCredentials()
	}
	if strings.Count(cred, ".") == 2 {
		a, e := s.verifyJWT(cred)
		if e != nil {
			return who, e
		}
		who.kind, who.app = callerApp, a
		return who, nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	t := s.st.tokens[cred]
	if t == nil || !s.now().Before(t.expires) {
		return who, errBadCredentials()
	}
	who.kind, who.app, who.inst, who.token = callerToken, t.inst.app, t.inst, t
	return who, nil
}

// verifyJWT checks an app JWT as GitHub does: RS256 signed by the key of
// the app named by `iss` (its ID, as a string or a number, or its client
// ID); integer `iat` no more than 60 s in the future; integer `exp` in the
// future but no more than 10 minutes ahead.
func (s *Server) verifyJWT(raw string) (*app, *apiError) {
	var found *app
	parser := jwt.NewParser(jwt.WithValidMethods([]string{"RS256"}), jwt.WithJSONNumber(), jwt.WithoutClaimsValidation())
	claims := jwt.MapClaims{}
	_, err := parser.ParseWithClaims(raw, claims, func(t *jwt.Token) (any, error) {
		a, e := s.appForIssuer(claims["iss"])
		if e != nil {
			return nil, e
		}
		if a.publicKey == nil {
			return nil, errors.New("app has no public key")
		}
		found = a
		return a.publicKey, nil
	})
	if err != nil {
		var ae *apiError
		var ve *jwt.ValidationError
		if errors.As(err, &ve) && errors.As(ve.Inner, &ae) {
			return nil, ae
		}
		return nil, errJWT(msgJWTUndecodable)
	}
	now := s.now()
	iat, ok := intClaim(claims["iat"])
	if !ok || time.Unix(iat, 0).After(now.Add(jwtIatSkew)) {
		return nil, errJWT(msgJWTIat)
	}
	exp, ok := intClaim(claims["exp"])
	if !ok || !time.Unix(exp, 0).After(now) {
		return nil, errJWT(msgJWTExpired)
	}
	if time.Unix(exp, 0).After(now.Add(jwtMaxFuture)) {
		return nil, errJWT(msgJWTTooFar)
	}
	return found, nil
}

func (s *Server) appForIssuer(iss any) (*app, *apiError) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var id int64
	switch v := iss.(type) {
	case json.Number:
		n, err := v.Int64()
		if err != nil {
			return nil, errJWT(msgJWTIss)
		}
		id = n
	case string:
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			for _, a := range s.st.apps {
				if a.clientID == v {
					return a, nil
				}
			}
			return nil, errJWT(msgJWTIss)
		}
		id = n
	default:
		return nil, errJWT(msgJWTIss)
	}
	a := s.st.apps[id]
	if a == nil {
		return nil, errJWT(msgJWTUndecodable)
	}
	return a, nil
}

// Error makes an apiError usable as an error inside JWT verification.
func (e *apiError) Error() string { return e.message }

// intClaim reads an integer NumericDate; GitHub rejects fractional ones.
func intClaim(v any) (int64, bool) {
	n, ok := v.(json.Number)
	if !ok {
		return 0, false
	}
	i, err := n.Int64()
	return i, err == nil
}

// newTokenValue makes a token in GitHub's installation-token format.
func newTokenValue() (string, error) {
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	var b strings.Builder
	b.WriteString("ghs_")
	for i := 0; i < 36; i++ {
		n, err := rand.Int(rand.Reader, big.NewInt(int64(len(alphabet))))
		if err != nil {
			return "", fmt.Errorf("githubtest: make token: %w", err)
		}
		b.WriteByte(alphabet[n.Int64()])
	}
	return b.String(), nil
}

// mintToken issues a token for in, narrowed to repoIDs (nil: all) and
// perms. Callers hold s.mu.
func (s *Server) mintToken(in *installation, repoIDs map[int64]bool, perms map[string]string) (*installToken, error) {
	v, err := newTokenValue()
	if err != nil {
		return nil, err
	}
	t := &installToken{value: v, inst: in, expires: s.now().Add(tokenLifetime), repoIDs: repoIDs, permissions: perms}
	s.st.tokens[v] = t
	return t, nil
}

// MintInstallationToken issues an installation token directly, without a
// JWT round trip, for tests that exercise repository endpoints. It
// expires an hour from the fake's clock, as GitHub's do.
func (s *Server) MintInstallationToken(installationID int64) (token string, expires time.Time, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	in := s.st.installations[installationID]
	if in == nil {
		return "", time.Time{}, fmt.Errorf("githubtest: mint token: no installation %d", installationID)
	}
	t, err := s.mintToken(in, nil, copyPerms(in.permissions))
	if err != nil {
		return "", time.Time{}, err
	}
	return t.value, t.expires, nil
}

// permLevel orders permission levels.
func permLevel(p string) int {
	switch p {
	case "read":
		return 1
	case "write":
		return 2
	case "admin":
		return 3
	}
	return 0
}

// repoFor resolves the {owner}/{repo} of the request and checks that the
// caller may use it with permission perm at level: private repositories
// outside a token's reach are 404 (GitHub hides them), missing permissions
// 403. Callers hold s.mu.
func (c *call) repoFor(perm, level string) (*repository, *apiError) {
	r := c.s.st.repo(c.param("owner"), c.param("repo"))
	if r == nil {
		return nil, errNotFound(c.rt.doc)
	}
	write := permLevel(level) >= 2
	switch c.who.kind {
	case callerAnonymous:
		if r.private {
			return nil, errNotFound(c.rt.doc)
		}
		if write {
			return nil, errRequiresAuth(c.rt.doc)
		}
		return r, nil
	case callerToken:
		t := c.who.token
		inScope := t.inst.covers(r) && (t.repoIDs == nil || t.repoIDs[r.id])
		if !inScope {
			if r.private {
				return nil, errNotFound(c.rt.doc)
			}
			if write {
				return nil, errNotAccessible(c.rt.doc)
			}
			return r, nil
		}
		if permLevel(t.permissions[perm]) < permLevel(level) {
			return nil, errNotAccessible(c.rt.doc)
		}
		return r, nil
	}
	return nil, errNotAccessible(c.rt.doc)
}
