// A real ACP client from outside the project: the TypeScript SDK's client
// app (@agentclientprotocol/sdk, pinned by package-lock.json) starts
// `rubichan acp ARGS...`, initializes, opens a session in the current
// directory, sends each PROMPT of $ACP_PROMPTS (separated by "|"), allows
// every permission request once, and prints what it saw, a line each, for
// the test to check: the negotiated version, the session, the updates by
// kind, the permission requests, the stop reasons. Exit 1 on any error.
import { spawn } from "node:child_process";
import { Readable, Writable } from "node:stream";
import { client, methods, ndJsonStream, PROTOCOL_VERSION } from "@agentclientprotocol/sdk";

const [cmd, ...args] = process.argv.slice(2);
const agentProc = spawn(cmd, args, { stdio: ["pipe", "pipe", "inherit"] });
const stream = ndJsonStream(Writable.toWeb(agentProc.stdin), Readable.toWeb(agentProc.stdout));
const say = (s) => process.stdout.write(s + "\n");

const app = client({ name: "rubichan-acp-test-client" })
  .onRequest(methods.client.session.requestPermission, ({ params }) => {
    say(`permission ${params.toolCall.title} [${params.options.map((o) => o.kind).join(" ")}]`);
    return { outcome: { outcome: "selected", optionId: params.options.find((o) => o.kind === "allow_once").optionId } };
  })
  .onNotification(methods.client.session.update, ({ params }) => {
    const u = params.update;
    switch (u.sessionUpdate) {
      case "agent_message_chunk":
        say(`text ${u.content.text}`);
        break;
      case "tool_call":
        say(`tool_call ${u.toolCallId} ${u.kind} ${u.status} ${u.title}`);
        break;
      case "tool_call_update":
        say(`tool_call_update ${u.toolCallId} ${u.status}${(u.content ?? []).map((c) => " " + c.type).join("")}`);
        break;
      case "usage_update":
        say(`usage_update used=${u.used} size=${u.size}`);
        break;
      default:
        say(`update ${u.sessionUpdate}`);
    }
  });

try {
  await app.connectWith(stream, async (ctx) => {
    const init = await ctx.request(methods.agent.initialize, {
      protocolVersion: PROTOCOL_VERSION,
      clientCapabilities: {},
      clientInfo: { name: "rubichan-acp-test-client", version: "1" },
    });
    say(`initialized version=${init.protocolVersion} agent=${init.agentInfo?.name}`);
    const { sessionId } = await ctx.request(methods.agent.session.new, { cwd: process.cwd(), mcpServers: [] });
    say(`session ${sessionId ? "opened" : "missing"}`);
    for (const text of (process.env.ACP_PROMPTS ?? "hello").split("|")) {
      const res = await ctx.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text }] });
      say(`stop ${res.stopReason}`);
    }
    try {
      await ctx.request("no/such_method", {});
    } catch (e) {
      say(`error ${e.code}`);
    }
    await ctx.request(methods.agent.session.close, { sessionId });
    say("closed");
  });
} catch (e) {
  console.error("client:", e);
  process.exitCode = 1;
}
agentProc.stdin.end();
