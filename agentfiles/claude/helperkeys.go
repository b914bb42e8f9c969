package claude

// HelperKeys are settings holding a command Claude Code runs itself. The
// binary keeps its own list of them (the settings whose command it reports
// as the session's shell settings); internal/conformance's
// TestHelperKeysInBinary fails when that list names a key missing here.
// policyHelper is the single-platform spelling of policyHelpers.
var HelperKeys = []string{"apiKeyHelper", "awsAuthRefresh", "awsCredentialExport", "gcpAuthRefresh", "otelHeadersHelper",
	"proxyAuthHelper", "statusLine", "subagentStatusLine", "fileSuggestion", "policyHelper", "policyHelpers", "processWrapper"}
