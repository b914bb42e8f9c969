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
	// Refine: a value chosen to break a refinement (x-refined).
	Refine bool `json:"refine"`
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
// on every probe document it drops, Validate finds a violation (Shipgate
// is never less strict than the loader: no gap is listed); on every one
// it keeps, Validate finds nothing, or an Uncertain violation where it
// cannot run the binary's refinement and fails closed (counted).
func TestAgreesWithLoader(t *testing.T) {
	s := Pinned()
	rows := loadRows(t)
	if len(rows) < 1000 {
		t.Fatalf("%d probe documents, want the extractor's full set", len(rows))
	}
	bad, closed, named, refine := 0, 0, 0, 0
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
		if r.Refine {
			refine++
		}
		switch {
		case r.Loaded && v != nil && v.Uncertain:
			closed++
		case r.Loaded && v != nil:
			bad++
			t.Errorf("%s (%s): the loader keeps it, Validate drops it: %s", r.Doc, r.Where, v.Message())
		case !r.Loaded && v == nil:
			bad++
			t.Errorf("%s (%s): the loader drops it (%s: %s), Validate keeps it", r.Doc, r.Where, r.Path, r.Message)
		case !r.Loaded && samePath(v.Path, r.Path):
			named++
		}
	}
	t.Logf("%d probe documents (%d break a refinement): %d disagreements, %d kept files Shipgate fails closed on (a refinement it does not model); of the dropped ones, %d name the loader's own key", len(rows), refine, bad, closed, named)
	if refine == 0 {
		t.Error("no probe breaks a refinement: the extractor's breakers are missing from the loads file")
	}
}

// samePath compares a Violation path (a[0].b) with a loader issue path
// (a.0.b); the loader may name an enclosing value.
func samePath(ours, theirs string) bool {
	ours = strings.NewReplacer("[", ".", "]", "").Replace(ours)
	return ours == theirs || strings.HasPrefix(ours, theirs+".") || theirs == ""
}
