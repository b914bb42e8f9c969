package conformance

// NotebookClass measures NotebookEdit: the bare tool and its star
// spellings (NotebookEdit, NotebookEdit(*), NotebookEdit(**), a path),
// the Edit rules Claude Code consults for the notebook's path, and
// acceptEdits, each as allow, ask or deny, on notebooks in the project,
// in a subfolder and in the home folder. Claude Code 2.1.328 edits a
// notebook only after it was read in the session ("File has not been read
// yet"), so each batch reads every notebook first (the home one under an
// allow rule of its own) and the driver seeds the files (seedNotebook).
// Measured by hand before the class (issue 19): a bare NotebookEdit allow
// edits the home notebook too, NotebookEdit(*) only the project's, and
// NotebookEdit(**) or a path allows nothing.
const NotebookClass = "notebook"

func init() {
	// After the schema class (corpus_schema.go's init runs first), before
	// the witness class, so the other classes' streams do not change.
	last := Classes[len(Classes)-1]
	Classes = append(append(Classes[:len(Classes)-1:len(Classes)-1], NotebookClass), last)
	classWeight[NotebookClass] = 1
}

// notebookPaths are the notebooks a batch edits, with their zones.
var notebookPaths = []struct{ label, path string }{
	{"project", "$PROJ/nb.ipynb"},
	{"subfolder", "$PROJ/sub/b.ipynb"},
	{"home", "$HOME/h.ipynb"},
}

// notebookRules are the rules the class draws, each put in one list.
var notebookRules = []string{
	"NotebookEdit", "NotebookEdit(*)", "NotebookEdit(**)", "NotebookEdit(nb.ipynb)", "NotebookEdit(./sub/**)",
	"Edit(**)", "Edit(nb.ipynb)", "Edit(./sub/**)", "Edit(~/**)", "Edit(*.ipynb)", "Edit",
}

// notebookBatch draws one batch of the notebook class.
func (g *gen) notebookBatch(b *Batch) {
	for _, r := range g.some(1+g.r.IntN(2), notebookRules...) {
		switch g.r.IntN(4) {
		case 0:
			b.Settings.Deny = append(b.Settings.Deny, r)
		case 1:
			b.Settings.Ask = append(b.Settings.Ask, r)
		default:
			b.Settings.Allow = append(b.Settings.Allow, r)
		}
	}
	if g.r.IntN(3) == 0 {
		b.Settings.DefaultMode = "acceptEdits"
	}
	// The home notebook is read under a rule of its own: an edit needs a
	// read first, and a read outside the project asks.
	b.Settings.Allow = append(b.Settings.Allow, "Read(~/h.ipynb)")
	for _, p := range notebookPaths {
		g.add(b, "notebook-read:"+p.label, Call{Tool: "Read", Arg: p.path})
	}
	for _, p := range notebookPaths {
		g.add(b, "notebook:"+p.label, Call{Tool: "NotebookEdit", Arg: p.path})
	}
}
