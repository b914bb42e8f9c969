// Gemini CLI's own policy engine as an oracle (driven by gemini.go): it
// imports PolicyEngine and createPolicyEngineConfig from the pinned
// @google/gemini-cli bundle chunk named in argv[2], reads a JSON array of
// {settings, calls: [{tool, command}]} on stdin, and prints one result per
// call: {decision, source, priority} of the rule that decided it.
const m = await import(process.argv[2]);
const { PolicyEngine, createPolicyEngineConfig, ApprovalMode } = m;
let text = '';
for await (const chunk of process.stdin) text += chunk;
const out = [];
for (const c of JSON.parse(text)) {
  const cfg = await createPolicyEngineConfig(c.settings, ApprovalMode.DEFAULT, undefined, true);
  const engine = new PolicyEngine(cfg);
  for (const call of c.calls) {
    const shell = call.tool === 'run_shell_command' || call.tool === 'ShellTool';
    const tc = shell ? { name: call.tool, args: { command: call.command } } : { name: call.tool, args: {} };
    const r = await engine.check(tc, undefined);
    out.push({ decision: r.decision, source: r.rule?.source ?? null, priority: r.rule?.priority ?? null });
  }
}
process.stdout.write(JSON.stringify(out) + '\n');
