package report

import (
	"github.com/shipgate-app/shipgate/policy"
	"github.com/shipgate-app/shipgate/rating"
)

// Check IDs. The first seven are the original tool's catalogue; the rest
// cover what it leaves silent. docs/checks.md documents each.
const (
	CheckWildcardAllow   = "SHIP-HOST-BOUNDARY-PERMISSION-WILDCARD-ALLOW"
	CheckAllowExpanded   = "SHIP-HOST-BOUNDARY-PERMISSION-ALLOW-EXPANDED"
	CheckDenyRemoved     = "SHIP-HOST-BOUNDARY-PERMISSION-DENY-REMOVED"
	CheckHookChanged     = "SHIP-HOST-BOUNDARY-HOOK-CHANGED"
	CheckMCPServerAdded  = "SHIP-HOST-BOUNDARY-MCP-SERVER-ADDED"
	CheckMCPServerChange = "SHIP-HOST-BOUNDARY-MCP-SERVER-CHANGED"
	CheckParseFailed     = "SHIP-HOST-BOUNDARY-CONFIG-PARSE-FAILED"

	CheckAskRemoved      = "SHIP-HOST-BOUNDARY-PERMISSION-ASK-REMOVED"
	CheckRuleInvalid     = "SHIP-HOST-BOUNDARY-PERMISSION-RULE-INVALID"
	CheckHelperChanged   = "SHIP-HOST-BOUNDARY-COMMAND-HELPER-CHANGED"
	CheckEnvChanged      = "SHIP-HOST-BOUNDARY-ENV-CHANGED"
	CheckSandboxLoosened = "SHIP-HOST-BOUNDARY-SANDBOX-LOOSENED"
	CheckDirectoryAdded  = "SHIP-HOST-BOUNDARY-ADDITIONAL-DIRECTORY-ADDED"
	CheckPluginAdded     = "SHIP-HOST-BOUNDARY-PLUGIN-ADDED"
	CheckDuplicateKey    = "SHIP-HOST-BOUNDARY-CONFIG-DUPLICATE-KEY"
	CheckUnknownKey      = "SHIP-HOST-BOUNDARY-CONFIG-UNKNOWN-KEY"
	CheckCeiling         = "SHIP-HOST-BOUNDARY-POLICY-CEILING-EXCEEDED"
	CheckIntent          = "SHIP-HOST-BOUNDARY-POLICY-INTENT-VIOLATED"
	CheckPolicyLoosened  = "SHIP-HOST-BOUNDARY-POLICY-LOOSENED"
)

// CheckInfo describes a check: its default action and risk, and what it
// means. The catalogue drives SARIF rule metadata and docs/checks.md.
type CheckInfo struct {
	ID      string
	Action  policy.Action
	Risk    rating.Risk
	Title   string
	Summary string
}

// Catalogue lists every check the engine raises, in a stable order.
var Catalogue = []CheckInfo{
	{CheckWildcardAllow, policy.Block, "critical", "Wildcard or exec-equivalent allow rule",
		"A newly granted allow rule matches every target of its kind above read-only (Bash, Bash(*), WebFetch, mcp__server), reaches arbitrary code through a launcher (Bash(npx *), Bash(python3 *)), or a settings value is rated critical (defaultMode: bypassPermissions, enableAllProjectMcpServers: true)."},
	{CheckAllowExpanded, policy.RequireReview, "high", "Allow rule or permission setting expanded",
		"A newly granted allow rule (or a wider replacement of one) lets the agent run something without a prompt that it could not before; or a permission setting grants more (a more permissive mode, an approved .mcp.json server)."},
	{CheckDenyRemoved, policy.RequireReview, "high", "Deny rule removed",
		"A deny rule was removed or narrowed, or a carve-out now excepts paths from one: calls it denied at the base are no longer denied."},
	{CheckAskRemoved, policy.RequireReview, "high", "Ask rule removed",
		"An ask rule was removed or narrowed: calls that prompted at the base may now run without a prompt."},
	{CheckRuleInvalid, policy.Advisory, "medium", "Permission rule Claude Code skips",
		"A rule Claude Code cannot use (malformed, a non-string or blank entry, a lowercase tool name, a path rule for Write/NotebookEdit/Glob/MultiEdit that is never consulted): it grants or restricts nothing, which matters most for deny and ask rules."},
	{CheckHookChanged, policy.RequireReview, "high", "Hook added, changed or removed",
		"A hook runs commands around the agent's actions; a PreToolUse or PermissionRequest hook can approve tool calls without a prompt."},
	{CheckHelperChanged, policy.RequireReview, "high", "Command helper changed",
		"apiKeyHelper, statusLine, awsAuthRefresh, otelHeadersHelper and similar settings run a command Claude Code starts itself, in claude -p even before the folder is trusted."},
	{CheckEnvChanged, policy.RequireReview, "medium", "Environment variable set or changed",
		"The env block sets variables for the session and every subprocess: NODE_OPTIONS, LD_PRELOAD, PATH, ANTHROPIC_BASE_URL and similar change what code runs or where traffic goes."},
	{CheckSandboxLoosened, policy.RequireReview, "high", "Sandbox loosened",
		"A sandbox setting now lets Bash reach more: the sandbox disabled, unsandboxed commands allowed, excluded commands, writable paths or network domains added."},
	{CheckDirectoryAdded, policy.RequireReview, "high", "Additional directory added",
		"additionalDirectories gives the agent file access beyond the project; a path outside the repository reaches other code and credentials."},
	{CheckPluginAdded, policy.RequireReview, "high", "Plugin or marketplace added",
		"An enabled plugin brings hooks, MCP servers and agents with it."},
	{CheckMCPServerAdded, policy.RequireReview, "high", "MCP server added",
		"A new .mcp.json server is a tool surface the agent may call (a stdio server is a command Claude Code spawns; claude -p connects it without asking)."},
	{CheckMCPServerChange, policy.RequireReview, "high", "MCP server changed",
		"An .mcp.json server's command, arguments, URL, environment or headers changed (advisory when the change runs no new code and reaches no new host: a variable that loads no code, a path on the same host, @latest on an unpinned npx package)."},
	{CheckParseFailed, policy.RequireReview, "medium", "Configuration file cannot be read",
		"The file does not parse as strict JSON (comments, trailing commas, a byte order mark), is too large, or is not an object: Claude Code drops the whole file, its deny and ask rules included."},
	{CheckDuplicateKey, policy.RequireReview, "medium", "Duplicate key",
		"The same key appears twice in one object: Claude Code keeps the last one, so what the file appears to say is not what applies."},
	{CheckUnknownKey, policy.Advisory, "low", "Unknown settings key",
		"Claude Code ignores keys it does not know; a misspelled key (\"permission\", \"Allow\") silently does nothing."},
	{CheckCeiling, policy.Block, "high", "Policy ceiling exceeded",
		"An allow rule of a changed settings file is not covered by the policy's ceiling (decided by the lattice, with a call it allows beyond the ceiling), or a rule the ceiling says must stay denied is no longer covered by the project's deny rules."},
	{CheckPolicyLoosened, policy.RequireReview, "high", "Policy loosened",
		"The pull request changes the Shipgate policy file so that it lets more through: a raised check lowered, a ceiling rule added or the ceiling removed, a must_deny rule or an intent dropped, a path newly ignored, a launcher no longer rated, reviewer teams added. The pull request itself is judged under the base's policy; merged, the new policy governs every later one."},
	{CheckIntent, policy.Block, "high", "Policy intent violated",
		"A call the policy says must run without a prompt, prompt, or be denied no longer does at the head, in the effective view of the project's settings (deny, then ask, then allow, then the permission mode)."},
}

// checkInfo returns the catalogue entry of a check.
func CheckInfoOf(id string) CheckInfo {
	for _, c := range Catalogue {
		if c.ID == id {
			return c
		}
	}
	return CheckInfo{ID: id, Action: policy.RequireReview, Risk: "high", Title: id}
}
