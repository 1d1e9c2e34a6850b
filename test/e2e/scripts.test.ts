/**
 * The two commands a newcomer runs, as processes: `npm run local` prints `ready` with the URL and stops on
 * SIGINT; `npm start` runs the demo agent, takes typed answers on stdin and prints the run's reply.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterEach, describe, expect, it } from "vitest";
import { PROJECT_ROOT } from "#infra/local/stack.ts";
import { startFakePlatform } from "../integration/support/fake-platform.ts";

/**
 * How long one expected line may take, and one test. Each test starts the whole stack in a child process
 * (tsx, sixteen handlers, dynalite): seconds on an idle machine, but over 20 s was seen on 2 cores shared
 * with the rest of the suite and a CPU-bound process. A wait ends as soon as its line is printed.
 */
const WAIT_MS = 60_000;
const TEST_MS = 180_000;

const children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0)) {
    if (child.exitCode !== null || child.signalCode !== null || !child.pid) continue;
    try {
      process.kill(-child.pid, "SIGKILL");
    } catch {
      // The group has already exited.
    }
  }
});

/** What Ctrl-C in a terminal does: SIGINT to the whole process group (npm, its shell, tsx and node). */
function pressCtrlC(child: ChildProcess): void {
  if (child.pid) process.kill(-child.pid, "SIGINT");
}

function run(script: string, env: Record<string, string> = {}) {
  const child = spawn("npm", ["run", "--silent", script], {
    cwd: PROJECT_ROOT,
    env: { ...process.env, PORT: "0", SFN_PORT: "0", DYNAMODB_PORT: "0", ...env },
    stdio: ["pipe", "pipe", "pipe"],
    // Its own process group, so the test can signal all of it like a terminal does.
    detached: true,
  });
  children.push(child);
  let output = "";
  child.stdout?.on("data", (chunk: Buffer) => {
    output += chunk.toString();
  });
  child.stderr?.on("data", (chunk: Buffer) => {
    output += chunk.toString();
  });
  /** Waits for `pattern` in what was printed from offset `from` on. */
  const waitFor = (pattern: RegExp, timeoutMs = WAIT_MS, from = 0) =>
    new Promise<RegExpExecArray>((resolve, reject) => {
      const started = Date.now();
      const timer = setInterval(() => {
        const match = pattern.exec(output.slice(from));
        if (match) {
          clearInterval(timer);
          resolve(match);
        } else if (Date.now() - started > timeoutMs || child.exitCode !== null) {
          clearInterval(timer);
          reject(new Error(`no ${pattern} in output:\n${output}`));
        }
      }, 50);
    });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  return { child, waitFor, exited, output: () => output };
}

describe("npm scripts", { timeout: TEST_MS }, () => {
  it("npm run local prints ready with the URL, serves the API, answers an MCP client's question typed in its terminal, and stops cleanly on SIGINT", async () => {
    const local = run("local");
    const [, url] = await local.waitFor(/ready: (http:\/\/127\.0\.0\.1:\d+)/);
    expect(local.output()).toContain(`HTTP API:           ${url}\n`);
    expect(local.output()).toContain(`X-Handraise-Deliver-To: console:terminal`);
    const response = await fetch(`${url}/questions?owner=web:a`, {
      headers: { authorization: "Bearer local-api-key-change-me" },
    });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ questions: [] });

    // An MCP client with the banner's headers: its question is printed here, and a typed line answers it.
    const client = new Client({ name: "e2e", version: "1.0.0" });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${url}/mcp`), {
        requestInit: {
          headers: {
            authorization: "Bearer local-api-key-change-me",
            "x-handraise-owner": "console:you",
            "x-handraise-deliver-to": "console:terminal",
          },
        },
      }),
    );
    const from = local.output().length;
    const asked = client.callTool({
      name: "ask_user",
      arguments: {
        questions: [
          {
            id: "target",
            header: "Target",
            question: "Where should it go?",
            options: [{ label: "Staging (Recommended)" }, { label: "Production" }],
          },
        ],
      },
    });
    await local.waitFor(/\[ask_[0-9a-f]+\] Question for you:[\s\S]*Where should it go\?/, WAIT_MS, from);
    local.child.stdin?.write("staging\n");
    const lastJson = (result: unknown) =>
      JSON.parse((result as { content: { text: string }[] }).content[0]?.text.split("\n").at(-1) ?? "{}");
    let outcome = lastJson(await asked);
    // On a loaded machine the call's own wait (20 s) may run out first: then the client asks again, as a
    // model would.
    while (outcome.status === "pending") {
      outcome = lastJson(
        await client.callTool({ name: "get_answer", arguments: { questionId: outcome.questionId } }),
      );
    }
    expect(outcome).toMatchObject({
      status: "answered",
      answers: { target: ["Staging (Recommended)"] },
    });
    await client.close();
    pressCtrlC(local.child);
    await local.exited;
    await local.waitFor(/stopping the local stack/);
    // Every server of the stack has closed: nothing is left listening.
    await expect(fetch(`${url}/questions?owner=web:a`)).rejects.toThrow();
  });

  it("npm run local prints the API key it uses, the ready line stays the last line it prints, and a second one on its port refuses to start: one line naming the variable, exit 1", async () => {
    const apiKey = "e2e-api-key-0123456789";
    const local = run("local", { HANDRAISE_API_KEY: apiKey });
    const [, url, port] = await local.waitFor(/ready: (http:\/\/127\.0\.0\.1:(\d+))\n/);
    expect(local.output()).toMatch(new RegExp(`API key: +${apiKey}`));
    expect(local.output().trimEnd().split("\n").at(-1)).toBe(`ready: ${url}`);
    const response = await fetch(`${url}/questions?owner=web:a`, {
      headers: { authorization: `Bearer ${apiKey}` },
    });
    expect(response.status).toBe(200);

    // The running stack holds the port: one started on it too stops at once, naming the variable.
    const second = run("local", { PORT: String(port) });
    await second.exited;
    expect(second.child.exitCode).toBe(1);
    expect(second.output()).toContain(`port ${port} is in use`);
    expect(second.output()).toContain("PORT=<port>");
    expect(second.output()).not.toMatch(/\n\s+at /); // no stack trace
    pressCtrlC(local.child);
    await local.exited;
  });

  it("npm run local refuses to start with a placeholder secret: one line naming the variable, exit 1", async () => {
    const placeholder = run("local", {
      TELEGRAM_BOT_TOKEN: "123:abc",
      TELEGRAM_WEBHOOK_SECRET: "unset",
      SLACK_BOT_TOKEN: "xoxb-1",
      SLACK_SIGNING_SECRET: "changeme",
    });
    await placeholder.exited;
    expect(placeholder.child.exitCode).toBe(1);
    expect(placeholder.output()).toContain('TELEGRAM_WEBHOOK_SECRET is a placeholder ("unset")');
    expect(placeholder.output()).toContain('SLACK_SIGNING_SECRET is a placeholder ("changeme")');
    expect(placeholder.output()).not.toMatch(/\n\s+at /); // no stack trace
  });

  it("npm start asks the demo questions in the terminal and prints the run's reply with the answers", async () => {
    const demo = run("start");
    await demo.waitFor(/Question for you:[\s\S]*Reply with one line per question/);
    // The answer page's link, to answer in a browser instead.
    await demo.waitFor(
      /Answer in browser: http:\/\/127\.0\.0\.1:\d+\/answer\/ask_[0-9a-f]{32}\?sig=[\w-]{43}\n/,
    );
    demo.child.stdin?.write("2\n");
    await demo.waitFor(/Still needed: Checks \[checks\], Release note \[release_note\]/);
    demo.child.stdin?.write("1, e2e\nnight-shift\n");
    const [reply] = await demo.waitFor(
      /deploy=Production \| checks=Unit \(Recommended\),E2E \| note=night-shift/,
    );
    expect(reply).toBeTruthy();
    await demo.waitFor(/The run succeeded/);
    // The terminal is the conversation: no info log lines of the handlers, no metric blobs, no event lines
    // (npm run local prints those).
    expect(demo.output()).not.toMatch(/^event \{/m);
    expect(demo.output()).not.toMatch(/"level":"INFO"|_aws|question asked/);
    pressCtrlC(demo.child);
    await demo.exited;
    await demo.waitFor(/stopping the local stack/);
  });

  it("npm start: plain lines answer the next unanswered question, numbers that name no option are refused, and more typed after the run is told it ended", async () => {
    const demo = run("start");
    await demo.waitFor(/Question for you:[\s\S]*Reply with one line per question/);
    const typed = async (line: string, expected: RegExp) => {
      const printed = demo.output().length;
      demo.child.stdin?.write(`${line}\n`);
      await demo.waitFor(expected, WAIT_MS, printed);
    };
    await typed(
      "7",
      /Deploy to \[deploy_target\]: there is no option 7 — type a number 1–2 or your own answer\./,
    );
    await typed("checks: 1", /Still needed: Deploy to \[deploy_target\], Release note \[release_note\]\./);
    await typed(
      "deploy_target: 3",
      /Deploy to \[deploy_target\]: there is no option 3 — type a number 1–2 or your own answer\./,
    );
    await typed("2", /Still needed: Release note \[release_note\]\./);
    await typed(
      "Staging",
      /deploy=Production \| checks=Unit \(Recommended\) \| note=Staging \| status=answered \| reason=/,
    );
    await demo.waitFor(/The run succeeded/);
    await typed("1", /The demo run has ended/);
    pressCtrlC(demo.child);
    await demo.exited;
  });

  it("npm start: /cancel after an answered line cancels, and the run's reply says so", async () => {
    const demo = run("start");
    await demo.waitFor(/Question for you:[\s\S]*Reply with one line per question/);
    demo.child.stdin?.write("2\n");
    await demo.waitFor(/Still needed: Checks \[checks\], Release note \[release_note\]/);
    demo.child.stdin?.write("/cancel\n");
    await demo.waitFor(/deploy= \| checks= \| note= \| status=no_answer \| reason=cancelled"/);
    pressCtrlC(demo.child);
    await demo.exited;
  });

  it("npm start also delivers to a Telegram chat when a bot token and chat id are set, and an answer there resumes the run", async () => {
    let answered = false;
    let askedAt: number | undefined;
    const telegram = await startFakePlatform((call) => {
      if (call.method === "sendMessage") return { body: { ok: true, result: { message_id: 77 } } };
      if (call.method !== "getUpdates") return { body: { ok: true, result: true } };
      // The person answers a moment after the question arrives (once Handraise has recorded where it posted it).
      askedAt ??= telegram.callsTo("sendMessage").length > 0 ? Date.now() : undefined;
      // An empty poll is held a moment, as Telegram holds a long poll until its `timeout`: answered at once,
      // the demo's poller would ask again and again as fast as both processes can go.
      if (askedAt === undefined || Date.now() - askedAt < 500 || answered)
        return new Promise((resolve) => setTimeout(() => resolve({ body: { ok: true, result: [] } }), 100));
      answered = true;
      const message = {
        message_id: 78,
        from: { id: 4242, is_bot: false },
        chat: { id: 4242, type: "private" },
        date: 1,
      };
      return {
        body: { ok: true, result: [{ update_id: 1, message: { ...message, text: "2\n1, 2\nnight-shift" } }] },
      };
    });
    try {
      const demo = run("start", {
        TELEGRAM_BOT_TOKEN: "1:demo",
        TELEGRAM_API_BASE: telegram.url,
        HANDRAISE_DEMO_TELEGRAM_CHAT_ID: "4242",
      });
      await demo.waitFor(/deploy=Production \| checks=Unit \(Recommended\),E2E \| note=night-shift/);
      const [post] = telegram.callsTo("sendMessage");
      expect(post?.body).toMatchObject({
        chat_id: "4242",
        text: expect.stringContaining("Question for you:"),
      });
      // The owner's private chat (its id is theirs) shows their link: in the text, as it is on this machine.
      expect(post?.body.text).toMatch(
        /\n\nAnswer in browser: http:\/\/127\.0\.0\.1:\d+\/answer\/ask_\w+\?sig=/,
      );
      expect(telegram.callsTo("editMessageText")[0]?.body).toMatchObject({ chat_id: "4242", message_id: 77 });
      pressCtrlC(demo.child);
      await demo.exited;
    } finally {
      await telegram.stop();
    }
  });
});
