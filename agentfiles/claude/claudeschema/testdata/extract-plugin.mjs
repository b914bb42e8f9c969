// extract-plugin.mjs DIR: loads the settings module of Claude Code (the
// same closure TestSchemaFromBinary writes: the module also defines the
// plugin manifest and marketplace schemas; index.json names the functions
// that build them) and prints, as one JSON object on stdout, the JSON
// Schema (draft 2020-12, input side, with the marks extract.mjs puts) of
//   plugin.json         the plugin manifest schema (every key a
//                       .claude-plugin/plugin.json may hold);
//   marketplace.json    the marketplace schema (its plugins list is
//                       read entry by entry with the next one);
//   marketplace entry   the schema of one plugins[] entry (the manifest's
//                       keys, partial, with source, strict, category…).
// It is test tooling: nothing here runs in Shipgate.
import fs from "node:fs";
import path from "node:path";

const dir = process.argv[2];
const idx = JSON.parse(fs.readFileSync(path.join(dir, "index.json"), "utf8"));
function stub(name) {
  return new Proxy(function () {}, {
    get: (t, k) => (k === "then" ? undefined : k === Symbol.toPrimitive ? () => "" : k === Symbol.iterator ? function* () {} : stub(name)),
    apply: () => stub(name),
    construct: () => stub(name),
  });
}
globalThis.__bunstub = stub;
const m = await import(path.join(dir, `${idx.settings}.mjs`));
const toJSON = (z) => z.toJSONSchema({
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
const out = {};
for (const [name, fn] of Object.entries(idx.plugin)) out[name] = toJSON(m[fn]());
process.stdout.write(JSON.stringify(out));
