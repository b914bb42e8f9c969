// extract-webhook-examples.mjs copies real webhook payload examples, as
// collected by the community in the npm package @octokit/webhooks-examples,
// into githubtest/payloads/*.json. Package githubtest embeds these files and
// builds every delivery it sends by taking the example as a template and
// overwriting the identifying fields (repository, installation, numbers,
// SHAs, refs, sender, action, changes), so deliveries keep the shape GitHub
// really sends.
//
// The package has no `pull_request.edited` example; edited.json is derived
// from the `reopened` example with action "edited" and a `changes.base`
// object, as GitHub sends when a pull request's base branch changes.
// SOURCES.json records where every file came from.
//
// Usage (see regenerate.sh): OCTOKIT_MODULES=/path/to/node_modules node extract-webhook-examples.mjs OUTDIR
import { createRequire } from "node:module";
import fs from "node:fs";
import path from "node:path";

const modules = process.env.OCTOKIT_MODULES || path.join(process.cwd(), "node_modules");
const require = createRequire(path.join(modules, "noop.js"));
const outDir = process.argv[2];
if (!outDir) {
  console.error("usage: extract-webhook-examples.mjs OUTDIR");
  process.exit(2);
}
const events = require("@octokit/webhooks-examples/api.github.com/index.json");
const pkg = require("@octokit/webhooks-examples/package.json");

// pick returns the first example of event whose action matches and that
// satisfies pred (preferring examples delivered to an installation, as an
// App receives them).
function pick(event, action, pred = () => true) {
  const e = events.find((x) => x.name === event);
  if (!e) throw new Error(`event ${event} not in @octokit/webhooks-examples`);
  const candidates = e.examples
    .map((ex, index) => ({ ex, index }))
    .filter(({ ex }) => (action === null || ex.action === action) && pred(ex));
  const best = candidates.find(({ ex }) => ex.installation) || candidates[0];
  if (!best) throw new Error(`no ${event}.${action} example`);
  return best;
}

const wanted = [
  ["pull_request.opened", "pull_request", "opened"],
  ["pull_request.synchronize", "pull_request", "synchronize"],
  ["pull_request.reopened", "pull_request", "reopened"],
  ["pull_request.ready_for_review", "pull_request", "ready_for_review"],
  ["pull_request.closed", "pull_request", "closed"],
  ["pull_request_review.submitted", "pull_request_review", "submitted"],
  ["pull_request_review.dismissed", "pull_request_review", "dismissed"],
  ["check_run.rerequested", "check_run", "rerequested"],
  ["check_run.requested_action", "check_run", "requested_action"],
  ["check_suite.rerequested", "check_suite", "rerequested"],
  ["push", "push", null, (ex) => ex.ref.startsWith("refs/heads/") && ex.commits.length > 0],
  ["installation.created", "installation", "created"],
];

fs.mkdirSync(outDir, { recursive: true });
const sources = {};
const source = `@octokit/webhooks-examples ${pkg.version} api.github.com/index.json`;
for (const [file, event, action, pred] of wanted) {
  const { ex, index } = pick(event, action, pred);
  fs.writeFileSync(path.join(outDir, file + ".json"), JSON.stringify(ex, null, 2) + "\n");
  sources[file] = { source, event, action, example_index: index };
}
{
  const { ex, index } = pick("pull_request", "reopened");
  const edited = structuredClone(ex);
  edited.action = "edited";
  edited.changes = {
    base: {
      ref: { from: "master" },
      sha: { from: edited.pull_request.base.sha },
    },
  };
  // Keep the key order GitHub uses: action, number, changes, pull_request, ...
  const ordered = { action: edited.action, number: edited.number, changes: edited.changes };
  for (const [k, v] of Object.entries(edited)) if (!(k in ordered)) ordered[k] = v;
  fs.writeFileSync(path.join(outDir, "pull_request.edited.json"), JSON.stringify(ordered, null, 2) + "\n");
  sources["pull_request.edited"] = {
    source,
    event: "pull_request",
    action: "edited",
    derived_from: { action: "reopened", example_index: index },
    note: "no pull_request.edited example exists in the package; action and changes.base were set",
  };
}
fs.writeFileSync(path.join(outDir, "SOURCES.json"), JSON.stringify(sources, null, 2) + "\n");
console.log(`wrote ${Object.keys(sources).length} payload templates to ${outDir}`);
