package claudeschema

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/shipgate-app/shipgate/jsonpos"
)

// loadRow is one line of the loads file: a probe document and what Claude
// Code's loader did with it.
type loadRow struct {
	Where    string `json:"where"`
	Doc      string `json:"doc"`
	Loaded   bool   `json:"loaded"`
	Path     string `json:"path"`
	Message  string `json:"message"`
	Repaired bool   `json:"repaired"`
	Error    string `json:"error"`
}

func loadRows(t *testing.T) []loadRow {
	t.Helper()
	data, err := os.ReadFile(LoadsFile)
	if err != nil {
		t.Fatal(err)
	}
	var rows []loadRow
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var r loadRow
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("%s: %v", LoadsFile, err)
		}
		rows = append(rows, r)
	}
	return rows
}

// TestAgreesWithLoader holds Validate to the loader of the pinned binary:
// on every probe document it keeps, Validate finds nothing; on every one
// it drops, Validate finds a violation at the same key.
func TestAgreesWithLoader(t *testing.T) {
	s := Pinned()
	rows := loadRows(t)
	if len(rows) < 1000 {
		t.Fatalf("%d probe documents, want the extractor's full set", len(rows))
	}
	bad, gaps, named := 0, 0, 0
	for _, r := range rows {
		if r.Error != "" {
			t.Errorf("the loader threw on %s: %s", r.Doc, r.Error)
			continue
		}
		doc, _, err := jsonpos.Options{AllowBOM: true}.Parse([]byte(r.Doc))
		if err != nil || doc.Kind() != jsonpos.Object {
			// Not a JSON object: the engine's parser reports it (and
			// the loader keeps only an empty or blank file).
			if r.Loaded != (strings.TrimSpace(strings.TrimPrefix(r.Doc, "\ufeff")) == "") {
				t.Errorf("%q: loaded=%v, but it is not a JSON object", r.Doc, r.Loaded)
			}
			continue
		}
		v := s.Validate(doc)
		switch {
		case r.Loaded && v != nil:
			bad++
			t.Errorf("%s (%s): the loader keeps it, Validate drops it: %s", r.Doc, r.Where, v.Message())
		case !r.Loaded && v == nil && knownGap(r.Where):
			gaps++
		case !r.Loaded && v == nil:
			bad++
			t.Errorf("%s (%s): the loader drops it (%s: %s), Validate keeps it", r.Doc, r.Where, r.Path, r.Message)
		case !r.Loaded && samePath(v.Path, r.Path):
			named++
		}
	}
	t.Logf("%d probe documents: %d disagreements, %d known gaps (plugin entries of a marketplace list, AWS credential pairs); of the dropped ones, %d name the loader's own key", len(rows), bad, gaps, named)
}

// knownGap: the plugin entries of a "settings" marketplace in the
// marketplace allow and block lists, whose "source" the loader requires
// though the JSON Schema zod writes for its input side does not (a
// transform in the field's union). Validate keeps such a file where the
// loader drops it. These lists are honoured from managed settings; a
// project file that misspells one loses its rules without Shipgate saying
// so. And sandbox.credentials.awsPairs entries whose two variable names
// are the same, which a refinement of zod's refuses (nodes marked
// "x-refined" hold checks JSON Schema cannot state). Listed here so the
// gaps are seen, not passed off.
func knownGap(where string) bool {
	for _, p := range []string{"strictKnownMarketplaces[]|.plugins[]", "allowedMarketplaces[]|.plugins[]", "blockedMarketplaces[]|.plugins[]", "sandbox.credentials.awsPairs[]"} {
		if strings.HasPrefix(where, p) {
			return true
		}
	}
	return false
}

// samePath compares a Violation path (a[0].b) with a loader issue path
// (a.0.b); the loader may name an enclosing value.
func samePath(ours, theirs string) bool {
	ours = strings.NewReplacer("[", ".", "]", "").Replace(ours)
	return ours == theirs || strings.HasPrefix(ours, theirs+".") || theirs == ""
}
