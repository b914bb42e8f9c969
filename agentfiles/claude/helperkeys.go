package claude

// HelperKeys are settings holding a command Claude Code runs itself.
var HelperKeys = []string{"apiKeyHelper", "awsAuthRefresh", "awsCredentialExport", "gcpAuthRefresh", "otelHeadersHelper",
	"statusLine", "subagentStatusLine", "fileSuggestion", "policyHelper", "processWrapper"}
