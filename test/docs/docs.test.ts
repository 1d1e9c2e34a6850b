/**
 * The README and docs/ stay true to the code: their runnable examples run against the real local stack and
 * must succeed, every route and error code is documented, links point at what exists, the README stays a
 * quick start, and no file cites a document outside the repository. The conventions are in
 * docs/local-stack.md ("Examples in the docs").
 */
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, normalize } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readServerlessFunctions } from "#infra/local/serverless-functions.ts";
import { PROJECT_ROOT } from "#infra/local/stack.ts";
import { ASK_USER_TOOL_DESCRIPTION } from "#lib/questions/tool-definitions.ts";
import { startTestStack, type TestStack } from "../integration/support/test-stack.ts";
import { type CodeBlock, fencedBlocks, headingAnchors, isRunnable, linksOf } from "./markdown.ts";
import { runExamples } from "./run-examples.ts";

const README = "README.md";
const README_MAX_LINES = 200;

/** README.md and every docs/*.md, relative to the repository root. */
const DOCUMENTS = [
  README,
  ...readdirSync(join(PROJECT_ROOT, "docs"))
    .filter((name) => name.endsWith(".md"))
    .sort()
    .map((name) => `docs/${name}`),
];
const read = (file: string) => readFileSync(join(PROJECT_ROOT, file), "utf8");
const blocksOf = (file: string) => fencedBlocks(file, read(file));
const allBlocks = DOCUMENTS.flatMap(blocksOf);
const runnable = allBlocks.filter(isRunnable);
const where = (block: CodeBlock) => `${block.file}:${block.line}`;

/** Shell commands of a block, with `\` line continuations joined. */
const commandsOf = (block: CodeBlock) => block.code.replace(/\\\n/g, " ").split("\n");
const CURL = /(^|[\s(|;&])curl\s/;
/** Each curl call of a command line, up to the next pipe or command separator. */
const curlCallsOf = (block: CodeBlock) =>
  commandsOf(block).flatMap((line) =>
    line
      .split(/\|\||&&|[|;]|\$\(/)
      .filter((part) => CURL.test(part))
      .map((part) => part.trim()),
  );
/** A local address or the local stack's default key: runnable examples use the variables instead. */
const LITERAL_LOCAL = /127\.0\.0\.1|localhost|local-api-key-change-me/;
const CALLS_HANDRAISE = /\$\{?HANDRAISE_(URL|SFN_URL)\b|127\.0\.0\.1|localhost/;
const NEEDS_AWS = /(^|[\s(|;&])aws\s/m;

describe("the README is a quick start", () => {
  it(`has at most ${README_MAX_LINES} lines`, () => {
    const lines = read(README).split("\n").length - (read(README).endsWith("\n") ? 1 : 0);
    expect(lines).toBeLessThanOrEqual(README_MAX_LINES);
  });

  it("shows the two commands, npm start and npm test", () => {
    const shell = blocksOf(README)
      .filter((block) => /^(sh|bash|shell)\b/.test(block.info))
      .map((block) => block.code)
      .join("\n");
    expect(shell).toMatch(/\bnpm start\b/);
    expect(shell).toMatch(/\bnpm test\b/);
  });
});

describe("documents cite only the repository", () => {
  it("no file mentions the design notes or the contract notes kept outside the repository", () => {
    // Written so that this file does not match itself.
    const pattern = "DESIGN[.]md|[.][.]/shared|ask-user-contrac[t]";
    let found = "";
    try {
      found = execFileSync(
        "git",
        ["grep", "-n", "-I", "--untracked", "-E", pattern, "--", ".", ":!node_modules"],
        {
          cwd: PROJECT_ROOT,
          encoding: "utf8",
        },
      );
    } catch (error) {
      // git grep exits 1 when nothing matches.
      if ((error as { status?: number }).status !== 1) throw error;
    }
    expect(found).toBe("");
  });

  it("every relative link and image points at a file of the repository, and every #anchor at a heading", () => {
    const problems: string[] = [];
    for (const file of DOCUMENTS) {
      for (const link of linksOf(read(file))) {
        if (/^[a-z][a-z0-9+.-]*:/i.test(link.target)) continue; // https:, mailto:
        const [path = "", anchor] = link.target.split("#");
        const target = path === "" ? file : normalize(join(dirname(file), path));
        if (target.startsWith("..") || !existsSync(join(PROJECT_ROOT, target))) {
          problems.push(`${file}:${link.line}: ${link.target} (no file ${target})`);
          continue;
        }
        if (anchor !== undefined && target.endsWith(".md") && !headingAnchors(read(target)).has(anchor)) {
          problems.push(`${file}:${link.line}: ${link.target} (no heading #${anchor} in ${target})`);
        }
      }
    }
    expect(problems).toEqual([]);
  });
});

describe("examples in the docs", () => {
  it("there are runnable examples in the README and in docs/", () => {
    expect(runnable.filter((block) => block.file === README).length).toBeGreaterThan(0);
    expect(runnable.filter((block) => block.file.startsWith("docs/")).length).toBeGreaterThan(0);
  });

  it("every example that calls Handraise with curl is marked runnable (unless it needs AWS)", () => {
    const unmarked = allBlocks
      .filter((block) => !isRunnable(block) && CURL.test(block.code) && CALLS_HANDRAISE.test(block.code))
      .filter((block) => !NEEDS_AWS.test(block.code))
      .map((block) => `${where(block)}: mark it \`\`\`sh runnable (docs/local-stack.md)`);
    expect(unmarked).toEqual([]);
  });

  it("runnable examples fail on an HTTP error (curl -f) and use $HANDRAISE_URL and $HANDRAISE_API_KEY", () => {
    const problems = runnable.flatMap((block) => [
      ...curlCallsOf(block)
        .filter((call) => !/\s(-[a-zA-Z]*f[a-zA-Z]*|--fail(-with-body)?)(\s|$)/.test(call))
        .map((call) => `${where(block)}: curl without -f: ${call}`),
      ...(LITERAL_LOCAL.test(block.code)
        ? [`${where(block)}: a literal local address or key; use $HANDRAISE_URL / $HANDRAISE_API_KEY`]
        : []),
    ]);
    expect(problems).toEqual([]);
  });

  it("every route of serverless.yml is in docs/api.md, and every route but the chat webhooks runs in an example", () => {
    const routes = readServerlessFunctions(PROJECT_ROOT).flatMap((fn) => fn.routes);
    expect(routes.length).toBeGreaterThan(0);
    const api = read("docs/api.md");
    expect(routes.filter((route) => !api.includes(`${route.method} ${route.path}`))).toEqual([]);

    const called = runnable.flatMap((block) =>
      curlCallsOf(block).flatMap((call) => {
        const path = /\$\{?HANDRAISE_URL\}?(\/[^\s"'?]*)/.exec(call)?.[1];
        const url = path ?? (/\$\{?(\w+_URL)\}?/.exec(call) && "(a URL of a variable)");
        if (url === undefined || url === null) return [];
        const method =
          /\s(?:-X|--request)\s*([A-Z]+)/.exec(call)?.[1] ??
          (/\s(-d|--data[\w-]*|--json|-F|--form)\s/.test(call) ? "POST" : "GET");
        return [{ method, path: url }];
      }),
    );
    const uncovered = routes
      .filter((route) => !route.path.startsWith("/webhooks/"))
      // They answer 405 by design (MCP: no event stream, no session), which a `curl -f` example cannot show;
      // test/integration/mcp.test.ts checks them.
      .filter((route) => !(route.path === "/mcp" && route.method !== "POST"))
      .filter((route) => {
        const pattern = new RegExp(`^${route.path.replace(/\{[^}]+\}/g, "[^/]+")}$`);
        // The answer page's URL comes back from the API (answerUrl): a variable holds it.
        const viaVariable = route.path.startsWith("/answer/") ? "(a URL of a variable)" : undefined;
        return !called.some(
          (call) => call.method === route.method && (pattern.test(call.path) || call.path === viaVariable),
        );
      })
      .map((route) => `${route.method} ${route.path}`);
    expect(uncovered).toEqual([]);
  });

  it("every error code the code returns is in docs/api.md", () => {
    const codes = new Set<string>();
    const sources = execFileSync(
      "git",
      ["ls-files", "--cached", "--others", "--exclude-standard", "lib", "functions"],
      {
        cwd: PROJECT_ROOT,
        encoding: "utf8",
      },
    )
      .split("\n")
      .filter((path) => path.endsWith(".ts"));
    for (const path of sources) {
      const text = read(path);
      for (const match of text.matchAll(
        /(?:readonly code = |(?:HttpError|problem|errorResponse)\(\d{3}, )"([A-Z][A-Z_]+)"/g,
      )) {
        codes.add(match[1] ?? "");
      }
    }
    expect(codes.size).toBeGreaterThan(5);
    const api = read("docs/api.md");
    expect([...codes].filter((code) => !api.includes(`\`${code}\``)).sort()).toEqual([]);
  });

  it("docs/ask-user.md quotes every sentence of the tool description the model is shown", () => {
    const page = read("docs/ask-user.md").replace(/^> /gm, "").replace(/\s+/g, " ");
    const sentences = ASK_USER_TOOL_DESCRIPTION.split(/(?<=\.)\s+(?=[A-Z])/);
    expect(sentences.length).toBeGreaterThan(3);
    expect(sentences.filter((sentence) => !page.includes(sentence))).toEqual([]);
  });
});

describe("runnable examples against the local stack", () => {
  let stack: TestStack;
  let variables: Record<string, string>;
  beforeAll(async () => {
    stack = await startTestStack();
    variables = {
      HANDRAISE_URL: stack.httpUrl,
      HANDRAISE_API_KEY: stack.apiKey,
      HANDRAISE_SFN_URL: stack.sfnUrl,
    };
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it("the runner fails on the first block that fails, with its place, and runs nothing after it", async () => {
    const blocks = fencedBlocks(
      "example.md",
      [
        "```sh runnable",
        'echo one > first.txt && curl -fsS -o /dev/null "$HANDRAISE_URL/questions?owner=web:a" -H "Authorization: Bearer $HANDRAISE_API_KEY"',
        "```",
        "```sh runnable",
        'curl -fsS "$HANDRAISE_URL/no-such-route"',
        "```",
        "```sh runnable",
        "echo never",
        "```",
      ].join("\n"),
    );
    const result = await runExamples(blocks, variables);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.failed.line).toBe(4);
    expect(result.output).toMatch(/404/);
    expect(result.output).not.toContain("never");
  });

  const files = DOCUMENTS.filter((file) => runnable.some((block) => block.file === file));
  it.each(files)("%s", async (file) => {
    const result = await runExamples(
      runnable.filter((block) => block.file === file),
      variables,
    );
    if (!result.ok) {
      expect.fail(`the example at ${where(result.failed)} failed (${result.reason}):\n${result.output}`);
    }
  });
});
