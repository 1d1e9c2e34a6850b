/**
 * The two commands a newcomer runs, as processes: `npm run local` prints `ready` with the URL and stops on
 * SIGINT; `npm start` runs the demo agent, takes typed answers on stdin and prints the run's reply.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { afterEach, describe, expect, it } from "vitest";
import { PROJECT_ROOT } from "#infra/local/stack.ts";

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

function run(script: string) {
  const child = spawn("npm", ["run", "--silent", script], {
    cwd: PROJECT_ROOT,
    env: { ...process.env, PORT: "0", SFN_PORT: "0", DYNAMODB_PORT: "0" },
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
  const waitFor = (pattern: RegExp, timeoutMs = 20_000) =>
    new Promise<RegExpExecArray>((resolve, reject) => {
      const started = Date.now();
      const timer = setInterval(() => {
        const match = pattern.exec(output);
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

describe("npm scripts", () => {
  it("npm run local prints ready with the URL, serves the API, and stops cleanly on SIGINT", async () => {
    const local = run("local");
    const [, url] = await local.waitFor(/ready: (http:\/\/127\.0\.0\.1:\d+)/);
    const response = await fetch(`${url}/questions?owner=web:a`, {
      headers: { authorization: "Bearer local-api-key-change-me" },
    });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ questions: [] });
    pressCtrlC(local.child);
    await local.exited;
    await local.waitFor(/stopping the local stack/);
    // Every server of the stack has closed: nothing is left listening.
    await expect(fetch(`${url}/questions?owner=web:a`)).rejects.toThrow();
  });

  it("npm start asks the demo questions in the terminal and prints the run's reply with the answers", async () => {
    const demo = run("start");
    await demo.waitFor(/Question for you:[\s\S]*Reply with one line per question/);
    demo.child.stdin?.write("2\n");
    await demo.waitFor(/Still needed: Checks \[checks\], Release note \[release_note\]/);
    demo.child.stdin?.write("1, e2e\nnight-shift\n");
    const [reply] = await demo.waitFor(
      /deploy=Production \| checks=Unit \(Recommended\),E2E \| note=night-shift/,
    );
    expect(reply).toBeTruthy();
    await demo.waitFor(/The run succeeded/);
    pressCtrlC(demo.child);
    await demo.exited;
    await demo.waitFor(/stopping the local stack/);
  });
});
