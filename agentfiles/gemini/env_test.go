package gemini

import (
	"fmt"
	"strings"
	"testing"
)

func TestReadEnv(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want string
	}{
		{"A=1\n", "A=1@1"},
		{"export NODE_OPTIONS=--require ./x.js\n", "NODE_OPTIONS=--require ./x.js@1"},
		{"# a comment\n\nB = 'two words' \nC=\"q\"\nD=x # note\n", "B=two words@3 C=q@4 D=x@5"},
		{"E: colon\n", "E=colon@1"},
		{"A=1\nA=2\n", "A=2@2"},
		{"not an assignment\n=x\n", ""},
		// A line inside a multi-line quoted value still counts (dotenv
		// would take it as part of K's value): listed, never missed.
		{"K=\"a\nBASH_ENV=./x\"\n", `K="a@1 BASH_ENV=./x"@2`},
		{"\ufeffA=1\r\nB=2\r\n", "A=1@1 B=2@2"},
		{"F=\n", "F=@1"},
	} {
		var got []string
		for _, v := range ReadEnv([]byte(tc.in)) {
			got = append(got, fmt.Sprintf("%s=%s@%d", v.Name, v.Value, v.Line))
		}
		if g := strings.Join(got, " "); g != tc.want {
			t.Errorf("ReadEnv(%q) = %q, want %q", tc.in, g, tc.want)
		}
	}
}

// FuzzReadEnv: any input reads without a panic, and every name listed is
// one dotenv accepts.
func FuzzReadEnv(f *testing.F) {
	for _, s := range []string{"A=1\n", "export B='x'\n", "C: y # z\n", "D=\"a\nE=b\"\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, v := range ReadEnv([]byte(s)) {
			if v.Name == "" || strings.ContainsAny(v.Name, " =\n") || v.Line < 1 {
				t.Fatalf("ReadEnv(%q): bad variable %+v", s, v)
			}
		}
	})
}
