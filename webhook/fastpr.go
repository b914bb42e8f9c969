package webhook

import (
	"bytes"

	"github.com/buger/jsonparser"
)

// pull_request and pull_request_review are nearly all of an App's
// deliveries, and their payloads are large (20–30 KB, most of it the pull
// request's and repository's descriptions, which Shipgate never reads).
// encoding/json scans such a payload twice (validation, then decoding) and
// costs about 150 µs of CPU; decodePRFast picks the dozen fields Shipgate
// reads in one pass that skips everything else. It is only an
// accelerator: on anything unusual (a field of the wrong type, a payload
// that does not look like one JSON object) it reports false and the
// caller decodes with encoding/json, whose answer is the reference
// (TestFastDecoderAgrees checks they agree on every published example and
// on hostile variants; FuzzRoute that nothing unvalidated gets through).
// Two known differences, on payloads GitHub never sends and only GitHub
// can sign: a key repeated in one object (the first wins here, the last in
// encoding/json) and keys spelled in another case (encoding/json matches
// them case-insensitively, this decoder does not).

var prPaths = [][]string{
	{"action"},                       // 0
	{"number"},                       // 1
	{"installation", "id"},           // 2
	{"sender", "login"},              // 3
	{"repository", "id"},             // 4
	{"repository", "name"},           // 5
	{"repository", "full_name"},      // 6
	{"repository", "owner", "login"}, // 7
	{"repository", "owner", "name"},  // 8
	{"repository", "default_branch"}, // 9
	{"pull_request", "number"},       // 10
	{"pull_request", "head", "sha"},  // 11
	{"changes", "base"},              // 12
	{"installation"},                 // 13
}

// decodePRFast fills e from a pull_request or pull_request_review payload
// and reports whether it could; false means "decode it the slow way".
func decodePRFast(body []byte, e *hookPullRequest) bool {
	b := bytes.TrimSpace(body)
	if len(b) < 2 || b[0] != '{' || b[len(b)-1] != '}' {
		return false
	}
	ok := true
	seen := make([]bool, len(prPaths))
	str := func(v []byte, t jsonparser.ValueType) (string, bool) {
		switch t {
		case jsonparser.String:
			s, err := jsonparser.ParseString(v)
			return s, err == nil
		case jsonparser.Null:
			return "", true
		}
		return "", false
	}
	num := func(v []byte, t jsonparser.ValueType) (int64, bool) {
		switch t {
		case jsonparser.Number:
			n, err := jsonparser.ParseInt(v)
			return n, err == nil
		case jsonparser.Null:
			return 0, true
		}
		return 0, false
	}
	jsonparser.EachKey(b, func(i int, v []byte, t jsonparser.ValueType, err error) {
		if err != nil || seen[i] {
			ok = false // malformed, or a repeated key: let encoding/json decide
			return
		}
		seen[i] = true
		var good bool
		switch i {
		case 0:
			e.Action, good = str(v, t)
		case 1:
			var n int64
			n, good = num(v, t)
			e.Number = int(n)
		case 2:
			var n int64
			n, good = num(v, t)
			if e.Installation == nil {
				e.Installation = &hookInstallation{}
			}
			e.Installation.ID = n
		case 3:
			e.Sender.Login, good = str(v, t)
		case 4:
			e.Repository.ID, good = num(v, t)
		case 5:
			e.Repository.Name, good = str(v, t)
		case 6:
			e.Repository.FullName, good = str(v, t)
		case 7:
			e.Repository.Owner.Login, good = str(v, t)
		case 8:
			e.Repository.Owner.Name, good = str(v, t)
		case 9:
			e.Repository.DefaultBranch, good = str(v, t)
		case 10:
			var n int64
			n, good = num(v, t)
			e.PullRequest.Number = int(n)
		case 11:
			e.PullRequest.Head.SHA, good = str(v, t)
		case 12:
			switch t {
			case jsonparser.Object:
				e.Changes = &struct {
					Base *struct{} `json:"base"`
				}{Base: &struct{}{}}
				good = true
			case jsonparser.Null:
				good = true
			}
		case 13:
			switch t {
			case jsonparser.Object:
				if e.Installation == nil {
					e.Installation = &hookInstallation{}
				}
				good = true
			case jsonparser.Null:
				good = true
			}
		}
		if !good {
			ok = false
		}
	}, prPaths...)
	return ok
}
