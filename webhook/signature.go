package webhook

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"strings"
)

// Header names GitHub sets on every delivery.
const (
	headerEvent       = "X-GitHub-Event"
	headerDelivery    = "X-GitHub-Delivery"
	headerSignature   = "X-Hub-Signature-256"
	headerSignatureV1 = "X-Hub-Signature" // SHA-1; recognised only to say why it is refused
	signaturePrefix   = "sha256="
)

// Rejection reasons: the values of webhook_rejections_total{reason} and of
// the "reason" log attribute. A fixed set keeps the metric's cardinality low.
const (
	reasonMissingEvent       = "missing_event"
	reasonMissingDelivery    = "missing_delivery"
	reasonContentType        = "unsupported_content_type"
	reasonBodyTooLarge       = "body_too_large"
	reasonBodyBudget         = "body_budget"
	reasonBodyEvicted        = "body_evicted"
	reasonReadError          = "read_error"
	reasonMissingSignature   = "missing_signature"
	reasonSHA1Only           = "sha1_signature_only"
	reasonMalformedSignature = "malformed_signature"
	reasonBadSignature       = "bad_signature"
	reasonBadPayload         = "bad_payload"
)

// verifySignature checks the X-Hub-Signature-256 header value against an
// HMAC-SHA256 of body under each secret. It returns "" when one secret
// matches, or the rejection reason. Every secret is tried (no early exit), and
// digests are compared with hmac.Equal, so timing reveals neither the digest
// nor which secret matched. SHA-1 signatures are never accepted: sha1Header is
// consulted only to give a precise reason.
func verifySignature(secrets [][]byte, header, sha1Header string, body []byte) string {
	if header == "" {
		if sha1Header != "" {
			return reasonSHA1Only
		}
		return reasonMissingSignature
	}
	hexDigest, ok := strings.CutPrefix(header, signaturePrefix)
	if !ok || len(hexDigest) != 2*sha256.Size {
		return reasonMalformedSignature
	}
	got, err := hex.DecodeString(hexDigest)
	if err != nil {
		return reasonMalformedSignature
	}
	matched := false
	for _, secret := range secrets {
		mac := hmac.New(sha256.New, secret)
		mac.Write(body)
		if hmac.Equal(mac.Sum(nil), got) {
			matched = true
		}
	}
	if !matched {
		return reasonBadSignature
	}
	return ""
}

// Sign returns the X-Hub-Signature-256 header value GitHub would send for body
// under secret. Tests and tools that replay fixtures (shipgate demo, the
// end-to-end tests) use it to produce authentic deliveries.
func Sign(secret, body []byte) string {
	mac := hmac.New(sha256.New, secret)
	mac.Write(body)
	return signaturePrefix + hex.EncodeToString(mac.Sum(nil))
}
