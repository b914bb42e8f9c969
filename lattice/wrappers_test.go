package lattice

import (
	"reflect"
	"strings"
	"testing"
)

func TestCommandForms(t *testing.T) {
	tests := []struct {
		in      string
		allow   []string // forms after the command itself
		deny    []string // forms after the command itself
		wrapper string
	}{
		{in: "npm test"},
		{in: "npm test > out.txt 2>&1", allow: []string{"npm test > out.txt"}, deny: []string{"npm test > out.txt"}},
		{in: "npm run build > /dev/null 2>&1", allow: []string{"npm run build"}, deny: []string{"npm run build"}}, // 2.1.328, measured
		// The fixed wrappers, stripped for every rule.
		{in: "timeout 30 npm test", allow: []string{"npm test"}, deny: []string{"npm test"}},
		{in: "timeout -s KILL 5 npm test", allow: []string{"npm test"}, deny: []string{"npm test"}},
		{in: "timeout --signal=KILL 5s make", allow: []string{"make"}, deny: []string{"make"}},
		{in: "time npm test", allow: []string{"npm test"}, deny: []string{"npm test"}},
		{in: "time -p npm test", allow: []string{"npm test"}, deny: []string{"npm test"}},
		{in: "nice -n 10 make", allow: []string{"make"}, deny: []string{"make"}},
		{in: "nice -5 make", allow: []string{"make"}, deny: []string{"make"}},
		{in: "nohup npm run dev", allow: []string{"npm run dev"}, deny: []string{"npm run dev"}},
		{in: "stdbuf -oL -e 0 make", allow: []string{"make"}, deny: []string{"make"}},
		{in: "command git status", allow: []string{"git status"}, deny: []string{"git status"}},
		{in: "builtin echo hi", allow: []string{"echo hi"}, deny: []string{"echo hi"}},
		{in: "noglob rm *.o", allow: []string{"rm *.o"}, deny: []string{"rm *.o"}},
		{in: "xargs grep x", allow: []string{"grep x"}, deny: []string{"grep x"}},
		{in: "nice -n 10 timeout 5 make", allow: []string{"timeout 5 make", "make"}, deny: []string{"timeout 5 make", "make"}},
		// Not wrappers in these shapes.
		{in: "xargs -n1 grep x"},
		{in: "command -v npm"},
		{in: "timeout 30"},
		// A quoted wrapper is read unquoted, by allow rules too (they see
		// through the command word's spelling: 2.1.328, measured with
		// `'timeout' 5 git push x` under Bash(git *)).
		{in: "'timeout' 30 npm test", allow: []string{"timeout 30 npm test", "npm test"}, deny: []string{"timeout 30 npm test", "npm test"}},
		{in: "timeout"},
		// Leading assignments: known-safe ones for allow rules, any for deny.
		{in: "NODE_ENV=test npm test", allow: []string{"npm test"}, deny: []string{"npm test"}},
		{in: "LANG=C TZ=UTC date", allow: []string{"date"}, deny: []string{"date"}},
		{in: "FOO=bar rm -rf tmp/", deny: []string{"rm -rf tmp/"}},
		{in: "NODE_ENV=test FOO=1 npm test", deny: []string{"npm test"}},
		{in: "FOO=1 timeout 5 rm x", deny: []string{"timeout 5 rm x", "rm x"}},
		{in: "NODE_ENV=test timeout 5 npm test", allow: []string{"timeout 5 npm test", "npm test"}, deny: []string{"timeout 5 npm test", "npm test"}},
		// Exec wrappers: deny and ask rules see through them; allow rules
		// never approve through watch, setsid, ionice or flock.
		{in: "sudo rm -rf /", deny: []string{"rm -rf /"}},
		{in: "sudo -u bob -- rm x", deny: []string{"rm x"}},
		{in: "sudo HOME=/tmp rm x", deny: []string{"rm x"}},
		{in: "sudo -l"},
		{in: "env rm x", deny: []string{"rm x"}},
		{in: "env -i PATH=/bin A=1 rm x", deny: []string{"rm x"}},
		{in: "env -u HOME rm x", deny: []string{"rm x"}},
		{in: "env -S 'rm x'"},
		{in: "watch -n 5 npm test", deny: []string{"npm test"}, wrapper: "watch"},
		{in: "setsid make", deny: []string{"make"}, wrapper: "setsid"},
		{in: "ionice -c 3 make", deny: []string{"make"}, wrapper: "ionice"},
		{in: "ionice -p 42", wrapper: "ionice"}, // named by its first word: Claude Code asks
		{in: "flock /tmp/lock make", deny: []string{"make"}, wrapper: "flock"},
		{in: "flock -c 'make' /tmp/lock", wrapper: "flock"},
		{in: "timeout 3 watch ls", allow: []string{"watch ls"}, deny: []string{"watch ls", "ls"}, wrapper: "watch"},
		{in: "FOO=1 watch ls", deny: []string{"watch ls", "ls"}, wrapper: "watch"},
		{in: "time timeout 3 sudo rm x", allow: []string{"timeout 3 sudo rm x", "sudo rm x"}, deny: []string{"timeout 3 sudo rm x", "sudo rm x", "rm x"}},
		// Not simple commands: only themselves.
		{in: "export A=1"},
		{in: "[[ -f x ]]"},
		{in: "> out.txt"},
	}
	texts := func(fs []Form) []string {
		var out []string
		for _, f := range fs[1:] {
			out = append(out, f.Text)
		}
		return out
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			fs := CommandForms(tt.in)
			if len(fs.Allow) == 0 || fs.Allow[0] != (Form{Text: tt.in}) || len(fs.Deny) == 0 || fs.Deny[0] != (Form{Text: tt.in}) {
				t.Fatalf("forms %+v do not start with the command itself", fs)
			}
			if got := texts(fs.Allow); !reflect.DeepEqual(got, tt.allow) {
				t.Errorf("allow forms %q, want %q", got, tt.allow)
			}
			if got := texts(fs.Deny); !reflect.DeepEqual(got, tt.deny) {
				t.Errorf("deny forms %q, want %q", got, tt.deny)
			}
			if fs.Wrapper != tt.wrapper {
				t.Errorf("wrapper %q, want %q", fs.Wrapper, tt.wrapper)
			}
		})
	}
}

func TestCommandFormsSaysWhatItSetAside(t *testing.T) {
	fs := CommandForms("NODE_ENV=test timeout 5 npm test")
	want := []Form{{Text: "NODE_ENV=test timeout 5 npm test"}, {Text: "timeout 5 npm test", Past: "NODE_ENV=test"}, {Text: "npm test", Past: "NODE_ENV=test timeout 5"}}
	if !reflect.DeepEqual(fs.Allow, want) {
		t.Errorf("allow forms %+v, want %+v", fs.Allow, want)
	}
	fs = CommandForms("time -p sudo rm x")
	if last := fs.Deny[len(fs.Deny)-1]; last != (Form{Text: "rm x", Past: "time -p sudo"}) {
		t.Errorf("last deny form %+v", last)
	}
}

// FuzzCommandForms holds the reader's invariants on any text: no panic;
// the command itself comes first; every form is a suffix of the command;
// every allow form is also a deny form.
func FuzzCommandForms(f *testing.F) {
	for _, s := range []string{"timeout 30 npm test", "NODE_ENV=test npm test", "sudo -u x -- env A=1 rm -rf /", "time -p watch -n 1 ls", "flock -w 3 /l make", "xargs", "env -S x", `a="$(b)" c`, "nice -"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if len(s) > 4096 {
			return
		}
		fs := CommandForms(s)
		if fs.Allow[0].Text != s || fs.Deny[0].Text != s {
			t.Fatalf("first forms %q %q, want the command", fs.Allow[0].Text, fs.Deny[0].Text)
		}
		deny := map[string]bool{}
		for i, d := range fs.Deny {
			// A suffix of the command, or of it with its blanks normalised.
			suffix := strings.HasSuffix(trimBlanks(s), trimBlanks(d.Text)) || strings.HasSuffix(collapseSpace(s), collapseSpace(d.Text))
			if !suffix || (i > 0 && d.Text == "") {
				t.Fatalf("deny form %q is not a non-empty suffix of %q", d.Text, s)
			}
			deny[d.Text] = true
		}
		for _, a := range fs.Allow {
			if !deny[a.Text] {
				t.Fatalf("allow form %q is not a deny form of %q", a.Text, s)
			}
		}
	})
}
