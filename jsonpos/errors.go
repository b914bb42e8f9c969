package jsonpos

import (
	"fmt"
	"io"
)

// SyntaxKind classifies a fatal parse error, so that the review engine can
// word its finding (a comment and a byte order mark deserve different advice)
// without matching message text.
type SyntaxKind uint8

// The kinds of fatal error. Every one of them is an input JSON.parse throws on,
// except SyntaxTooDeep, which is a fail-closed bound of this parser.
const (
	SyntaxUnexpected         SyntaxKind = iota // a character that cannot start or continue anything here
	SyntaxEmpty                                // no value at all: empty or whitespace-only input
	SyntaxBOM                                  // the input starts with a UTF-8 byte order mark
	SyntaxComment                              // "//", "/*" or "#" comment
	SyntaxTrailingComma                        // a comma before "]" or "}"
	SyntaxSingleQuote                          // a string or key in single quotes
	SyntaxUnquotedKey                          // an object key that is not a double-quoted string
	SyntaxNonFinite                            // NaN, Infinity, -Infinity
	SyntaxBadLiteral                           // an unknown bare word: True, undefined, tru, foo
	SyntaxLeadingZero                          // 01, -007
	SyntaxPlusSign                             // +1
	SyntaxBadNumber                            // "-", "1.", "1e", ".5", 0x10
	SyntaxBadEscape                            // \x, \', \u12G4 in a string
	SyntaxControlChar                          // an unescaped U+0000..U+001F (line break, tab) in a string
	SyntaxUnterminatedString                   // the input ends inside a string
	SyntaxUnterminated                         // the input ends inside an object or array
	SyntaxMissingComma                         // two members or elements without a comma between them
	SyntaxMissingColon                         // an object key not followed by ":"
	SyntaxMissingValue                         // ":" followed by "," or "}"
	SyntaxExtraData                            // anything but whitespace after the document
	SyntaxInvalidUTF8                          // a byte that is not UTF-8, outside a string
	SyntaxTooDeep                              // nesting deeper than Options.MaxDepth
)

var syntaxKindNames = [...]string{
	SyntaxUnexpected:         "unexpected",
	SyntaxEmpty:              "empty",
	SyntaxBOM:                "bom",
	SyntaxComment:            "comment",
	SyntaxTrailingComma:      "trailing-comma",
	SyntaxSingleQuote:        "single-quote",
	SyntaxUnquotedKey:        "unquoted-key",
	SyntaxNonFinite:          "non-finite",
	SyntaxBadLiteral:         "bad-literal",
	SyntaxLeadingZero:        "leading-zero",
	SyntaxPlusSign:           "plus-sign",
	SyntaxBadNumber:          "bad-number",
	SyntaxBadEscape:          "bad-escape",
	SyntaxControlChar:        "control-char",
	SyntaxUnterminatedString: "unterminated-string",
	SyntaxUnterminated:       "unterminated",
	SyntaxMissingComma:       "missing-comma",
	SyntaxMissingColon:       "missing-colon",
	SyntaxMissingValue:       "missing-value",
	SyntaxExtraData:          "extra-data",
	SyntaxInvalidUTF8:        "invalid-utf8",
	SyntaxTooDeep:            "too-deep",
}

// String returns a stable kebab-case name, fit for JSON output and logs.
func (k SyntaxKind) String() string {
	if int(k) < len(syntaxKindNames) {
		return syntaxKindNames[k]
	}
	return fmt.Sprintf("SyntaxKind(%d)", int(k))
}

// SyntaxError is a fatal parse error: JSON.parse would throw on this input, so
// Claude Code ignores the whole file. Pos is where the error is (for an
// unterminated string or container, the opening quote or bracket that is never
// closed; for a trailing comma, the comma; for a missing comma, the end of the
// value the comma should follow).
type SyntaxError struct {
	Kind SyntaxKind
	Pos
	// Msg says precisely what is wrong, in one sentence a reviewer can read.
	Msg string
	// Hint says what to change to make the file valid.
	Hint string
}

// Error returns "line:column: message", ready to be prefixed with a path.
func (e *SyntaxError) Error() string {
	return fmt.Sprintf("%d:%d: %s", e.Line, e.Column, e.Msg)
}

// TooLargeError reports an input over the size limit. It is returned before
// any of the input is parsed, so a huge file costs nothing but its length.
type TooLargeError struct {
	// Size is the input's length in bytes; with AtLeast, a lower bound (the
	// reader was not read past Limit+1 bytes).
	Size    int
	AtLeast bool
	// Limit is the maximum accepted size in bytes.
	Limit int
}

// Error says how large the input is and what the limit is.
func (e *TooLargeError) Error() string {
	more := ""
	if e.AtLeast {
		more = "more than "
	}
	return fmt.Sprintf("file is %s%d bytes, over the %d-byte limit; it was not parsed", more, e.Size, e.Limit)
}

// ReadLimited reads r to the end, or fails with a *TooLargeError as soon as
// more than max bytes arrive, without reading the rest. It is the streaming
// counterpart of the size check in Options.Parse, for callers that hold a
// reader (an HTTP body, a file) rather than bytes. max <= 0 means
// DefaultMaxSize.
func ReadLimited(r io.Reader, max int) ([]byte, error) {
	if max <= 0 {
		max = DefaultMaxSize
	}
	data, err := io.ReadAll(io.LimitReader(r, int64(max)+1))
	if err != nil {
		return nil, err
	}
	if len(data) > max {
		return nil, &TooLargeError{Size: len(data), AtLeast: true, Limit: max}
	}
	return data, nil
}

// ProblemKind classifies a non-fatal problem.
type ProblemKind uint8

// The kinds of non-fatal problem: inputs JSON.parse accepts but where what
// Claude Code reads differs from what a reader of the file sees.
const (
	// ProblemDuplicateKey: an object key that appears again later in the same
	// object; the later value wins and the earlier one is ignored.
	ProblemDuplicateKey ProblemKind = iota + 1
	// ProblemLoneSurrogate: a \uD800-\uDFFF escape that is not half of a
	// surrogate pair; the decoded Go string holds U+FFFD in its place.
	ProblemLoneSurrogate
	// ProblemInvalidUTF8: a string holding bytes that are not UTF-8; Claude
	// Code (and the decoded Go string) reads them as U+FFFD.
	ProblemInvalidUTF8
	// ProblemBOM: the input starts with a byte order mark that was skipped
	// because Options.AllowBOM is set; some Claude Code builds reject it.
	ProblemBOM
)

// String returns a stable kebab-case name, fit for JSON output and logs.
func (k ProblemKind) String() string {
	switch k {
	case ProblemDuplicateKey:
		return "duplicate-key"
	case ProblemLoneSurrogate:
		return "lone-surrogate"
	case ProblemInvalidUTF8:
		return "invalid-utf8"
	case ProblemBOM:
		return "bom"
	}
	return fmt.Sprintf("ProblemKind(%d)", int(k))
}

// Problem is a non-fatal finding: the document parses as Claude Code parses
// it, but something in it is read differently from how it looks. Pos is the
// offending key or escape (for invalid UTF-8, the first bad byte of the
// string).
type Problem struct {
	Kind ProblemKind
	Pos
	// Message says what is wrong and what Claude Code does with it.
	Message string
	// Key is the decoded key, for ProblemDuplicateKey.
	Key string
	// Other is the earlier occurrence that this key overrides, for
	// ProblemDuplicateKey; zero otherwise.
	Other Pos
}

// String returns "line:column: message".
func (p Problem) String() string {
	return fmt.Sprintf("%d:%d: %s", p.Line, p.Column, p.Message)
}
