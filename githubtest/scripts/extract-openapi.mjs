// extract-openapi.mjs copies, from GitHub's own OpenAPI description of
// api.github.com (npm package @octokit/openapi), the request-body and
// response JSON schemas of exactly the REST operations that package
// githubtest serves, plus the webhook payload schemas of the deliveries it
// sends. Each output file is one self-contained JSON Schema document: every
// $ref is resolved against the description and the referenced component is
// bundled into the file's $defs, and OpenAPI 3.0's `nullable: true` is
// rewritten into JSON Schema 2020-12 (a "null" type), so the Go tests can
// compile the files with santhosh-tekuri/jsonschema/v6 without network or npm.
//
// Usage (see regenerate.sh): OCTOKIT_MODULES=/path/to/node_modules node extract-openapi.mjs OUTDIR
import { createRequire } from "node:module";
import fs from "node:fs";
import path from "node:path";

const modules = process.env.OCTOKIT_MODULES || path.join(process.cwd(), "node_modules");
const require = createRequire(path.join(modules, "noop.js"));
const outDir = process.argv[2];
if (!outDir) {
  console.error("usage: extract-openapi.mjs OUTDIR");
  process.exit(2);
}
const spec = require("@octokit/openapi/generated/api.github.com.json");
const pkg = require("@octokit/openapi/package.json");

// The operations githubtest serves: [method, path]. Keep in step with routes.go.
const operations = [
  ["get", "/app"],
  ["get", "/app/installations"],
  ["post", "/app/installations/{installation_id}/access_tokens"],
  ["get", "/repos/{owner}/{repo}/installation"],
  ["get", "/repos/{owner}/{repo}"],
  ["get", "/repos/{owner}/{repo}/pulls"],
  ["get", "/repos/{owner}/{repo}/pulls/{pull_number}"],
  ["get", "/repos/{owner}/{repo}/pulls/{pull_number}/files"],
  ["get", "/repos/{owner}/{repo}/pulls/{pull_number}/reviews"],
  ["get", "/repos/{owner}/{repo}/contents/{path}"],
  ["post", "/repos/{owner}/{repo}/check-runs"],
  ["get", "/repos/{owner}/{repo}/check-runs/{check_run_id}"],
  ["patch", "/repos/{owner}/{repo}/check-runs/{check_run_id}"],
  ["get", "/repos/{owner}/{repo}/check-runs/{check_run_id}/annotations"],
  ["get", "/repos/{owner}/{repo}/commits/{ref}/check-runs"],
  ["get", "/orgs/{org}/teams/{team_slug}/memberships/{username}"],
  ["get", "/app/hook/deliveries"],
  ["get", "/app/hook/deliveries/{delivery_id}"],
  ["post", "/app/hook/deliveries/{delivery_id}/attempts"],
  ["post", "/app-manifests/{code}/conversions"],
  ["get", "/rate_limit"],
];

// The webhook payloads githubtest sends (x-webhooks keys).
const webhooks = [
  "pull-request-opened",
  "pull-request-synchronize",
  "pull-request-reopened",
  "pull-request-edited",
  "pull-request-ready-for-review",
  "pull-request-closed",
  "pull-request-review-submitted",
  "pull-request-review-dismissed",
  "check-run-rerequested",
  "check-run-requested-action",
  "check-suite-rerequested",
  "push",
  "installation-created",
];

function lookup(ref) {
  if (!ref.startsWith("#/")) throw new Error(`external $ref ${ref}`);
  let node = spec;
  for (const part of ref.slice(2).split("/")) {
    node = node[part.replace(/~1/g, "/").replace(/~0/g, "~")];
    if (node === undefined) throw new Error(`unresolved $ref ${ref}`);
  }
  return node;
}

// defName turns "#/components/schemas/simple-user" into "schemas.simple-user".
function defName(ref) {
  return ref.replace(/^#\/components\//, "").replace(/\//g, ".");
}

// Known inaccuracies of the description, corrected so that GitHub's real
// responses validate. Each is listed in the output's "corrections".
const corrections = [
  {
    why: "installation.account is a user OR an enterprise; the description says allOf (both at once), which no real account satisfies",
    match: (node) =>
      Array.isArray(node.allOf) &&
      node.allOf.length === 2 &&
      node.allOf.map((n) => (n.$ref ? lookup(n.$ref).title : n.title)).join("|") === "Simple User|Enterprise",
    fix: (node) => {
      const { allOf, ...rest } = node;
      return { ...rest, anyOf: allOf };
    },
  },
];
const applied = new Set();

// convert rewrites one schema node: $refs become local, nullable becomes a null type.
function convert(node, defs) {
  if (Array.isArray(node)) return node.map((n) => convert(n, defs));
  if (node === null || typeof node !== "object") return node;
  for (const c of corrections) {
    if (c.match(node)) {
      node = c.fix(node);
      applied.add(c.why);
    }
  }
  if (typeof node.$ref === "string") {
    const name = defName(node.$ref);
    if (!(name in defs)) {
      defs[name] = true; // placeholder breaks cycles
      defs[name] = convert(lookup(node.$ref), defs);
    }
    return { $ref: `#/$defs/${name}` };
  }
  const out = {};
  for (const [k, v] of Object.entries(node)) {
    if (k === "example" || k === "examples" || k === "nullable") continue;
    if (k === "properties" || k === "patternProperties") {
      out[k] = Object.fromEntries(Object.entries(v).map(([pk, pv]) => [pk, convert(pv, defs)]));
    } else {
      out[k] = convert(v, defs);
    }
  }
  if (node.nullable === true) {
    if (typeof out.type === "string") {
      out.type = [out.type, "null"];
      if (Array.isArray(out.enum) && !out.enum.includes(null)) out.enum = [...out.enum, null];
    } else if (out.type === undefined) {
      return { anyOf: [{ type: "null" }, out] };
    }
  }
  return out;
}

function jsonContent(content) {
  if (!content) return undefined;
  if (content["application/json"]?.schema) return content["application/json"].schema;
  for (const [type, media] of Object.entries(content)) {
    if (type.includes("json") && media.schema) return media.schema;
  }
  return undefined;
}

function write(file, doc) {
  fs.writeFileSync(path.join(outDir, file), JSON.stringify(doc, null, 1) + "\n");
}

fs.mkdirSync(path.join(outDir, "webhooks"), { recursive: true });
const source = `@octokit/openapi ${pkg.version} generated/api.github.com.json (${spec.info.version})`;
const index = [];
for (const [method, p] of operations) {
  const op = spec.paths[p]?.[method];
  if (!op) throw new Error(`operation ${method} ${p} not in the description`);
  const defs = {};
  const doc = {
    $schema: "https://json-schema.org/draft/2020-12/schema",
    source,
    operationId: op.operationId,
    method: method.toUpperCase(),
    path: p,
  };
  let body = op.requestBody;
  if (body?.$ref) body = lookup(body.$ref);
  const reqSchema = jsonContent(body?.content);
  if (reqSchema) doc.request = convert(reqSchema, defs);
  // responses: the application/json schema by status; media: the schemas
  // of custom JSON media types (e.g. application/vnd.github.object) by
  // media type and status.
  doc.responses = {};
  doc.media = {};
  for (const [status, resp0] of Object.entries(op.responses)) {
    const resp = resp0.$ref ? lookup(resp0.$ref) : resp0;
    const schema = jsonContent(resp.content);
    if (schema) doc.responses[status] = convert(schema, defs);
    for (const [type, media] of Object.entries(resp.content || {})) {
      if (type === "application/json" || !type.startsWith("application/vnd.github.") || !media.schema) continue;
      if (type.endsWith(".raw") || type.endsWith(".diff") || type.endsWith(".patch")) continue;
      (doc.media[type] ||= {})[status] = convert(media.schema, defs);
    }
  }
  doc.corrections = [...applied];
  applied.clear();
  doc.$defs = defs;
  const file = op.operationId.replace(/\//g, "_") + ".json";
  write(file, doc);
  index.push({ operationId: op.operationId, method: method.toUpperCase(), path: p, file });
}
for (const name of webhooks) {
  const hook = spec["x-webhooks"][name]?.post;
  if (!hook) throw new Error(`webhook ${name} not in the description`);
  const defs = {};
  const doc = {
    $schema: "https://json-schema.org/draft/2020-12/schema",
    source,
    webhook: name,
    schema: convert(jsonContent(hook.requestBody.content), defs),
  };
  doc.corrections = [...applied];
  applied.clear();
  doc.$defs = defs;
  write(path.join("webhooks", name + ".json"), doc);
}
write("index.json", { source, operations: index, webhooks });
console.log(`wrote ${index.length} operations and ${webhooks.length} webhook schemas to ${outDir}`);
