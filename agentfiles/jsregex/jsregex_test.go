package jsregex

import (
	"encoding/json"
	"errors"
	"os/exec"
	"regexp"
	"strings"
	"testing"

	"github.com/shipgate-app/shipgate/lattice"
)

// corpus is the patterns the node oracle checks, with flags: VS Code's
// documented examples first, then the constructs the translator handles
// and those it must refuse.
var corpus = []struct{ pattern, flags string }{
	{`^python\s+skills\/`, ""}, {`^curl\b.*localhost.*$`, "i"}, {`^git (status|diff|log)\b`, ""},
	{`.*`, ""}, {`^\w+`, ""}, {`^npm (test|run lint)$`, ""}, {`rm`, ""}, {`^rm\b`, ""}, {`^(?:git|hg) pull`, ""},
	{`^ls( -[a-z]+)*$`, ""}, {`^echo [^;&|]*$`, ""}, {`^cat [\w./-]+$`, ""}, {`\bsudo\b`, ""}, {`^a{2,3}$`, ""},
	{`^[A-Z]+$`, "i"}, {`^x.y$`, "s"}, {`^x.y$`, ""}, {`^\d{1,3}\.\d+$`, ""}, {`^\x41\u0042$`, ""}, {`^git\b$`, ""},
	{`^(a|b)+c?$`, ""}, {`^$`, ""}, {`a|^b`, ""}, {`^a|b$`, ""}, {`^[^]$`, ""}, {`^[\s\S]$`, ""}, {`^[\W\d]+$`, ""},
	{`^make\b`, ""}, {`^-\b`, ""}, {`^git\B`, ""}, {`^(a)\1$`, ""}, {`^(?=a)a`, ""}, {`^(?<!x)a`, ""}, {`(a`, ""}, {`a)`, ""},
	{`*a`, ""}, {`^a{3,1}$`, ""}, {`[z-a]`, ""}, {`^\p{L}+$`, "u"}, {`^a$`, "m"}, {`^\cJ$`, ""}, {`^[\b]$`, ""}, {`^a\/b$`, ""},
	{`^(?<n>a)\k<n>$`, ""}, {`^a{2}$`, "y"}, {`^\u{1F600}$`, "u"}, {`^x\$`, ""}, {`npm run (build|test)\b.*`, ""}, {`^(git\b)x`, ""},
}

var inputs = []string{"", "a", "b", "aa", "aaa", "ab", "bc", "abc", "c", "x", "xy", "x\ny", "x.y", "A", "ABC", "Abc", "aA",
	"git", "git status", "git statusx", "git diff", "git log -1", "gitx", "git-x", "git push", "hg pull", "git pull", "gitx pull",
	"python skills/x", "python  skills/", "pythonskills/", "curl http://localhost:8", "CURL x LOCALHOST", "curlx localhost",
	"npm test", "npm test x", "npm run lint", "npm run build", "npm run buildx", "npm run test --x", "rm", "rm -rf /", "xrm", "rmdir x",
	"ls", "ls -la", "ls -la -h", "ls -", "echo hi", "echo hi; rm", "cat a/b.txt", "cat a b", "sudo x", "xsudo", "a sudo b",
	"12.5", "1234.5", "AB", "\n", "ab\n", "make", "make all", "maker", "-", "-a", "- ", "a/b", "a\\/b", "\x01", "\b", "\n", "😀", "x$", "gitx"}

// TestAgainstNode holds the translation to node's RegExp.test on the
// corpus × inputs: the real JavaScript engine is the oracle (Node is part
// of every machine Shipgate builds on, CI's included).
func TestAgainstNode(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatal("node not found: the JavaScript oracle needs Node (apt-get install nodejs)")
	}
	type job struct {
		P string   `json:"p"`
		F string   `json:"f"`
		I []string `json:"i"`
	}
	var jobs []job
	for _, c := range corpus {
		jobs = append(jobs, job{c.pattern, c.flags, inputs})
	}
	in, _ := json.Marshal(jobs)
	script := `let d='';process.stdin.on('data',c=>d+=c).on('end',()=>{const out=JSON.parse(d).map(j=>{let r;try{r=new RegExp(j.p,j.f)}catch(e){return null}return j.i.map(s=>{r.lastIndex=0;return r.test(s)})});process.stdout.write(JSON.stringify(out))})`
	cmd := exec.Command(node, "-e", script)
	cmd.Stdin = strings.NewReader(string(in))
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node: %v", err)
	}
	var res [][]bool
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatal(err)
	}
	translated, unknown := 0, 0
	for k, c := range corpus {
		re, err := Translate(c.pattern, c.flags)
		var syn *Syntax
		var unk *Unknown
		switch {
		case res[k] == nil:
			if !errors.As(err, &syn) {
				t.Errorf("/%s/%s: node throws, Translate says %v", c.pattern, c.flags, err)
			}
			continue
		case errors.As(err, &unk):
			unknown++
			continue
		case err != nil:
			t.Errorf("/%s/%s: node accepts it, Translate: %v", c.pattern, c.flags, err)
			continue
		}
		translated++
		l, err := lattice.Compile(re)
		if err != nil {
			t.Errorf("/%s/%s: compile: %v", c.pattern, c.flags, err)
			continue
		}
		for i, s := range inputs {
			if !strings.Contains(c.flags, "u") && hasAstral(s) {
				continue // UTF-16 code units: a documented difference
			}
			if got := l.Match(s); got != res[k][i] {
				t.Errorf("/%s/%s on %q: Shipgate %v, node %v", c.pattern, c.flags, s, got, res[k][i])
			}
		}
	}
	if translated < 30 || unknown < 5 {
		t.Errorf("translated %d, unknown %d: the corpus should exercise both", translated, unknown)
	}
}

// TestUnknownReasons: what is outside the subset says why.
func TestUnknownReasons(t *testing.T) {
	for p, want := range map[string]string{`(a)\1`: "backreference", `(?=a)`: "look-ahead", `(?<=a)b`: "look-behind", `a\Bb`: `\B`, `a^b`: "anchor", `(a\b)c`: `\b`} {
		_, err := Translate(p, "")
		var u *Unknown
		if !errors.As(err, &u) || !strings.Contains(u.Reason, want) {
			t.Errorf("%s: %v, want Unknown mentioning %q", p, err, want)
		}
	}
}

// goSafe matches patterns whose meaning Go's regexp shares with
// JavaScript's (no escapes but \d, no classes with escapes, no {}).
var goSafe = regexp.MustCompile(`^[a-c ^$|()*+?.\[\]-]*$`)

// FuzzTranslate: Translate never panics; what it translates compiles (or
// is too large); and on patterns Go's regexp reads the same way as
// JavaScript, the languages agree on sample strings.
func FuzzTranslate(f *testing.F) {
	for _, c := range corpus {
		f.Add(c.pattern, c.flags)
	}
	f.Add("^(a|b)*c$", "")
	f.Add("a[b-c]+", "")
	f.Fuzz(func(t *testing.T, pattern, flags string) {
		if len(pattern) > 200 {
			return
		}
		re, err := Translate(pattern, flags)
		if err != nil {
			return
		}
		l, err := lattice.Compile(re)
		if err != nil {
			if !errors.Is(err, lattice.ErrLangTooLarge) {
				t.Fatalf("/%s/%s: %v", pattern, flags, err)
			}
			return
		}
		if flags != "" || !goSafe.MatchString(pattern) || strings.Contains(pattern, "[]") || strings.Contains(pattern, "[^]") {
			return
		}
		g, err := regexp.Compile(pattern)
		if err != nil {
			return
		}
		for _, s := range []string{"", "a", "b", "c", "ab", "abc", "cba", "aab", " a", "a b", "-", "[", "]", "bb", "ca"} {
			if g.MatchString(s) != l.Match(s) {
				t.Fatalf("/%s/ on %q: Shipgate %v, Go regexp %v", pattern, s, l.Match(s), g.MatchString(s))
			}
		}
	})
}

func hasAstral(s string) bool {
	for _, r := range s {
		if r > 0xffff {
			return true
		}
	}
	return false
}
