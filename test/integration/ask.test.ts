/**
 * `npm run ask` against the local stack: each exit code (0 answered, 2 no answer, 1 error), stdout holding
 * only the JSON, and Ctrl-C cancelling the question it asked. Most runs call the script's function with its
 * streams; two run `npm run -s ask` as a process, as a shell or a CI job does.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { PROJECT_ROOT } from "#infra/local/stack.ts";
import { type AskIo, runAsk } from "../../scripts/lib/ask.ts";
import { startTestStack, type TestStack, waitFor } from "./support/test-stack.ts";

let stack: TestStack;
beforeAll(async () => {
  stack = await startTestStack();
});
afterAll(async () => {
  await stack?.stop();
});

const QUESTION = "Deploy release 1.4 to production?";
let owners = 0;
/** An owner of its own for each run, so the question it asked is the only one listed for it. */
const newOwner = () => `web:ci-gate-${++owners}`;
const argsFor = (owner: string, ...more: string[]) => [
  "--owner",
  owner,
  "--question",
  QUESTION,
  "--options",
  "Yes, No",
  ...more,
];

/** Runs the script's function with captured streams, the stack's URL and key from the environment. */
function ask(argv: string[], options: Partial<AskIo> = {}) {
  let stdout = "";
  let stderr = "";
  const requests: string[] = [];
  const exit = runAsk({
    argv,
    env: { HANDRAISE_URL: stack.httpUrl, HANDRAISE_API_KEY: stack.apiKey },
    stdout: (text) => {
      stdout += text;
    },
    stderr: (text) => {
      stderr += text;
    },
    fetch: async (input, init) => {
      requests.push(`${init?.method ?? "GET"} ${new URL(String(input)).pathname}`);
      return (options.fetch ?? fetch)(input, init);
    },
    ...(options.sleep && { sleep: options.sleep }),
    ...(options.interrupt && { interrupt: options.interrupt }),
  });
  return { exit, stdout: () => stdout, stderr: () => stderr, requests };
}

/** The question waiting for `owner` (the one a run asked), once it is stored. */
async function pendingFor(owner: string): Promise<{ id: string; [key: string]: any }> {
  return waitFor(
    async () => {
      const listed = await stack.api("GET", `/questions?owner=${encodeURIComponent(owner)}`);
      return listed.body.questions[0];
    },
    { what: `a question for ${owner}` },
  );
}

describe("npm run ask", () => {
  it("without --wait: prints the created question (id, status — no answer link) as JSON on stdout, exits 0", async () => {
    const owner = newOwner();
    const run = ask(argsFor(owner, "--timeout", "600", "--deliver-to", "console:terminal"));
    expect(await run.exit, run.stderr()).toBe(0);
    const printed = JSON.parse(run.stdout());
    expect(printed).toMatchObject({ status: "pending", expiresAtMs: expect.any(Number) });
    expect(printed.id).toMatch(/^ask_[0-9a-f]{32}$/);
    // The link answers as the owner; stdout lands in CI logs.
    expect(run.stdout()).not.toContain("/answer/");
    expect(run.stdout().trim().split("\n")).toHaveLength(1);

    const { question } = (await stack.api("GET", `/questions/${printed.id}`)).body;
    expect(question).toMatchObject({ owner, status: "pending" });
    expect(question.deliveries).toMatchObject([{ channel: "console", chatId: "terminal" }]);
    expect(question.expiresAtMs - question.createdAtMs).toBe(600_000);
    // One question; the header is the question's first 12 characters when --header is not given.
    expect(question.questions).toEqual([
      {
        id: "choice",
        header: "Deploy relea",
        question: QUESTION,
        options: [{ label: "Yes" }, { label: "No" }],
        allowOther: true,
      },
    ]);
  });

  it("--print-link prints the owner's answer link too, for a script that hands it to the person", async () => {
    const run = ask(argsFor(newOwner(), "--print-link"));
    expect(await run.exit, run.stderr()).toBe(0);
    const printed = JSON.parse(run.stdout());
    expect(printed.answerUrl).toContain(`/answer/${printed.id}?`);
  });

  it("without --wait: exits 2 when no chat took the question (delivery_failed): nobody will be asked", async () => {
    const run = ask(argsFor(newOwner()), {
      // A stand-in for an API whose every target refused the question (a 201, stored closed).
      fetch: async (_input, init) =>
        new Response(
          JSON.stringify({
            id: JSON.parse(String(init?.body)).id,
            status: "delivery_failed",
            expiresAtMs: 1,
          }),
          { status: 201 },
        ),
    });
    expect(await run.exit).toBe(2);
    expect(JSON.parse(run.stdout())).toMatchObject({ status: "delivery_failed" });
    expect(run.stderr()).toContain("nobody will be asked");
  });

  it("--wait: exits 0 when answered, with the answers (and who gave them) as the only JSON on stdout", async () => {
    const owner = newOwner();
    const run = ask(argsFor(owner, "--header", "Deploy", "--multi", "--wait"));
    const { id, questions } = await pendingFor(owner);
    expect(questions[0]).toMatchObject({ header: "Deploy", multiSelect: true });
    const answered = await stack.api("POST", `/questions/${id}/answer`, { answers: { choice: ["yes"] } });
    expect(answered.status).toBe(200);

    expect(await run.exit, run.stderr()).toBe(0);
    expect(JSON.parse(run.stdout())).toEqual({
      id,
      status: "answered",
      answers: { choice: ["Yes"] },
      resolvedBy: "api",
    });
    expect(run.stdout().trim().split("\n")).toHaveLength(1);
    expect(run.stderr()).toContain(`Asked ${owner} question ${id}`);
    expect(run.stderr()).toContain("Answered by api.");
  });

  it("--wait: exits 2 when the question expires", async () => {
    // The test stack's shortest timeout is 1 s (HANDRAISE_MIN_TIMEOUT_SECONDS=1).
    const run = ask(argsFor(newOwner(), "--timeout", "1", "--wait"));
    expect(await run.exit, run.stderr()).toBe(2);
    expect(JSON.parse(run.stdout())).toMatchObject({ status: "expired" });
    expect(run.stderr()).toContain("No answer: expired.");
  });

  it("--wait: exits 2 when the person skips it", async () => {
    const owner = newOwner();
    const run = ask(argsFor(owner, "--wait"));
    const { id } = await pendingFor(owner);
    await stack.api("POST", `/questions/${id}/cancel`, { reason: "skipped" });
    expect(await run.exit, run.stderr()).toBe(2);
    expect(JSON.parse(run.stdout())).toEqual({
      id,
      status: "cancelled",
      reason: "skipped",
      resolvedBy: "api",
    });
  });

  it("--wait: tries a throttled (429) wait again, and still exits 0 on the answer", async () => {
    const owner = newOwner();
    let throttled = 0;
    const pauses: number[] = [];
    const run = ask(argsFor(owner, "--wait"), {
      fetch: async (input, init) => {
        if (String(input).includes("/wait") && throttled++ < 2) {
          return new Response(JSON.stringify({ message: "Too Many Requests" }), { status: 429 });
        }
        return fetch(input, init);
      },
      sleep: async (ms) => {
        pauses.push(ms);
      },
    });
    const { id } = await pendingFor(owner);
    await stack.api("POST", `/questions/${id}/answer`, { answers: { choice: ["No"] } });
    expect(await run.exit, run.stderr()).toBe(0);
    expect(pauses).toEqual([1000, 2000]);
    expect(run.stderr()).toContain("(HTTP 429); trying again in 1 s");
    expect(JSON.parse(run.stdout())).toMatchObject({ status: "answered", answers: { choice: ["No"] } });
  });

  it("stopped while waiting (SIGTERM, as a CI runner stops a job): cancels its question, then exits 143", async () => {
    const owner = newOwner();
    const interrupt = new AbortController();
    const run = ask(argsFor(owner, "--wait"), { interrupt: interrupt.signal });
    const { id } = await pendingFor(owner);
    interrupt.abort("SIGTERM");
    expect(await run.exit, run.stderr()).toBe(143);
    expect(JSON.parse(run.stdout())).toEqual({ id, status: "cancelled", reason: "cancelled" });
    expect((await stack.api("GET", `/questions/${id}`)).body.question).toMatchObject({
      status: "cancelled",
      resolvedBy: "api:ask-interrupted",
    });
  });

  it("a wrong key: exits 1 with the API's message and HTTP status on stderr, nothing on stdout", async () => {
    const run = ask([...argsFor(newOwner(), "--wait"), "--key", "not-the-key-0123456789"]);
    expect(await run.exit).toBe(1);
    expect(run.stderr()).toMatch(/^ask: the API refused the question: HTTP 401 UNAUTHORIZED: .+/);
    expect(run.stderr()).not.toContain("not-the-key");
    expect(run.stdout()).toBe("");
  });

  it("an API it cannot reach: exits 1, naming the URL and the network's error", async () => {
    const closed = await new Promise<number>((resolve) => {
      // A port just freed: nothing listens there.
      const server = createServer().listen(0, "127.0.0.1", () => {
        const { port } = server.address() as AddressInfo;
        server.close(() => resolve(port));
      });
    });
    const run = ask([...argsFor(newOwner()), "--url", `http://127.0.0.1:${closed}`]);
    expect(await run.exit).toBe(1);
    expect(run.stderr()).toBe(`ask: could not reach http://127.0.0.1:${closed}: ECONNREFUSED\n`);
    expect(run.stdout()).toBe("");
  });

  it("a bad option list, or a missing or malformed option: exits 1 naming it, and sends no request", async () => {
    const owner = newOwner();
    const cases: [string[], string][] = [
      [
        ["--owner", owner, "--question", QUESTION, "--options", "Yes"],
        "ask: --options: give at least 2 options",
      ],
      [["--owner", owner, "--question", QUESTION, "--options", "Yes, yes"], 'has the label "yes" twice'],
      [["--owner", owner, "--question", QUESTION, "--options", "A,B,C,D,E"], "give at most 4 options"],
      [["--owner", owner, "--question", QUESTION, "--options", "Yes,"], "ask: --options:"],
      [["--owner", owner, "--question", QUESTION], "ask: --options is required"],
      [
        ["--owner", "alice", "--question", QUESTION, "--options", "A,B"],
        "ask: --owner must be platform-qualified",
      ],
      [[...argsFor(owner), "--timeout", "soon"], "ask: --timeout must be a whole number"],
      [
        [...argsFor(owner), "--deliver-to", "telegram"],
        'ask: --deliver-to: "telegram" is not <channel>:<chatId>',
      ],
      [[...argsFor(owner), "--wiat"], "ask: Unknown option '--wiat'"],
    ];
    for (const [argv, message] of cases) {
      const run = ask(argv);
      expect(await run.exit, argv.join(" ")).toBe(1);
      expect(run.stderr()).toContain(message);
      expect(run.stdout()).toBe("");
      expect(run.requests).toEqual([]);
    }
    const noKey = runAsk({
      argv: argsFor(owner),
      env: { HANDRAISE_URL: stack.httpUrl },
      stdout: () => undefined,
      stderr: (text) => expect(text).toContain("no API key"),
    });
    expect(await noKey).toBe(1);
    expect((await stack.api("GET", `/questions?owner=${owner}`)).body.questions).toEqual([]);
  });
});

describe("npm run ask as a process", { timeout: 120_000 }, () => {
  const children: ChildProcess[] = [];
  afterEach(() => {
    for (const child of children.splice(0)) {
      if (child.exitCode === null && child.signalCode === null && child.pid) {
        try {
          process.kill(-child.pid, "SIGKILL");
        } catch {
          // Already gone.
        }
      }
    }
  });

  /** `npm run -s ask -- …` in its own process group, as a terminal runs it. */
  function npmAsk(argv: string[]) {
    const child = spawn("npm", ["run", "-s", "ask", "--", ...argv], {
      cwd: PROJECT_ROOT,
      env: { ...process.env, HANDRAISE_URL: stack.httpUrl, HANDRAISE_API_KEY: stack.apiKey },
      stdio: ["ignore", "pipe", "pipe"],
      detached: true,
    });
    children.push(child);
    let stdout = "";
    let stderr = "";
    child.stdout?.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    child.stderr?.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    // The status a shell reports: npm ends itself with the signal its script was stopped by (128 + its number).
    const exited = new Promise<number | null>((resolve) =>
      child.once("close", (code, signal) => resolve(signal === "SIGINT" ? 130 : code)),
    );
    return { child, exited, stdout: () => stdout, stderr: () => stderr };
  }

  it("exits 0 on the answer with stdout holding only the result JSON", async () => {
    const owner = newOwner();
    const run = npmAsk(argsFor(owner, "--wait"));
    const { id } = await pendingFor(owner);
    await stack.api("POST", `/questions/${id}/answer`, { answers: { choice: ["Yes"] } });
    expect(await run.exited, run.stderr()).toBe(0);
    expect(JSON.parse(run.stdout())).toEqual({
      id,
      status: "answered",
      answers: { choice: ["Yes"] },
      resolvedBy: "api",
    });
  });

  it("Ctrl-C while waiting cancels the question it asked, then exits 130", async () => {
    const owner = newOwner();
    const run = npmAsk(argsFor(owner, "--wait"));
    const { id } = await pendingFor(owner);
    await waitFor(async () => (run.stderr().includes("Ctrl-C cancels it") ? true : undefined), {
      timeoutMs: 60_000,
      what: "the waiting line",
    });
    // What Ctrl-C in a terminal does: SIGINT to the whole process group (npm, tsx and node alike).
    if (run.child.pid) process.kill(-run.child.pid, "SIGINT");
    expect(await run.exited, run.stderr()).toBe(130);
    expect(run.stderr()).toContain(`question ${id} is cancelled`);
    const { question } = (await stack.api("GET", `/questions/${id}`)).body;
    expect(question).toMatchObject({
      status: "cancelled",
      reason: "cancelled",
      resolvedBy: "api:ask-interrupted",
    });
  });
});
