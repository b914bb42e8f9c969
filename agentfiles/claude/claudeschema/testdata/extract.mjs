// extract.mjs DIR: loads the settings module of Claude Code (written into
// DIR by TestSchemaFromBinary, imports rewritten to DIR/<n>.mjs) and
// prints, as one JSON object on stdout:
//   gates   the feature gates the schema was built with (Won());
//   schema  the JSON Schema (draft 2020-12, input side) of the settings
//           schema its loader validates a file with, from zod's own
//           toJSONSchema; a node whose failures zod catches is marked
//           "x-catch", a node whose value the loader repairs before
//           validation (its pre-filters) "x-repaired", a node zod checks
//           with a refinement JSON Schema cannot state "x-refined";
//   loads   for every probe document: does the loader (TA, the function
//           that reads a project or local settings file) keep the file
//           or drop it, and with what first issue.
// It is test tooling: nothing here runs in Shipgate.
import fs from "node:fs";
import path from "node:path";

const dir = process.argv[2];
const idx = JSON.parse(fs.readFileSync(path.join(dir, "index.json"), "utf8"));
// A module of the closure that Claude Code loads with a bare require of a
// bundled path: its exports play no part in the schema.
function stub(name) {
  return new Proxy(function () {}, {
    get: (t, k) => (k === "then" ? undefined : k === Symbol.toPrimitive ? () => "" : k === Symbol.iterator ? function* () {} : stub(name)),
    apply: () => stub(name),
    construct: () => stub(name),
  });
}
globalThis.__bunstub = stub;
const m = await import(path.join(dir, `${idx.settings}.mjs`));
const gates = m[idx.gates]();
const zschema = m[idx.whole](gates);
const loadFile = m[idx.load];

const schema = zschema.toJSONSchema({
  target: "draft-2020-12", io: "input", unrepresentable: "any", reused: "inline", cycles: "ref",
  override: (ctx) => {
    const def = ctx.zodSchema._zod.def;
    if (def.type === "catch") ctx.jsonSchema["x-catch"] = true;
    // A key zod's input side calls optional (its union holds a transform)
    // whose schema still refuses a missing value: the object parse fails
    // without it, so the loader requires it ("x-required").
    if (def.type === "object" && def.shape && ctx.jsonSchema.properties) {
      const req = new Set(ctx.jsonSchema.required ?? []);
      const more = Object.keys(def.shape).filter((k) => !req.has(k) && k in ctx.jsonSchema.properties && def.shape[k]._zod.optout !== "optional" && !def.shape[k].safeParse(undefined).success);
      if (more.length) ctx.jsonSchema["x-required"] = more.sort();
    }
    if ((def.checks ?? []).some((c) => c._zod?.def?.check === "custom")) ctx.jsonSchema["x-refined"] = true;
    if (def.type === "pipe" || def.type === "transform") ctx.jsonSchema["x-transformed"] = true;
    // A check JSON Schema cannot state (z.custom, a bare transform): it
    // comes out as {}, which would accept anything.
    if (def.type === "custom" || def.type === "transform") ctx.jsonSchema["x-opaque"] = true;
    // A type no JSON value has (z.undefined() in a union, z.never()); zod
    // calls no override for such a node, so its union marks it.
    const never = (t) => ["undefined", "void", "never", "symbol", "date", "bigint", "function", "nan", "map", "set", "promise"].includes(t);
    if (never(def.type)) ctx.jsonSchema["x-never"] = true;
    const alts = ctx.jsonSchema.anyOf ?? ctx.jsonSchema.oneOf;
    if (def.type === "union" && alts && alts.length === def.options.length) {
      def.options.forEach((o, i) => {
        if (never(o._zod.def.type)) alts[i]["x-never"] = true;
      });
    }
    // A transformed enum may take more spellings than it lists (an alias
    // its preprocessing rewrites): each string literal in the source of
    // its transform that the zod schema itself accepts is listed in
    // "x-accepts".
    if (ctx.jsonSchema.enum && def.type === "pipe") {
      const src = String(def.in?._zod?.def?.transform ?? "");
      const words = [...src.matchAll(/"([^"\\]{1,40})"/g)].map((x) => x[1]);
      const extra = [...new Set(words)].filter((w) => !ctx.jsonSchema.enum.includes(w) && ctx.zodSchema.safeParse(w).success);
      if (extra.length) ctx.jsonSchema["x-accepts"] = extra.sort();
    }
  },
});

// Probe documents: for every node of the schema, a valid sample and
// values of the wrong type, placed in a document whose other members are
// valid samples.
function sample(s, depth = 0) {
  if (!s || typeof s !== "object" || depth > 8) return undefined;
  if ("const" in s) return s.const;
  if (s.enum) return s.enum[0];
  if (s.anyOf || s.oneOf) return sample((s.anyOf || s.oneOf)[0], depth + 1);
  switch (s.type) {
    case "string": {
      if (s.format === "uri" || s.format === "url") return "https://example.com/x";
      if (s.format === "email") return "a@example.com";
      if (s.format === "uuid") return "123e4567-e89b-42d3-a456-426614174000";
      return "x".repeat(Math.max(1, s.minLength ?? 0));
    }
    case "integer":
    case "number":
      return s.minimum ?? (s.exclusiveMinimum !== undefined ? s.exclusiveMinimum + 1 : 1);
    case "boolean":
      return true;
    case "null":
      return null;
    case "array": {
      const n = s.minItems ?? 0;
      const e = sample(s.items, depth + 1);
      return Array.from({ length: n }, () => e);
    }
    case "object": {
      const o = {};
      for (const k of s.required ?? []) o[k] = sample(s.properties?.[k], depth + 1);
      return o;
    }
  }
  return undefined;
}
// Values that break a node: one of each JSON kind its type does not
// allow, and values that break its constraints.
const kind = (v) => (v === null ? "null" : Array.isArray(v) ? "array" : typeof v === "number" ? "number" : typeof v);
const ofKind = { string: "x", number: 5, boolean: true, null: null, array: [], object: {} };
// The JSON kinds a node's type admits (all of them for a node without one).
function kindsOf(s) {
  if (s["x-never"]) return new Set();
  if (s.anyOf || s.oneOf) {
    const all = new Set();
    for (const a of s.anyOf || s.oneOf) for (const k of kindsOf(a)) all.add(k);
    return all;
  }
  if (!s.type) return new Set(Object.keys(ofKind));
  const allowed = new Set(Array.isArray(s.type) ? s.type : [s.type]);
  if (allowed.has("integer")) allowed.add("number");
  return allowed;
}
function wrongs(s, siblings) {
  const out = [];
  const t = s.type;
  if (s.enum) out.push("shipgate-not-a-value");
  if ("const" in s && typeof s.const === "string") out.push(s.const + "-shipgate");
  if (t || s.anyOf || s.oneOf) {
    const allowed = kindsOf(s);
    if (allowed.has("integer")) allowed.add("number");
    for (const [k, v] of Object.entries(ofKind)) if (!allowed.has(k)) out.push(v);
  }
  if (t === "number" || t === "integer") out.push("30");
  if (t === "integer") out.push(1.5);
  if (t === "boolean") out.push("yes");
  if ((t === "number" || t === "integer") && typeof s.minimum === "number") out.push(s.minimum - 1);
  if ((t === "number" || t === "integer") && typeof s.exclusiveMinimum === "number") out.push(s.exclusiveMinimum);
  if (t === "string" && s.minLength > 0) out.push("");
  // In a union, a value another branch takes is no wrong value.
  return siblings ? out.filter((v) => !siblings.has(kind(v))) : out;
}
// Values of a refined node's own type that break common refinements:
// blanks, separators, path traversal, NUL, non-ASCII, inner wildcards,
// URLs; for an object, its sample with every key set (distinct strings)
// and with every string key the same.
const breakStrings = ["", " ", "x y", " x", "x ", "..", "a/b", "a\\b", ".", "x\u0000", "\u00e9", "*", "x*", "*x", "x*y", "http://localhost/x", "https://example.com/x", "/abs/x", "./x", "x..y", "a//b", "constructor", "-x", "X_1", "k"];
function breakers(s) {
  if (s.type === "string") return breakStrings;
  if (s.type !== "object" || !s.properties) return [];
  const full = { ...sample(s) }, same = { ...sample(s) };
  let i = 0;
  for (const [k, c] of Object.entries(s.properties)) {
    const v = sample(c);
    if (v === undefined) continue;
    full[k] = c.type === "string" && !c.enum && !("const" in c) && !c.format ? "V" + String.fromCharCode(65 + i++) : v;
    if (typeof same[k] === "string" && c.type === "string" && !c.enum && !("const" in c)) same[k] = "V";
  }
  const one = {};
  const [k0, c0] = Object.entries(s.properties)[0] ?? [];
  if (k0 !== undefined && sample(c0) !== undefined) one[k0] = sample(c0);
  return [full, same, one];
}
const probes = [];
function put(skel, value) {
  return skel(value);
}
function walk(s, skel, where, depth, siblings) {
  if (!s || typeof s !== "object" || depth > 6) return;
  const ok = sample(s);
  if (ok !== undefined) probes.push({ where, node: s, doc: put(skel, ok) });
  for (const w of wrongs(s, siblings)) probes.push({ where, node: s, wrong: w, doc: put(skel, w) });
  // A refinement (a check JSON Schema cannot state) is probed with values
  // that break the usual ones: the loader's verdict says whether its
  // failure drops the file or only removes the entry (a pre-filter).
  if (s["x-refined"]) for (const b of breakers(s)) probes.push({ where, node: s, refine: true, doc: put(skel, b) });
  if (s.type === "object" && s.properties) {
    for (const [k, c] of Object.entries(s.properties)) {
      walk(c, (v) => skel({ ...sample(s), [k]: v }), where + "." + k, depth + 1);
    }
  }
  if (s.type === "object" && s.additionalProperties && typeof s.additionalProperties === "object") {
    // A key the record accepts: the first of its enum (hook events), else k.
    const key = s.propertyNames?.enum?.[0] ?? "k";
    walk(s.additionalProperties, (v) => skel({ ...sample(s), [key]: v }), where + ".*", depth + 1);
  }
  if (s.type === "array" && s.items) walk(s.items, (v) => skel([v]), where + "[]", depth + 1);
  const union = s.anyOf ?? s.oneOf;
  if (union) {
    const all = kindsOf(s);
    for (const alt of union) walk(alt, skel, where + "|", depth + 1, all);
  }
}
for (const [k, c] of Object.entries(schema.properties)) walk(c, (v) => ({ [k]: v }), k, 1);

const fixed = [
  "", "  \n", "{}", "[]", "null", "5", "{\"model\": \"x\",}", "{\n // c\n}", "\ufeff{}",
  "\ufeff{\"permissions\": {\"deny\": [\"Bash(x)\"]}}", "{\"a\": 1, \"a\": \"x\"}", "{\"model\": 5, \"model\": \"x\"}",
  "{\"permissions\": {\"allow\": [5, \"Bash(ls)\"]}}", "{\"permissions\": {\"allow\": [\"bash(ls)\"]}}",
  "{\"permissions\": {\"deny\": [null]}}", "{\"permissions\": {\"defaultMode\": \"manual\"}}",
  "{\"shipgateUnknownKey\": 5}", "{\"permissions\": {\"shipgateUnknownKey\": 5}}",
];
const seen = new Set();
const loads = [];
function probe(text, where, p) {
  if (seen.has(text)) return;
  seen.add(text);
  let r;
  try {
    r = loadFile(text, "/p/.claude/settings.json", false);
  } catch (e) {
    loads.push({ where, doc: text, error: String(e) });
    return;
  }
  const row = { where, doc: text, loaded: r.settings !== null };
  const first = (r.errors ?? []).find((e) => e.severity !== "warning");
  if (!row.loaded && first) {
    row.path = first.path;
    row.message = first.message;
  }
  loads.push(row);
  if (p && "wrong" in p) row.probe = p;
  if (p && p.refine) row.refine = true;
}
for (const t of fixed) probe(t, "fixed");
for (const p of probes) probe(JSON.stringify(p.doc), p.where, p);

// A node whose wrong value the loader keeps is lenient there: a
// pre-filter strips or rewrites the value, or a transform or catch
// accepts it. The node is marked "x-repaired" with the JSON kinds of the
// wrong values kept (measured: a wrong value of another kind still drops
// the file).
for (const row of loads) {
  const p = row.probe;
  delete row.probe;
  if (!p || !row.loaded) continue;
  row.repaired = true;
  const ks = new Set(p.node["x-repaired"] ?? []);
  ks.add(kind(p.wrong));
  p.node["x-repaired"] = [...ks].sort();
}
// A refined string node whose every breaking value the loader kept
// (the entry is removed with a warning, or the key is not read from a
// project file) is marked "x-refine-kept": its refinement never drops the
// file, as far as these values show. An object's refinement relates its
// members and two breakers do not show it; Validate's own table says
// which of those it models.
const refineDrops = new Map();
for (const p of probes) {
  if (!p.refine || p.node.type !== "string") continue;
  const row = loads.find((r) => r.doc === JSON.stringify(p.doc));
  refineDrops.set(p.node, (refineDrops.get(p.node) ?? false) || !row || row.loaded === false);
}
for (const [n, dropped] of refineDrops) if (!dropped) n["x-refine-kept"] = true;
process.stdout.write(JSON.stringify({ gates, schema, loads }));
