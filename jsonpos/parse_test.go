package jsonpos

import (
	"errors"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

// fatalCases are inputs JSON.parse rejects, with where and why.
var fatalCases = []struct {
	name      string
	in        string
	kind      SyntaxKind
	line, col int
	msg       string
}{
	{"empty", "", SyntaxEmpty, 1, 1, "file is empty"},
	{"whitespace only", " \n\t\r\n ", SyntaxEmpty, 3, 2, "only whitespace"},
	{"bom", "\xEF\xBB\xBF{}", SyntaxBOM, 1, 1, "byte order mark"},
	{"bom only", "\xEF\xBB\xBF", SyntaxBOM, 1, 1, "byte order mark"},
	{"line comment", "{\n  // allow git\n  \"a\": 1\n}", SyntaxComment, 2, 3, "JSON does not allow comments; Claude Code drops the whole file, deny rules included"},
	{"block comment", "{\"a\": /* x */ 1}", SyntaxComment, 1, 7, "does not allow comments"},
	{"unterminated block comment", "{\"a\": 1 /* x", SyntaxComment, 1, 9, "does not allow comments"},
	{"comment after doc", "{}\n// end\n", SyntaxComment, 2, 1, "does not allow comments"},
	{"comment before doc", "// settings\n{}", SyntaxComment, 1, 1, "does not allow comments"},
	{"hash comment", "{\n# x\n}", SyntaxComment, 2, 1, "'#'"},
	{"comment in array", "[1, // one\n2]", SyntaxComment, 1, 5, "comments"},
	{"comment after key", `{"a" // k` + "\n: 1}", SyntaxComment, 1, 6, "comments"},
	{"trailing comma array", "{\"allow\": [\n  \"Bash(ls)\",\n]}", SyntaxTrailingComma, 2, 13, "trailing comma before ']'"},
	{"trailing comma object", "{\"a\": 1,\n}", SyntaxTrailingComma, 1, 8, "trailing comma before '}'"},
	{"trailing comma nested", "{\"p\": {\"allow\": [\"x\"],}}", SyntaxTrailingComma, 1, 22, "trailing comma"},
	{"single quote value", "{\"a\": 'x'}", SyntaxSingleQuote, 1, 7, "double quotes"},
	{"single quote key", "{'a': 1}", SyntaxSingleQuote, 1, 2, "double quotes"},
	{"single quote top", "'x'", SyntaxSingleQuote, 1, 1, "double quotes"},
	{"typographic quote", "{\"a\": \u201cx\u201d}", SyntaxUnexpected, 1, 7, "typographic quote"},
	{"unquoted key", "{\n  permissions: {}\n}", SyntaxUnquotedKey, 2, 3, "permissions is not quoted"},
	{"unquoted numeric key", "{1: 2}", SyntaxUnquotedKey, 1, 2, "1 is not quoted"},
	{"unquoted unicode key", "{ключ: 2}", SyntaxUnquotedKey, 1, 2, "ключ is not quoted"},
	{"NaN", "[NaN]", SyntaxNonFinite, 1, 2, "NaN is not a JSON value"},
	{"Infinity", "{\"a\": Infinity}", SyntaxNonFinite, 1, 7, "Infinity is not a JSON value"},
	{"-Infinity", "[1, -Infinity]", SyntaxNonFinite, 1, 5, "-Infinity"},
	{"undefined", "[undefined]", SyntaxBadLiteral, 1, 2, "undefined"},
	{"True", "{\"a\": True}", SyntaxBadLiteral, 1, 7, "lower case"},
	{"None", "[None]", SyntaxBadLiteral, 1, 2, "lower case"},
	{"tru", "tru", SyntaxBadLiteral, 1, 1, "unexpected word tru"},
	{"truex", "[truex]", SyntaxBadLiteral, 1, 2, "truex"},
	{"bare word", "{\"a\": allow}", SyntaxBadLiteral, 1, 7, "double-quoted"},
	{"leading zero", "{\"mode\": 0644}", SyntaxLeadingZero, 1, 10, "0644 has a leading zero"},
	{"negative leading zero", "-01", SyntaxLeadingZero, 1, 1, "leading zero"},
	{"plus", "[+1]", SyntaxPlusSign, 1, 2, "cannot start with '+'"},
	{"leading dot", "[.5]", SyntaxBadNumber, 1, 2, "starts with '.'"},
	{"trailing dot", "[1.]", SyntaxBadNumber, 1, 2, "no digit after the decimal point"},
	{"dot exponent", "1.e5", SyntaxBadNumber, 1, 1, "no digit after the decimal point"},
	{"empty exponent", "[1e]", SyntaxBadNumber, 1, 2, "exponent"},
	{"signed empty exponent", "1e+", SyntaxBadNumber, 1, 1, "exponent"},
	{"lone minus", "[-]", SyntaxBadNumber, 1, 2, "'-' must be followed by a digit"},
	{"hex", "[0x1F]", SyntaxBadNumber, 1, 2, "hexadecimal"},
	{"bad escape", `{"a": "C:\Users"}`, SyntaxBadEscape, 1, 10, `invalid escape \U`},
	{"escaped single quote", `["it\'s"]`, SyntaxBadEscape, 1, 5, `\' is not a JSON escape`},
	{"bad unicode escape", `["\u12G4"]`, SyntaxBadEscape, 1, 3, `four hexadecimal digits`},
	{"short unicode escape", `["\u12"]`, SyntaxBadEscape, 1, 3, `four hexadecimal digits`},
	{"escape x", `["\x41"]`, SyntaxBadEscape, 1, 3, `invalid escape \x`},
	{"raw newline in string", "{\"a\": \"Bash(ls\n)\"}", SyntaxControlChar, 1, 15, "line break inside the string that starts at line 1, column 7"},
	{"raw CR in string", "[\"a\rb\"]", SyntaxControlChar, 1, 4, "line break"},
	{"raw tab in string", "[\"a\tb\"]", SyntaxControlChar, 1, 4, "tab"},
	{"raw NUL in string", "[\"a\x00b\"]", SyntaxControlChar, 1, 4, "U+0000"},
	{"unterminated string", "{\"allow\": [\"Bash(ls)", SyntaxUnterminatedString, 1, 12, "unterminated string"},
	{"unterminated after backslash", `["ab\`, SyntaxUnterminatedString, 1, 2, "unterminated string"},
	{"unterminated object", "{\n  \"a\": {\"b\": 1}\n", SyntaxUnterminated, 1, 1, "the '{' at line 1, column 1 is never closed"},
	{"unterminated array", "{\"a\": [1, 2", SyntaxUnterminated, 1, 7, "the '[' at line 1, column 7 is never closed"},
	{"unterminated after key", `{"a"`, SyntaxUnterminated, 1, 1, "never closed"},
	{"unterminated after colon", `{"a": `, SyntaxUnterminated, 1, 1, "never closed"},
	{"open brace only", "{", SyntaxUnterminated, 1, 1, "never closed"},
	{"open bracket only", "[", SyntaxUnterminated, 1, 1, "never closed"},
	{"extra data", "{}\n{}", SyntaxExtraData, 2, 1, "after the end of the document"},
	{"extra brace", "{\"a\": {}}}", SyntaxExtraData, 1, 10, "already closed at line 1, column 10"},
	{"extra comma", "{},", SyntaxExtraData, 1, 3, "after the end of the document"},
	{"invalid utf8 outside string", "{\"a\": 1, \xFF}", SyntaxInvalidUTF8, 1, 10, "invalid UTF-8 byte 0xFF"},
	{"invalid utf8 top", "\xC3", SyntaxInvalidUTF8, 1, 1, "invalid UTF-8"},
	{"missing comma members", "{\"a\": 1\n \"b\": 2}", SyntaxMissingComma, 1, 8, "missing ',' after this member of the object: the next one starts at line 2, column 2"},
	{"missing comma elements", "[\"a\" \"b\"]", SyntaxMissingComma, 1, 5, "missing ',' after this element of the array"},
	{"missing colon", `{"a" 1}`, SyntaxMissingColon, 1, 6, `expected ':' after the key "a"`},
	{"equals for colon", `{"a" = 1}`, SyntaxMissingColon, 1, 6, `found '='`},
	{"missing value", `{"a": }`, SyntaxMissingValue, 1, 7, `missing value for the key "a"`},
	{"missing value comma", `{"a": , "b": 1}`, SyntaxMissingValue, 1, 7, `missing value`},
	{"double comma array", "[1,,2]", SyntaxUnexpected, 1, 4, "empty element"},
	{"leading comma array", "[,1]", SyntaxUnexpected, 1, 2, "empty element"},
	{"double comma object", `{"a": 1,, "b": 2}`, SyntaxUnexpected, 1, 9, "two commas"},
	{"mismatched bracket", `{"a": [1}`, SyntaxUnexpected, 1, 9, "should be closed with ']'"},
	{"mismatched brace", `[{"a": 1]`, SyntaxUnexpected, 1, 9, "should be closed with '}'"},
	{"close only", "}", SyntaxUnexpected, 1, 1, "expected a JSON value, found '}'"},
	{"colon in array", "[1:2]", SyntaxUnexpected, 1, 3, "expected ',' or ']'"},
	{"nbsp", "{\u00a0}", SyntaxUnexpected, 1, 2, "U+00A0 (no-break space) is not JSON whitespace"},
	{"inner bom", "[\uFEFF1]", SyntaxUnexpected, 1, 2, "is not JSON whitespace"},
	{"form feed", "[\f1]", SyntaxUnexpected, 1, 2, "form feed"},
	{"control char", "[\x01]", SyntaxUnexpected, 1, 2, "U+0001"},
	{"slash alone", "[/]", SyntaxUnexpected, 1, 2, "found '/'"},
	{"multibyte column", "{\"é\": \"ü\", \"日本\": x}", SyntaxBadLiteral, 1, 18, "unexpected word x"},
	{"tab column", "{\n\t\t\"a\": x}", SyntaxBadLiteral, 2, 8, "unexpected word x"},
	{"crlf line", "{\r\n  \"a\": 1,\r\n}", SyntaxTrailingComma, 2, 9, "trailing comma"},
	{"deep", strings.Repeat("[", 1001) + strings.Repeat("]", 1001), SyntaxTooDeep, 1, 1001, "more than 1000 levels"},
}

func TestFatal(t *testing.T) {
	for _, tt := range fatalCases {
		t.Run(tt.name, func(t *testing.T) {
			v, _, err := Parse([]byte(tt.in))
			if err == nil {
				t.Fatalf("Parse(%q) succeeded (%s), want %s error", tt.in, v.Kind(), tt.kind)
			}
			if v != nil {
				t.Errorf("Parse returned a value with an error")
			}
			var se *SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("error %T %v is not a *SyntaxError", err, err)
			}
			if se.Kind != tt.kind || se.Line != tt.line || se.Column != tt.col || !strings.Contains(se.Msg, tt.msg) {
				t.Errorf("Parse(%q):\n got %s at %d:%d: %s\nwant %s at %d:%d: …%s…", tt.in, se.Kind, se.Line, se.Column, se.Msg, tt.kind, tt.line, tt.col, tt.msg)
			}
			if se.Hint == "" {
				t.Errorf("no hint for %s", se.Kind)
			}
			if want := NewLineIndex([]byte(tt.in)).Pos(se.Offset); want != se.Pos {
				t.Errorf("error position %+v disagrees with LineIndex %+v", se.Pos, want)
			}
			if want := itoa(se.Line) + ":" + itoa(se.Column) + ": "; !strings.HasPrefix(se.Error(), want) {
				t.Errorf("Error() = %q, want prefix %q", se.Error(), want)
			}
		})
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

func TestProblems(t *testing.T) {
	t.Run("duplicate key", func(t *testing.T) {
		in := "{\n  \"permissions\": {\"allow\": [\"Bash(ls)\"], \"deny\": [\"Bash(rm *)\"]},\n  \"env\": {},\n  \"permissions\": {\"allow\": [\"Bash(*)\"]}\n}"
		v, probs, err := Parse([]byte(in))
		if err != nil {
			t.Fatal(err)
		}
		if len(probs) != 1 {
			t.Fatalf("problems = %v", probs)
		}
		p := probs[0]
		if p.Kind != ProblemDuplicateKey || p.Key != "permissions" || p.Line != 4 || p.Column != 3 ||
			p.Other.Line != 2 || p.Other.Column != 3 || !strings.Contains(p.Message, `duplicate key "permissions"`) ||
			!strings.Contains(p.Message, "line 2, column 3") {
			t.Errorf("problem = %+v", p)
		}
		if got := v.Path("permissions", "allow").Index(0).Text(); got != "Bash(*)" {
			t.Errorf("last value should win, got %q", got)
		}
		if v.Path("permissions", "deny") != nil {
			t.Errorf("the overridden object's deny must not be visible")
		}
		if v.Len() != 2 || len(v.Members()) != 2 || len(v.AllMembers()) != 3 {
			t.Errorf("Len %d Members %d AllMembers %d", v.Len(), len(v.Members()), len(v.AllMembers()))
		}
		all := v.AllMembers()
		if !all[0].Overridden || all[1].Overridden || all[2].Overridden {
			t.Errorf("Overridden flags wrong: %v %v %v", all[0].Overridden, all[1].Overridden, all[2].Overridden)
		}
		if m := v.Members(); m[0].Key != "env" || m[1].Key != "permissions" || m[1].KeyStart.Line != 4 {
			t.Errorf("Members order: %q@%d %q@%d", m[0].Key, m[0].KeyStart.Line, m[1].Key, m[1].KeyStart.Line)
		}
		checkTree(t, []byte(in), v)
	})
	t.Run("triple duplicate and escaped spelling", func(t *testing.T) {
		in := `{"a": 1, "\u0061": 2, "a": 3}`
		v, probs, err := Parse([]byte(in))
		if err != nil {
			t.Fatal(err)
		}
		if len(probs) != 2 || probs[0].Other.Column != 2 || probs[1].Other.Column != 10 || probs[1].Column != 23 {
			t.Fatalf("problems = %+v", probs)
		}
		if v.Get("a").Raw() != "3" || v.Len() != 1 {
			t.Errorf("Get(a) = %s, Len %d", v.Get("a").Raw(), v.Len())
		}
	})
	t.Run("duplicates in large object", func(t *testing.T) {
		var b strings.Builder
		b.WriteString("{")
		for i := range 100 {
			b.WriteString(`"k` + itoa(i) + `": ` + itoa(i) + `, `)
		}
		b.WriteString(`"k7": "last", "k99": "last"}`)
		v, probs, err := Parse([]byte(b.String()))
		if err != nil {
			t.Fatal(err)
		}
		if len(probs) != 2 || probs[0].Key != "k7" || probs[1].Key != "k99" {
			t.Fatalf("problems = %+v", probs)
		}
		if v.Get("k7").Text() != "last" || v.Get("k99").Text() != "last" || v.Get("k50").Raw() != "50" || v.Len() != 100 {
			t.Errorf("lookup in large object wrong")
		}
		if v.Get("nope") != nil {
			t.Errorf("Get of a missing key")
		}
		checkTree(t, []byte(b.String()), v)
	})
	t.Run("lone surrogate", func(t *testing.T) {
		in := "[\n  \"a\\ud800b\", \"\\udc00\", \"\\ud83d\\ude00\", \"\\ud800\\u0041\"\n]"
		v, probs, err := Parse([]byte(in))
		if err != nil {
			t.Fatal(err)
		}
		if len(probs) != 3 {
			t.Fatalf("problems = %+v", probs)
		}
		for i, want := range [][2]int{{2, 5}, {2, 16}, {2, 42}} {
			if p := probs[i]; p.Kind != ProblemLoneSurrogate || p.Line != want[0] || p.Column != want[1] || !strings.Contains(p.Message, "lone surrogate") {
				t.Errorf("problem %d = %+v, want at %v", i, p, want)
			}
		}
		for i, want := range []string{"a\uFFFDb", "\uFFFD", "😀", "\uFFFDA"} {
			if got := v.Index(i).Text(); got != want {
				t.Errorf("element %d = %q, want %q", i, got, want)
			}
		}
	})
	t.Run("lone surrogate keys are distinct as in JavaScript", func(t *testing.T) {
		in := `{"\ud800": 1, "\udbff": 2, "\ud800": 3, "\ufffd": 4}`
		v, probs, err := Parse([]byte(in))
		if err != nil {
			t.Fatal(err)
		}
		dups := 0
		for _, p := range probs {
			if p.Kind == ProblemDuplicateKey {
				dups++
				if p.Column != 28 || p.Other.Column != 2 {
					t.Errorf("duplicate at %+v, other %+v", p.Pos, p.Other)
				}
			}
		}
		if dups != 1 || v.Len() != 3 {
			t.Errorf("dups %d, Len %d; problems %+v", dups, v.Len(), probs)
		}
		if v.Get("\ufffd").Raw() != "4" {
			t.Errorf(`Get("\ufffd") = %s`, v.Get("\ufffd").Raw())
		}
	})
	t.Run("invalid utf8 in string", func(t *testing.T) {
		in := "{\n  \"allow\": [\"Bash(git \xE0\xA0 \xFF\xFE \xED\xA0\x80 \xF0\x90\x80)\"]\n}"
		v, probs, err := Parse([]byte(in))
		if err != nil {
			t.Fatal(err)
		}
		if len(probs) != 1 || probs[0].Kind != ProblemInvalidUTF8 || probs[0].Line != 2 || probs[0].Column != 23 ||
			!strings.Contains(probs[0].Message, "7 byte sequences") {
			t.Fatalf("problems = %+v", probs)
		}
		// Maximal subparts, as Node decodes: E0 A0 -> 1, FF -> 1, FE -> 1,
		// ED A0 80 -> 3 (A0 cannot follow ED), F0 90 80 -> 1.
		want := "Bash(git \uFFFD \uFFFD\uFFFD \uFFFD\uFFFD\uFFFD \uFFFD)"
		if got := v.Path("allow").Index(0).Text(); got != want {
			t.Errorf("decoded %q, want %q", got, want)
		}
		checkTree(t, []byte(in), v)
	})
	t.Run("invalid utf8 key duplicates like JavaScript", func(t *testing.T) {
		in := "{\"\xFF\": 1, \"\xFE\": 2}"
		v, probs, err := Parse([]byte(in))
		if err != nil {
			t.Fatal(err)
		}
		kinds := map[ProblemKind]int{}
		for _, p := range probs {
			kinds[p.Kind]++
		}
		if kinds[ProblemInvalidUTF8] != 2 || kinds[ProblemDuplicateKey] != 1 || v.Len() != 1 {
			t.Errorf("problems %+v, Len %d", probs, v.Len())
		}
	})
	t.Run("bom allowed", func(t *testing.T) {
		in := "\xEF\xBB\xBF{\n\"a\": 1}"
		v, probs, err := Options{AllowBOM: true}.Parse([]byte(in))
		if err != nil {
			t.Fatal(err)
		}
		if len(probs) != 1 || probs[0].Kind != ProblemBOM || probs[0].Line != 1 || probs[0].Column != 1 {
			t.Fatalf("problems = %+v", probs)
		}
		if v.Start() != (Pos{Offset: 3, Line: 1, Column: 1}) || v.AllMembers()[0].KeyStart != (Pos{Offset: 5, Line: 2, Column: 1}) {
			t.Errorf("positions %+v %+v", v.Start(), v.AllMembers()[0].KeyStart)
		}
		checkTree(t, []byte(in), v)
	})
	t.Run("problems before a fatal error are returned", func(t *testing.T) {
		_, probs, err := Parse([]byte(`{"a": 1, "a": 2,}`))
		if err == nil || len(probs) != 1 {
			t.Fatalf("err %v, problems %+v", err, probs)
		}
	})
}

func TestPositions(t *testing.T) {
	// Tabs, CRLF line endings and multibyte characters; columns count code points.
	in := "{\r\n" +
		"\t\"permissions\": {\r\n" +
		"\t\t\"allow\": [\r\n" +
		"\t\t\t\"Bash(ls)\",\r\n" +
		"\t\t\t\"Read(~/文書/**)\", \"WebFetch(domain:例え.jp)\"\r\n" +
		"\t\t],\r\n" +
		"\t\t\"ñ\": 1.5e3\r\n" +
		"\t}\r\n" +
		"}\r\n"
	v, probs, err := Parse([]byte(in))
	if err != nil || len(probs) != 0 {
		t.Fatalf("err %v problems %v", err, probs)
	}
	checkTree(t, []byte(in), v)
	pos := func(l, c int) Pos { return Pos{Line: l, Column: c} }
	at := func(p Pos) Pos { return Pos{Line: p.Line, Column: p.Column} }
	perm, _ := v.Lookup("permissions")
	allow, _ := perm.Value.Lookup("allow")
	enye, _ := perm.Value.Lookup("ñ")
	checks := []struct {
		what      string
		got, want Pos
	}{
		{"root start", at(v.Start()), pos(1, 1)},
		{"root end", at(v.End()), pos(9, 2)},
		{"permissions key", at(perm.KeyStart), pos(2, 2)},
		{"permissions key end", at(perm.KeyEnd()), pos(2, 15)},
		{"permissions value", at(perm.Value.Start()), pos(2, 17)},
		{"permissions value end", at(perm.Value.End()), pos(8, 3)},
		{"allow key", at(allow.KeyStart), pos(3, 3)},
		{"allow array", at(allow.Value.Start()), pos(3, 12)},
		{"rule 0", at(allow.Value.Index(0).Start()), pos(4, 4)},
		{"rule 0 end", at(allow.Value.Index(0).End()), pos(4, 14)},
		{"rule 1", at(allow.Value.Index(1).Start()), pos(5, 4)},
		{"rule 1 end", at(allow.Value.Index(1).End()), pos(5, 19)},
		{"rule 2", at(allow.Value.Index(2).Start()), pos(5, 21)},
		{"rule 2 end", at(allow.Value.Index(2).End()), pos(5, 45)},
		{"ñ key", at(enye.KeyStart), pos(7, 3)},
		{"ñ value", at(enye.Value.Start()), pos(7, 8)},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("%s at %d:%d, want %d:%d", c.what, c.got.Line, c.got.Column, c.want.Line, c.want.Column)
		}
	}
	if got := allow.Value.Index(1).Text(); got != "Read(~/文書/**)" {
		t.Errorf("rule 1 = %q", got)
	}
	if f, ok := enye.Value.Float(); !ok || f != 1500 {
		t.Errorf("Float = %v %v", f, ok)
	}
}

func TestLongSingleLine(t *testing.T) {
	// A minified file: every position is on line 1; columns must still be right.
	var b strings.Builder
	b.WriteString(`{"allow":[`)
	for i := range 2000 {
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString(`"Bash(é` + itoa(i) + `)"`)
	}
	b.WriteString("]}")
	data := []byte(b.String())
	v, _, err := Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	checkTree(t, data, v)
	last := v.Get("allow").Index(1999)
	if last.Start().Line != 1 || last.Start().Column != utf8.RuneCount(data[:last.Start().Offset])+1 {
		t.Errorf("last rule at %+v", last.Start())
	}
}

func TestStringsAndEscapes(t *testing.T) {
	tests := []struct{ in, want string }{
		{`"plain"`, "plain"},
		{`""`, ""},
		{`"\u0041\u00e9\u00E9"`, "Aéé"},
		{`"\ud83d\ude00"`, "😀"},
		{`"\uD834\uDD1E"`, "𝄞"},
		{`"a\/b"`, "a/b"},
		{`"\"\\\b\f\n\r\t"`, "\"\\\b\f\n\r\t"},
		{`"C:\\Users\\me"`, `C:\Users\me`},
		{`"\u0000"`, "\x00"},
		{`"日本語 ü"`, "日本語 ü"},
		{"\"\u2028\u2029\"", "\u2028\u2029"},
		{"\"\x7f\"", "\x7f"},
		{"\"\uFEFF\"", "\uFEFF"},
		{"\"\uFFFD\"", "\uFFFD"},
		{`"Bash(npm run *)"`, "Bash(npm run *)"},
	}
	for _, tt := range tests {
		v, probs, err := Parse([]byte(tt.in))
		if err != nil || len(probs) != 0 {
			t.Errorf("Parse(%s): %v %v", tt.in, err, probs)
			continue
		}
		if v.Kind() != String || v.Text() != tt.want || v.Raw() != tt.in {
			t.Errorf("Parse(%s) = %s %q raw %q, want %q", tt.in, v.Kind(), v.Text(), v.Raw(), tt.want)
		}
		sameAsStd(t, []byte(tt.in), v)
	}
}

func TestNumbers(t *testing.T) {
	tests := []struct {
		in   string
		want float64
	}{
		{"0", 0}, {"-0", 0}, {"1", 1}, {"-1", -1}, {"10", 10}, {"0.5", 0.5}, {"-0.0", 0},
		{"1e3", 1000}, {"1E+3", 1000}, {"1e-3", 0.001}, {"2.5E-1", 0.25}, {"0e0", 0},
		{"123456789012345678901234567890", 1.2345678901234568e29},
		{"9007199254740993", 9007199254740992},
	}
	for _, tt := range tests {
		v, _, err := Parse([]byte(tt.in))
		if err != nil {
			t.Errorf("Parse(%s): %v", tt.in, err)
			continue
		}
		if v.Kind() != Number || v.Raw() != tt.in {
			t.Errorf("Parse(%s) = %s raw %q", tt.in, v.Kind(), v.Raw())
		}
		if f, ok := v.Float(); !ok || f != tt.want {
			t.Errorf("Float(%s) = %v %v, want %v", tt.in, f, ok, tt.want)
		}
	}
	v, _, _ := Parse([]byte("[1e400, -1e400, 1e-400]"))
	if f, _ := v.Index(0).Float(); f <= 1e308 {
		t.Errorf("1e400 = %v, want +Inf as JSON.parse", f)
	}
	if f, _ := v.Index(1).Float(); f >= -1e308 {
		t.Errorf("-1e400 = %v, want -Inf", f)
	}
	if f, ok := v.Index(2).Float(); !ok || f != 0 {
		t.Errorf("1e-400 = %v %v, want 0", f, ok)
	}
	if _, ok := v.Float(); ok {
		t.Errorf("Float of an array")
	}
}

func TestDeepNesting(t *testing.T) {
	for _, n := range []int{1, 999, 1000} {
		in := strings.Repeat(`{"a":[`, n/2) + strings.Repeat("[", n%2) + "1" + strings.Repeat("]", n%2) + strings.Repeat("]}", n/2)
		if _, _, err := Parse([]byte(in)); err != nil {
			t.Errorf("depth %d: %v", n, err)
		}
	}
	// Far deeper than any stack would allow for a naive recursive parser.
	for _, in := range []string{
		strings.Repeat("[", 500000),
		strings.Repeat(`{"a":`, 200000),
	} {
		_, _, err := ParseLimit([]byte(in), -1)
		var se *SyntaxError
		if !errors.As(err, &se) || se.Kind != SyntaxTooDeep || se.Offset == 0 {
			t.Errorf("deep input: %v", err)
		}
	}
	if _, _, err := (Options{MaxDepth: 3}).Parse([]byte("[[[[1]]]]")); err == nil || !strings.Contains(err.Error(), "more than 3 levels") {
		t.Errorf("MaxDepth 3: %v", err)
	}
	if _, _, err := (Options{MaxDepth: 1 << 30}).Parse([]byte(strings.Repeat("[", MaxDepthLimit+1))); err == nil ||
		!strings.Contains(err.Error(), "more than 10000 levels") {
		t.Errorf("MaxDepth capped: %v", err)
	}
}

func TestAgreesWithEncodingJSON(t *testing.T) {
	docs := []string{
		`{}`, `[]`, `null`, `true`, `false`, `0`, `"s"`, ` {"a" : [ 1 , 2 ] } `,
		n8n, ray,
		`{"a":{"b":{"c":[{"d":null},{"e":[true,false,-1.5e-7]}]}},"f":"\u00e9\n"}`,
		`{"dup":1,"dup":{"x":[1]},"other":[],"dup":"last"}`,
		`[{"": ""}, {"\u0000": "\ud800"}, "\udfff\ud800x"]`,
		"[\"\xE0\xA0\xFF\xED\xA0\x80\"]",
		"{\"\xFF\":1,\"\xFE\":2}",
		"\t\r\n [ \"x\" ] \r\n",
	}
	for _, d := range docs {
		v, _, err := Parse([]byte(d))
		if err != nil {
			t.Errorf("Parse(%q): %v", d, err)
			continue
		}
		checkTree(t, []byte(d), v)
		sameAsStd(t, []byte(d), v)
	}
}

func TestAccessors(t *testing.T) {
	v, _, err := Parse([]byte(ray))
	if err != nil {
		t.Fatal(err)
	}
	if v.Path("permissions", "allow").Len() != 11 || v.Path("permissions", "deny").Index(3).Text() != "Bash(*;*)" {
		t.Errorf("Path lookups wrong")
	}
	if v.Path() != v || v.Path("permissions", "allow", "x") != nil || v.Path("nope", "allow") != nil {
		t.Errorf("Path edge cases wrong")
	}
	var nilv *Value
	if nilv.Get("a") != nil || nilv.Index(0) != nil || nilv.Len() != 0 || nilv.Path("a") != nil ||
		nilv.Members() != nil || nilv.AllMembers() != nil || nilv.Elements() != nil {
		t.Errorf("nil receiver not safe")
	}
	if _, ok := nilv.Lookup("a"); ok {
		t.Errorf("nil Lookup")
	}
	if _, ok := nilv.Float(); ok {
		t.Errorf("nil Float")
	}
	allow := v.Path("permissions", "allow")
	if allow.Index(-1) != nil || allow.Index(11) != nil || allow.Get("x") != nil || allow.Members() != nil {
		t.Errorf("array accessors out of range")
	}
	if s := allow.Index(0); s.Len() != 0 || s.Elements() != nil || s.Index(0) != nil {
		t.Errorf("string accessors")
	}
	empty, _, _ := Parse([]byte(`{"o": {}, "a": []}`))
	if o := empty.Get("o"); o.Kind() != Object || o.Len() != 0 || o.Members() != nil || o.Get("x") != nil {
		t.Errorf("empty object")
	}
	if a := empty.Get("a"); a.Kind() != Array || a.Len() != 0 || a.Index(0) != nil {
		t.Errorf("empty array")
	}
	for k, want := range map[Kind]string{Invalid: "invalid", Null: "null", Bool: "boolean", Number: "number", String: "string", Array: "array", Object: "object"} {
		if k.String() != want {
			t.Errorf("Kind %d = %s", k, k)
		}
	}
	if SyntaxComment.String() != "comment" || SyntaxKind(200).String() != "SyntaxKind(200)" ||
		ProblemDuplicateKey.String() != "duplicate-key" || ProblemKind(0).String() != "ProblemKind(0)" {
		t.Errorf("kind names")
	}
	tv, _, _ := Parse([]byte(`[true, false, null]`))
	if !tv.Index(0).Bool() || tv.Index(1).Bool() || tv.Index(1).Kind() != Bool || tv.Index(2).Kind() != Null {
		t.Errorf("literals")
	}
}

func TestSizeLimit(t *testing.T) {
	big := []byte(`["` + strings.Repeat("x", DefaultMaxSize) + `"]`)
	_, _, err := Parse(big)
	var tl *TooLargeError
	if !errors.As(err, &tl) || tl.Size != len(big) || tl.Limit != DefaultMaxSize || tl.AtLeast {
		t.Fatalf("Parse(2 MiB) = %v", err)
	}
	if !strings.Contains(err.Error(), "over the 1048576-byte limit") {
		t.Errorf("message %q", err)
	}
	if _, _, err := ParseLimit(big, -1); err != nil {
		t.Errorf("no limit: %v", err)
	}
	if _, _, err := ParseLimit([]byte(`{"a": 1}`), 5); !errors.As(err, &tl) {
		t.Errorf("limit 5: %v", err)
	}
	if _, _, err := ParseLimit([]byte(`{"a": 1}`), 8); err != nil {
		t.Errorf("limit 8 (exact size): %v", err)
	}
	data, err := ReadLimited(strings.NewReader(`{"a": 1}`), 8)
	if err != nil || string(data) != `{"a": 1}` {
		t.Errorf("ReadLimited exact: %q %v", data, err)
	}
	r := &countingReader{r: strings.NewReader(strings.Repeat(" ", 10<<20))}
	if _, err := ReadLimited(r, 0); !errors.As(err, &tl) || !tl.AtLeast || tl.Limit != DefaultMaxSize {
		t.Errorf("ReadLimited(10 MiB) = %v", err)
	}
	if r.n > DefaultMaxSize+64<<10 {
		t.Errorf("ReadLimited read %d bytes, should stop near the limit", r.n)
	}
	if !strings.Contains(tl.Error(), "more than") {
		t.Errorf("message %q", tl.Error())
	}
}

type countingReader struct {
	r interface{ Read([]byte) (int, error) }
	n int
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += n
	return n, err
}

func TestLineIndex(t *testing.T) {
	data := []byte("ab\r\n\tü\n\n日本x")
	ix := NewLineIndex(data)
	tests := []struct{ off, line, col int }{
		{0, 1, 1}, {1, 1, 2}, {2, 1, 3}, {3, 1, 4}, {4, 2, 1}, {5, 2, 2}, {7, 2, 3},
		{8, 3, 1}, {9, 4, 1}, {12, 4, 2}, {15, 4, 3}, {16, 4, 4}, {-5, 1, 1}, {100, 4, 4},
	}
	for _, tt := range tests {
		if l, c := ix.Position(tt.off); l != tt.line || c != tt.col {
			t.Errorf("Position(%d) = %d:%d, want %d:%d", tt.off, l, c, tt.line, tt.col)
		}
	}
	if ix.Lines() != 4 {
		t.Errorf("Lines = %d", ix.Lines())
	}
	bomIx := NewLineIndex([]byte("\xEF\xBB\xBF{}"))
	if l, c := bomIx.Position(3); l != 1 || c != 1 {
		t.Errorf("BOM is zero columns: %d:%d", l, c)
	}
	if _, c := NewLineIndex([]byte("\xFF\xFEx")).Position(2); c != 3 {
		t.Errorf("invalid bytes count one column each: %d", c)
	}
}

const n8n = `{
	"permissions": {
		"allow": [
			"Bash(git log:*)",
			"Bash(git show:*)",
			"Bash(grep:*)",
			"Bash(ls:*)",
			"Bash(pnpm build)",
			"Bash(pnpm lint:*)",
			"Bash(pnpm test:*)",
			"Bash(pnpm typecheck:*)",
			"Bash(popd)",
			"Bash(pushd:*)"
		]
	}
}
`

const ray = `{
  "permissions": {
    "allow": [
      "Bash(bazel build *)",
      "Bash(bazel test *)",
      "Bash(bazel run *)",
      "Bash(bazel query *)",
      "Bash(bazel info *)",
      "Bash(python -m pytest *)",
      "Bash(pip install -e *)",
      "Bash(git status)",
      "Bash(git diff *)",
      "Bash(git log *)",
      "Bash(git branch *)"
    ],
    "deny": [
      "Bash(*&&*)",
      "Bash(*||*)",
      "Bash(*|*)",
      "Bash(*;*)"
    ]
  }
}`

// TestPosTable holds the fuzz harness's position table to LineIndex.
func TestPosTable(t *testing.T) {
	for _, in := range []string{"", "a\r\nb", "\xEF\xBB\xBF{\n\"é\":\t\"日\xFF\xE0\xA0\"}", "\n\n\xF0\x9F\x98\x80x"} {
		data := []byte(in)
		pt := newPosTable(data)
		for off := range len(data) + 1 {
			if pt.tab[off].Line != 0 && pt.tab[off] != pt.ix.Pos(off) {
				t.Errorf("%q offset %d: table %+v, LineIndex %+v", in, off, pt.tab[off], pt.ix.Pos(off))
			}
		}
	}
}

// TestNodeDecode pins the test oracle for Node's replacement of invalid UTF-8.
func TestNodeDecode(t *testing.T) {
	for in, want := range map[string]string{
		"\xE0\xA0":          "\uFFFD",
		"\xED\xA0\x80":      "\uFFFD\uFFFD\uFFFD",
		"\xF0\x90\x80x":     "\uFFFDx",
		"\xFF\xFE":          "\uFFFD\uFFFD",
		"\xE4\xE4\xA1\xF4":  "\uFFFD\uFFFD\uFFFD",
		"\xC3\xA9\xC3":      "é\uFFFD",
		"\xF4\x90\x80\x80":  "\uFFFD\uFFFD\uFFFD\uFFFD",
		"\xE1\x80\xE1\x80x": "\uFFFD\uFFFDx",
	} {
		if got := string(nodeDecode([]byte(in))); got != want {
			t.Errorf("nodeDecode(%q) = %q, want %q", in, got, want)
		}
		v, _, err := Parse([]byte(`"` + in + `"`))
		if err != nil || v.Text() != want {
			t.Errorf("Parse(%q) = %q %v, want %q", in, v.Text(), err, want)
		}
	}
}

// TestCanon: layout, key order and duplicate-free nesting do not change
// the canonical text; values do.
func TestCanon(t *testing.T) {
	for _, c := range []struct {
		a, b string
		same bool
	}{
		{`{"b": 1, "a": [true, null, "x"]}`, `{"a":[true,null,"x"],"b":1}`, true},
		{`{"a": {"d": 1, "c": 2}}`, "{\n  \"a\": {\"c\": 2, \"d\": 1}\n}", true},
		{`{"a": "\u0078"}`, `{"a": "x"}`, true},
		{`{"a": 1}`, `{"a": 1.0}`, false},
		{`{"a": [1, 2]}`, `{"a": [2, 1]}`, false},
	} {
		va, _, err := Parse([]byte(c.a))
		if err != nil {
			t.Fatal(err)
		}
		vb, _, err := Parse([]byte(c.b))
		if err != nil {
			t.Fatal(err)
		}
		if got := Canon(va) == Canon(vb); got != c.same {
			t.Errorf("Canon(%s)=%s, Canon(%s)=%s: same=%v, want %v", c.a, Canon(va), c.b, Canon(vb), got, c.same)
		}
	}
	if got := Canon(nil); got != "null" {
		t.Errorf("Canon(nil) = %q, want null", got)
	}
}
