// extract-examples.mjs copies the real GitHub webhook payloads that the
// webhook package's tests use out of the npm package @octokit/webhooks-examples
// into webhook/testdata/<event>.<action>.json. The files are checked in, so CI
// never needs npm; rerun this script only to refresh them.
//
// Usage (from the repository root):
//
//	mkdir -p /tmp/wx && (cd /tmp/wx && npm init -y >/dev/null && npm install @octokit/webhooks-examples)
//	node webhook/scripts/extract-examples.mjs /tmp/wx/node_modules/@octokit/webhooks-examples
//
// Each wanted example is chosen by event name, action and a predicate
// (usually "carries an installation", as every App delivery does). The script
// fails loudly when an example disappears, rather than writing a stale set.

import { readFileSync, writeFileSync, mkdirSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const pkgDir = process.argv[2] ?? "/tmp/wx/node_modules/@octokit/webhooks-examples";
const outDir = resolve(dirname(fileURLToPath(import.meta.url)), "..", "testdata");

const pkg = JSON.parse(readFileSync(join(pkgDir, "package.json"), "utf8"));
const index = JSON.parse(readFileSync(join(pkgDir, "api.github.com", "index.json"), "utf8"));

const hasInstallation = (x) => x.installation && x.installation.id;
const any = () => true;

// [event, action ("" for events without one), predicate, output name]
const wanted = [
  ["ping", "", any, "ping"],
  ["pull_request", "opened", hasInstallation, "pull_request.opened"],
  ["pull_request", "reopened", hasInstallation, "pull_request.reopened"],
  ["pull_request", "synchronize", hasInstallation, "pull_request.synchronize"],
  ["pull_request", "ready_for_review", hasInstallation, "pull_request.ready_for_review"],
  ["pull_request", "converted_to_draft", hasInstallation, "pull_request.converted_to_draft"],
  ["pull_request", "closed", hasInstallation, "pull_request.closed"],
  ["pull_request", "labeled", hasInstallation, "pull_request.labeled"],
  ["pull_request_review", "submitted", hasInstallation, "pull_request_review.submitted"],
  ["pull_request_review", "dismissed", hasInstallation, "pull_request_review.dismissed"],
  ["check_run", "rerequested", hasInstallation, "check_run.rerequested"],
  ["check_run", "requested_action", hasInstallation, "check_run.requested_action"],
  ["check_run", "created", any, "check_run.created"],
  ["check_run", "completed", any, "check_run.completed"],
  ["check_suite", "rerequested", hasInstallation, "check_suite.rerequested"],
  ["check_suite", "requested", hasInstallation, "check_suite.requested"],
  ["check_suite", "completed", (x) => x.check_suite.pull_requests.length === 0, "check_suite.completed"],
  ["push", "", (x) => hasInstallation(x) && x.ref.startsWith("refs/heads/"), "push.branch"],
  ["push", "", (x) => hasInstallation(x) && x.ref.startsWith("refs/tags/"), "push.tag"],
  ["installation", "created", hasInstallation, "installation.created"],
  ["installation_repositories", "added", hasInstallation, "installation_repositories.added"],
];

mkdirSync(outDir, { recursive: true });
for (const [event, action, pred, name] of wanted) {
  const def = index.find((e) => e.name === event);
  if (!def) throw new Error(`event ${event} not in ${pkg.name}@${pkg.version}`);
  const ex = def.examples.find((x) => (action === "" || x.action === action) && pred(x));
  if (!ex) throw new Error(`no ${event}.${action || "*"} example matching the predicate in ${pkg.name}@${pkg.version}`);
  writeFileSync(join(outDir, `${name}.json`), JSON.stringify(ex, null, 2) + "\n");
  console.log(`wrote testdata/${name}.json`);
}

// Every example of every event the router decodes, one file per event
// (testdata/octokit/<event>.json: {"source", "examples": [...]}, compact),
// so the router is tested against all of GitHub's published shapes, not
// only the ones picked above.
const routedEvents = [
  "ping", "installation", "installation_repositories", "pull_request",
  "pull_request_review", "check_run", "check_suite", "push",
];
mkdirSync(join(outDir, "octokit"), { recursive: true });
for (const event of routedEvents) {
  const def = index.find((e) => e.name === event);
  if (!def) throw new Error(`event ${event} not in ${pkg.name}@${pkg.version}`);
  const source = `npm ${pkg.name}@${pkg.version}, api.github.com/index.json, event ${event}`;
  writeFileSync(join(outDir, "octokit", `${event}.json`), JSON.stringify({ source, examples: def.examples }) + "\n");
  console.log(`wrote testdata/octokit/${event}.json (${def.examples.length} examples)`);
}

writeFileSync(
  join(outDir, "README.md"),
  `# Webhook payload fixtures

Real GitHub webhook payloads copied verbatim from the npm package
\`${pkg.name}@${pkg.version}\` (MIT licence, github.com/octokit/webhooks) by
\`webhook/scripts/extract-examples.mjs\`. Do not edit them by hand: tests adjust
fields (app id, sender, changes.base, pushed file lists, installation) in memory
where a case needs it. Regenerate with the command in the script's header.

\`octokit/<event>.json\` holds every example the package publishes for each event
the router decodes (\`{"source": ..., "examples": [...]}\`, compact JSON, the
examples unchanged); \`TestOctokitExamples\` routes each one.
`,
);
