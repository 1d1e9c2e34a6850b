/**
 * The answer page in a real browser (chromium through playwright-core) against the local stack: agent runs
 * suspended on `ask_user` and answered entirely in the page — with its script (the stepper), without it
 * (one plain form) and by keyboard alone — plus what the page must never do: change a question on `GET`,
 * reveal anything to an altered link, run a question's text as markup, or take a post from another site.
 * Screenshots at phone and desktop widths go to test/artifacts/ for people to look at.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { DescribeExecutionCommand, StartExecutionCommand } from "@aws-sdk/client-sfn";
import type { Browser, BrowserContextOptions, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { demoAgentInput } from "#infra/local/demo-agent.ts";
import { ARTIFACTS_DIR, launchChromium } from "./support/browser.ts";
import { unique } from "./support/sample-questions.ts";
import {
  allItems,
  replyOf,
  startTestStack,
  type TestStack,
  waitFor,
  waitForExecutionEnd,
} from "./support/test-stack.ts";

let stack: TestStack;
let browser: Browser;
/** An agent's `ask` key, named `release-bot`: the page names it as who asked. */
const RELEASE_BOT_KEY = "release-bot-key-0123456789abcdef";

beforeAll(async () => {
  // Both at once; whichever started is stopped after, even when the other failed (no chromium).
  const [started, launched] = await Promise.allSettled([
    startTestStack({ HANDRAISE_API_KEYS: `release-bot:ask:${RELEASE_BOT_KEY}` }),
    launchChromium(),
  ]);
  if (started.status === "fulfilled") stack = started.value;
  if (launched.status === "fulfilled") browser = launched.value;
  for (const result of [launched, started]) if (result.status === "rejected") throw result.reason;
}, 90_000);
afterAll(async () => {
  await browser?.close();
  await stack?.stop();
});

const PHONE = { width: 390, height: 844 };
const DESKTOP = { width: 1280, height: 900 };

interface OpenPage {
  page: Page;
  /** Messages of any dialog (alert, confirm, …) the page opened: there must never be one. */
  dialogs: string[];
  /** Console errors and uncaught exceptions: a CSP violation shows here too. */
  errors: string[];
  /** Requests to any other origin than the API's: the page must load nothing from elsewhere. */
  foreign: string[];
}

async function openPage(url: string, options: BrowserContextOptions = {}): Promise<OpenPage> {
  const context = await browser.newContext({ viewport: DESKTOP, ...options });
  const page = await context.newPage();
  const opened: OpenPage = { page, dialogs: [], errors: [], foreign: [] };
  page.on("dialog", (dialog) => {
    opened.dialogs.push(dialog.message());
    dialog.dismiss().catch(unlessClosedAlready);
  });
  page.on("console", (message) => {
    // The browser logs every 4xx page it shows; the tests check those statuses themselves.
    const expected = /^Failed to load resource: the server responded with a status of 4\d\d /;
    if (message.type() === "error" && !expected.test(message.text())) opened.errors.push(message.text());
  });
  page.on("pageerror", (error) => opened.errors.push(error.message));
  page.on("request", (request) => {
    if (!request.url().startsWith(stack.httpUrl)) opened.foreign.push(request.url());
  });
  page.on("close", () => {
    context.close().catch(unlessClosedAlready);
  });
  await page.goto(url);
  return opened;
}

/**
 * For the clean-ups a page's events start on their own (closing its context, dismissing a dialog): when the
 * browser has already closed that target — a test closed it, or the file's browser is closing — there is
 * nothing left to do. Anything else is thrown on.
 */
function unlessClosedAlready(error: unknown): void {
  if (!/Target page, context or browser has been closed/.test(String(error))) throw error;
}

/** Nothing went wrong in the page: no dialog, no console error or CSP violation, nothing fetched elsewhere. */
function expectClean(opened: OpenPage): void {
  expect(opened.dialogs).toEqual([]);
  expect(opened.errors).toEqual([]);
  expect(opened.foreign).toEqual([]);
}

async function questionOf(sessionKey: string): Promise<{ id: string; answerUrl: string }> {
  const id = await waitFor(
    async () => {
      const listed = await stack.api("GET", `/questions?sessionKey=${encodeURIComponent(sessionKey)}`);
      return listed.body.questions[0]?.id as string | undefined;
    },
    { what: `a pending question in ${sessionKey}` },
  );
  const { body } = await stack.api("GET", `/questions/${id}`);
  expect(body.answerUrl).toMatch(new RegExp(`^${stack.httpUrl}/answer/${id}\\?sig=[A-Za-z0-9_-]{43}$`));
  return { id, answerUrl: body.answerUrl };
}

/** The demo's three questions (single, multi, single), asked by a suspended agent run of a web owner. */
async function startDemoRun(owner = "web:ann") {
  const sessionKey = unique("web");
  const { executionArn } = await stack.sfn.send(
    new StartExecutionCommand({
      stateMachineArn: stack.stateMachineArns.agent,
      input: JSON.stringify(demoAgentInput({ sessionKey, owner, deliverTo: [], timeoutSeconds: 600 })),
    }),
  );
  if (!executionArn) throw new Error("no execution ARN");
  return { executionArn, ...(await questionOf(sessionKey)) };
}

/** A question created over the API (no run waits on it), reached by its link only. */
async function createQuestion(questions: unknown[], extra: Record<string, unknown> = {}) {
  const created = await stack.api("POST", "/questions", {
    questions,
    owner: `web:${unique("owner")}`,
    ...extra,
  });
  expect(created.status, created.text).toBe(201);
  expect(created.body.answerUrl).toEqual(expect.stringContaining(`/answer/${created.body.id}?sig=`));
  return { id: created.body.id as string, answerUrl: created.body.answerUrl as string };
}

async function recordOf(id: string) {
  return (await stack.api("GET", `/questions/${id}`)).body.question;
}

/** The stored item of a question, task token included: what "nothing changed" compares. */
async function storedItem(id: string) {
  return (await allItems(stack)).find((item) => item.pk === `Q#${id}`);
}

const stepper = (page: Page) => page.locator("#stepper");
const button = (page: Page, name: string) => page.getByRole("button", { name, exact: true });
const visibleQuestions = (page: Page) => page.locator("fieldset[data-kind]:visible");

describe("answering in the browser, with the page's script", () => {
  it("a three-question prompt answered entirely through the stepper: the run resumes with exactly those answers", async () => {
    const run = await startDemoRun();
    const opened = await openPage(run.answerUrl);
    const { page } = opened;
    await expect(page.title()).resolves.toContain("3 questions for you");
    await expect(stepper(page).textContent()).resolves.toBe("1 of 3");
    await expect(visibleQuestions(page).count()).resolves.toBe(1);
    expect(await button(page, "Back").isVisible()).toBe(false);
    expect(await button(page, "Submit").isVisible()).toBe(false);
    expect(await button(page, "Skip").isVisible()).toBe(true);
    expect(await page.locator("#time-left").textContent()).toMatch(/^Time left: (9|10):\d\d$/);

    // Next without an answer says what is missing and stays.
    await button(page, "Next").click();
    await expect(page.locator("#question-0 .error").textContent()).resolves.toBe(
      "Choose an option or write your own answer.",
    );
    await expect(stepper(page).textContent()).resolves.toBe("1 of 3");

    await page.getByRole("radio", { name: "Production" }).check();
    await button(page, "Next").click();
    await expect(stepper(page).textContent()).resolves.toBe("2 of 3");
    await page.getByRole("checkbox", { name: "Unit (Recommended)" }).check();
    await page.getByRole("checkbox", { name: "E2E" }).check();
    await button(page, "Next").click();
    await expect(stepper(page).textContent()).resolves.toBe("3 of 3");
    expect(await button(page, "Next").isVisible()).toBe(false);
    // Typing an own answer chooses "Other".
    await page.getByRole("textbox", { name: "Your own answer" }).fill("night-shift");
    expect(await page.getByRole("radio", { name: "Other" }).isChecked()).toBe(true);
    await button(page, "Submit").click();

    await page.getByRole("heading", { name: "Answered", exact: true }).waitFor();
    const summary = await page.locator("dl").textContent();
    for (const text of ["Production", "Unit (Recommended)", "E2E", "night-shift"])
      expect(summary).toContain(text);
    expect(await replyOf(stack, run.executionArn)).toBe(
      "deploy=Production | checks=Unit (Recommended),E2E | note=night-shift | status=answered | reason=",
    );
    expect(await recordOf(run.id)).toMatchObject({
      status: "answered",
      answers: {
        deploy_target: ["Production"],
        checks: ["Unit (Recommended)", "E2E"],
        release_note: ["night-shift"],
      },
      resolvedBy: "web:ann",
    });
    // A reload after the answer shows the outcome: the 303 means nothing is posted again.
    await page.reload();
    await page.getByRole("heading", { name: "Answered", exact: true }).waitFor();
    expectClean(opened);
  });

  it("Back returns to an earlier question, whose answer can be changed before submitting", async () => {
    const run = await startDemoRun();
    const { page, ...rest } = await openPage(run.answerUrl);
    await page.getByRole("radio", { name: "Production" }).check();
    await button(page, "Next").click();
    await page.getByRole("checkbox", { name: "Unit (Recommended)" }).check();
    await button(page, "Next").click();
    await page.getByRole("radio", { name: "Urgent" }).check();

    await button(page, "Back").click();
    await expect(stepper(page).textContent()).resolves.toBe("2 of 3");
    await button(page, "Back").click();
    await expect(stepper(page).textContent()).resolves.toBe("1 of 3");
    expect(await page.getByRole("radio", { name: "Production" }).isChecked()).toBe(true);
    await page.getByRole("radio", { name: "Staging (Recommended)" }).check();
    await button(page, "Next").click();
    await button(page, "Next").click();
    expect(await page.getByRole("radio", { name: "Urgent" }).isChecked()).toBe(true);
    await button(page, "Submit").click();

    await page.getByRole("heading", { name: "Answered", exact: true }).waitFor();
    expect(await replyOf(stack, run.executionArn)).toBe(
      "deploy=Staging (Recommended) | checks=Unit (Recommended) | note=Urgent | status=answered | reason=",
    );
    expectClean({ page, ...rest });
  });

  it("Skip skips the whole prompt: the run gets no_answer / skipped", async () => {
    const run = await startDemoRun();
    const opened = await openPage(run.answerUrl);
    await button(opened.page, "Skip").click();
    await opened.page.getByRole("heading", { name: "Skipped", exact: true }).waitFor();
    expect(await replyOf(stack, run.executionArn)).toBe(
      "deploy= | checks= | note= | status=no_answer | reason=skipped",
    );
    expect(await recordOf(run.id)).toMatchObject({
      status: "cancelled",
      reason: "skipped",
      resolvedBy: "web:ann",
    });
    expectClean(opened);
  });

  it("Skip after answering some steps asks once in the page; the second Skip skips", async () => {
    const run = await startDemoRun();
    const opened = await openPage(run.answerUrl);
    await opened.page.getByRole("radio", { name: /Production/ }).check();
    await button(opened.page, "Next").click();
    await button(opened.page, "Skip").click();
    await opened.page
      .getByRole("alert")
      .filter({ hasText: "Skip the whole prompt? The answers you chose here will not be sent." })
      .waitFor();
    // Asked, not skipped: the question still waits, and the step on screen is the same.
    expect((await recordOf(run.id)).status).toBe("pending");
    expect(await stepper(opened.page).textContent()).toBe("2 of 3");
    await button(opened.page, "Skip").click();
    await opened.page.getByRole("heading", { name: "Skipped", exact: true }).waitFor();
    expect(await recordOf(run.id)).toMatchObject({ status: "cancelled", reason: "skipped" });
    expect(await replyOf(stack, run.executionArn)).toContain("reason=skipped");
    expectClean(opened);
  });

  it("keyboard alone: Tab, arrows, Space and Enter answer every question, with a visible focus", async () => {
    const run = await startDemoRun();
    const opened = await openPage(run.answerUrl);
    const { page, keyboard } = { page: opened.page, keyboard: opened.page.keyboard };
    // What has the focus, and whether its focus ring shows (an option's ring is on its whole row).
    const focused = () =>
      page.evaluate(() => {
        const { document, getComputedStyle } = globalThis as any;
        const element = document.activeElement;
        const name: string = element?.labels?.[0]?.textContent ?? element?.textContent ?? "";
        const ring = element?.closest("label") ?? element;
        return {
          name: name.trim(),
          outline: ring ? (getComputedStyle(ring).outlineStyle as string) : "none",
        };
      });

    await keyboard.press("Tab");
    expect(await focused()).toEqual({ name: "Staging (Recommended)", outline: "solid" });
    await keyboard.press("ArrowDown");
    expect((await focused()).name).toBe("Production");
    await keyboard.press("Enter");
    await expect(stepper(page).textContent()).resolves.toBe("2 of 3");
    expect((await focused()).name).toBe("Unit (Recommended)");
    await keyboard.press("Space");
    await keyboard.press("Tab");
    await keyboard.press("Tab");
    expect((await focused()).name).toBe("Lint");
    await keyboard.press("Space");
    await keyboard.press("Enter");
    await expect(stepper(page).textContent()).resolves.toBe("3 of 3");
    expect((await focused()).name).toBe("Routine (Recommended)");
    await keyboard.press("Space");
    // The radio group is one stop, then the own-answer box, Back, Submit.
    await keyboard.press("Tab");
    await keyboard.press("Tab");
    expect(await focused()).toEqual({ name: "Back", outline: "solid" });
    await keyboard.press("Tab");
    expect(await focused()).toEqual({ name: "Submit", outline: "solid" });
    await keyboard.press("Enter");

    await page.getByRole("heading", { name: "Answered", exact: true }).waitFor();
    expect(await replyOf(stack, run.executionArn)).toBe(
      "deploy=Production | checks=Unit (Recommended),Lint | note=Routine (Recommended) | status=answered | reason=",
    );
    expectClean(opened);
  });
});

describe("answering in the browser without JavaScript", () => {
  it("one plain form with every question; a missing answer shows the form again, nothing changed", async () => {
    const run = await startDemoRun();
    const opened = await openPage(run.answerUrl, { javaScriptEnabled: false });
    const { page } = opened;
    await expect(visibleQuestions(page).count()).resolves.toBe(3);
    expect(await stepper(page).isVisible()).toBe(false);
    expect(await button(page, "Next").isVisible()).toBe(false);
    expect(await button(page, "Back").isVisible()).toBe(false);
    expect(await page.locator("#time-left").textContent()).toMatch(/^Time left: (9|10) min$/);

    await page.getByRole("radio", { name: "Production" }).check();
    await page.locator("#text-2").fill("night-shift");
    const before = await storedItem(run.id);
    await button(page, "Submit").click();
    await page.getByRole("alert").waitFor();
    expect(await page.getByRole("alert").textContent()).toBe("Some answers need your attention.");
    expect(await page.locator("#question-1 .error").textContent()).toBe(
      "Choose an option or write your own answer.",
    );
    // What was sent is still there, and the question did not change.
    expect(await page.getByRole("radio", { name: "Production" }).isChecked()).toBe(true);
    expect(await page.locator("#text-2").inputValue()).toBe("night-shift");
    expect(await storedItem(run.id)).toEqual(before);

    await page.getByRole("checkbox", { name: "E2E" }).check();
    await page.getByRole("checkbox", { name: "Lint" }).check();
    await page.locator("#text-1").fill("smoke test");
    await button(page, "Submit").click();
    await page.getByRole("heading", { name: "Answered", exact: true }).waitFor();
    expect(await replyOf(stack, run.executionArn)).toBe(
      "deploy=Production | checks=E2E,Lint,smoke test | note=night-shift | status=answered | reason=",
    );
    expectClean(opened);
  });

  it("an option chosen and an own answer written for one single-select question: asked which, nothing changed", async () => {
    const { id, answerUrl } = await createQuestion([
      { id: "go", header: "Go", question: "Ship it?", options: [{ label: "Yes" }, { label: "No" }] },
    ]);
    const opened = await openPage(answerUrl, { javaScriptEnabled: false });
    await opened.page.getByRole("radio", { name: "Yes" }).check();
    await opened.page.getByRole("textbox", { name: "Your own answer" }).fill("maybe");
    await button(opened.page, "Submit").click();
    await opened.page.getByRole("alert").waitFor();
    expect(await opened.page.locator("#question-0 .error").textContent()).toBe(
      "Choose an option or write your own answer, not both.",
    );
    expect((await recordOf(id)).status).toBe("pending");
  });
});

describe("what the page never does", () => {
  it("a GET of the link never changes a question (browser visits, link previews, repeated fetches)", async () => {
    const run = await startDemoRun();
    const before = await storedItem(run.id);
    expect(before?.taskToken).toEqual(expect.any(String));
    const opened = await openPage(run.answerUrl);
    await opened.page.reload();
    for (const headers of [
      { "user-agent": "Slackbot-LinkExpanding 1.0", "sec-fetch-site": "cross-site" },
      { "user-agent": "Mail scanner", accept: "*/*" },
      {},
    ]) {
      const response = await fetch(run.answerUrl, { headers });
      expect(response.status).toBe(200);
      expect(await response.text()).toContain("Where should release 1.4 go?");
    }
    // A query that looks like an action is still only a GET.
    expect((await fetch(`${run.answerUrl}&action=skip`)).status).toBe(200);
    expect(await storedItem(run.id)).toEqual(before);
    expect((await recordOf(run.id)).status).toBe("pending");
    const execution = await stack.sfn.send(new DescribeExecutionCommand({ executionArn: run.executionArn }));
    expect(execution.status).toBe("RUNNING");
    expectClean(opened);
    await stack.api("POST", `/questions/${run.id}/cancel`, {});
    await waitForExecutionEnd(stack, run.executionArn);
  });

  it("an altered or foreign link gets a 403 page that reveals nothing about the question", async () => {
    const secretText = `Codename ${unique("x")}: approve the merger?`;
    const { id, answerUrl } = await createQuestion([
      {
        id: "ok",
        header: "Merger",
        question: secretText,
        options: [{ label: "Approve" }, { label: "Reject" }],
      },
    ]);
    const other = await createQuestion([
      { id: "ok", header: "Other", question: "Something else?", options: [{ label: "A" }, { label: "B" }] },
    ]);
    const sig = new URL(answerUrl).searchParams.get("sig") ?? "";
    const flipped = `${sig.slice(0, 10)}${sig[10] === "A" ? "B" : "A"}${sig.slice(11)}`;
    const otherSig = new URL(other.answerUrl).searchParams.get("sig") ?? "";
    const base = `${stack.httpUrl}/answer/${id}`;
    const bodies: string[] = [];
    for (const url of [
      `${base}?sig=${flipped}`,
      `${base}?sig=${otherSig}`,
      `${base}?sig=${sig.slice(0, -1)}`,
      base,
      `${stack.httpUrl}/answer/ask_${"0".repeat(32)}?sig=${sig}`,
    ]) {
      const response = await fetch(url);
      expect(response.status, url).toBe(403);
      const body = await response.text();
      for (const secret of [secretText, "Merger", "Approve", id]) expect(body).not.toContain(secret);
      bodies.push(body);
    }
    // The same page whatever was wrong: not even whether the question exists shows.
    expect(new Set(bodies).size).toBe(1);

    const opened = await openPage(`${base}?sig=${flipped}`);
    await opened.page.getByRole("heading", { name: "This link is not valid" }).waitFor();
    expect(await opened.page.content()).not.toContain(secretText);
    expectClean(opened);

    // A post with an altered link changes nothing.
    const before = await storedItem(id);
    const posted = await fetch(`${base}?sig=${flipped}`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ sig: flipped, "a.ok": "0", action: "submit" }),
    });
    expect(posted.status).toBe(403);
    expect(await storedItem(id)).toEqual(before);
  });

  it("a hostile question text shows as text: no markup, no script, no dialog", async () => {
    const hostile = "<img src=x onerror=alert(1)>";
    const { id, answerUrl } = await createQuestion([
      {
        id: "xss",
        header: "<b>bold</b>",
        question: `Is ${hostile} fine?`,
        options: [
          { label: '<svg onload="alert(2)">', description: '"><script>alert(3)</script>' },
          { label: "No" },
        ],
      },
    ]);
    const opened = await openPage(answerUrl);
    const { page } = opened;
    await page.getByText(`Is ${hostile} fine?`).waitFor();
    await page.getByText('<svg onload="alert(2)">').waitFor();
    await page.getByText('"><script>alert(3)</script>').waitFor();
    expect(await page.locator("main img, main svg, main b, main script").count()).toBe(0);
    // An own answer with markup in it comes back as text in the summary too.
    await page.getByRole("textbox", { name: "Your own answer" }).fill(hostile);
    await button(page, "Submit").click();
    await page.getByRole("heading", { name: "Answered", exact: true }).waitFor();
    await page.locator("dd", { hasText: hostile }).waitFor();
    expect(await page.locator("main img, main svg, main b, main script").count()).toBe(0);
    await page.waitForTimeout(300);
    expectClean(opened);
    expect((await recordOf(id)).answers).toEqual({ xss: [hostile] });
  });

  it("a form posted from another site is refused, even with the right link, and changes nothing", async () => {
    const { id, answerUrl } = await createQuestion([
      { id: "go", header: "Go", question: "Ship it?", options: [{ label: "Yes" }, { label: "No" }] },
    ]);
    const sig = new URL(answerUrl).searchParams.get("sig") ?? "";
    // A page of another site (another host name) that posts the form by itself.
    const attacker: Server = createServer((_req, res) => {
      res.writeHead(200, { "content-type": "text/html" });
      res.end(
        `<form id="f" method="post" action="${answerUrl}">` +
          `<input name="sig" value="${sig}"><input name="a.go" value="0"><input name="action" value="submit">` +
          `</form><script>document.getElementById("f").submit()</script>`,
      );
    });
    await new Promise<void>((resolve) => attacker.listen(0, "127.0.0.1", resolve));
    try {
      const { port } = attacker.address() as AddressInfo;
      const context = await browser.newContext();
      const page = await context.newPage();
      const refused = page.waitForResponse((response) => response.url() === answerUrl);
      await page.goto(`http://localhost:${port}/`);
      expect((await refused).status()).toBe(403);
      await page.getByRole("heading", { name: "This answer was not accepted" }).waitFor();
      await context.close();
    } finally {
      attacker.close();
    }
    expect((await recordOf(id)).status).toBe("pending");
    // Without the link's sig in the body, or as another type than the form's, nothing is taken either.
    for (const [type, body] of [
      ["application/x-www-form-urlencoded", "a.go=0&action=submit"],
      ["application/json", JSON.stringify({ sig, "a.go": "0" })],
    ] as const) {
      const response = await fetch(answerUrl, { method: "POST", headers: { "content-type": type }, body });
      expect(response.status).toBeGreaterThanOrEqual(400);
      expect(response.headers.get("content-type")).toBe("text/html; charset=utf-8");
    }
    expect((await recordOf(id)).status).toBe("pending");
  });

  it("the link of the person the question was asked for (requestedBy) is a 403 page saying so; a post changes nothing", async () => {
    const owner = `web:${unique("requester")}`;
    const { id, answerUrl } = await createQuestion(
      [{ id: "go", header: "Go", question: "Ship it?", options: [{ label: "Yes" }, { label: "No" }] }],
      {
        owner,
        requestedBy: owner,
        // Someone else may answer, or the question could not have been asked.
        escalate: {
          afterSeconds: 600,
          owner: "web:dave",
          deliverTo: [{ channel: "console", chatId: "dave" }],
        },
      },
    );
    const sig = new URL(answerUrl).searchParams.get("sig") ?? "";
    const shown = await fetch(answerUrl);
    expect(shown.status).toBe(403);
    const html = await shown.text();
    expect(html).toContain("You asked for this; someone else must answer.");
    expect(html).not.toContain("Ship it?");
    for (const action of ["submit", "skip"]) {
      const posted = await fetch(answerUrl, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ sig, "a.go": "0", action }).toString(),
      });
      expect(posted.status).toBe(403);
      expect(await posted.text()).toContain("You asked for this; someone else must answer.");
    }
    expect((await recordOf(id)).status).toBe("pending");
  });

  it("sends a strict Content-Security-Policy and no-store, no-referrer, nosniff, no framing", async () => {
    const { answerUrl } = await createQuestion([
      { id: "go", header: "Go", question: "Ship it?", options: [{ label: "Yes" }, { label: "No" }] },
    ]);
    const response = await fetch(answerUrl);
    const csp = response.headers.get("content-security-policy") ?? "";
    expect(csp).toMatch(/^default-src 'none'; script-src 'sha256-[A-Za-z0-9+/]+=*'; style-src 'sha256-/);
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain("form-action 'self'");
    expect(csp).not.toMatch(/unsafe|\*|https?:/);
    expect(Object.fromEntries(response.headers)).toMatchObject({
      "cache-control": "no-store",
      "referrer-policy": "no-referrer",
      "x-content-type-options": "nosniff",
      "x-frame-options": "DENY",
    });
  });
});

describe("an ended question's link", () => {
  it("shows its outcome: answered elsewhere, cancelled, expired — and a late post is told it was not sent", async () => {
    const question = {
      id: "go",
      header: "Go",
      question: "Ship it?",
      options: [{ label: "Yes" }, { label: "No" }],
    };
    const answered = await createQuestion([question]);
    await stack.api("POST", `/questions/${answered.id}/answer`, { answers: { go: ["No"] } });
    const cancelled = await createQuestion([question]);
    await stack.api("POST", `/questions/${cancelled.id}/cancel`, {});
    const expired = await createQuestion([question], { timeoutSeconds: 1 });
    await waitFor(async () => ((await recordOf(expired.id)).status === "expired" ? true : undefined), {
      what: "the question to expire",
    });

    const cases = [
      [answered.answerUrl, "Answered elsewhere", "No"],
      [cancelled.answerUrl, "Cancelled", "needs no answer"],
      [expired.answerUrl, "Expired", "run out"],
    ] as const;
    for (const [url, heading, text] of cases) {
      const opened = await openPage(url);
      await opened.page.getByRole("heading", { name: heading, exact: true }).waitFor();
      expect(await opened.page.locator("main").textContent()).toContain(text);
      expect(await button(opened.page, "Submit").count()).toBe(0);
      expectClean(opened);
      await opened.page.close();
    }

    const sig = new URL(answered.answerUrl).searchParams.get("sig") ?? "";
    const late = await fetch(answered.answerUrl, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ sig, "a.go": "0", action: "submit" }),
    });
    expect(late.status).toBe(409);
    const page = await late.text();
    expect(page).toContain("Your answer was not sent: this question had already ended.");
    expect(page).toContain("Answered elsewhere");
    expect((await recordOf(answered.id)).answers).toEqual({ go: ["No"] });
  });
});

describe("on a phone and on a desktop", () => {
  it("fits the screen with large touch targets; screenshots saved under test/artifacts/", async () => {
    const run = await startDemoRun();
    for (const [name, viewport] of [
      ["phone", PHONE],
      ["desktop", DESKTOP],
    ] as const) {
      const opened = await openPage(run.answerUrl, { viewport, deviceScaleFactor: name === "phone" ? 2 : 1 });
      const { page } = opened;
      await button(page, "Next").waitFor();
      const layout = await page.evaluate(() => {
        const { document } = globalThis as any;
        return {
          scrollWidth: document.documentElement.scrollWidth as number,
          targets: [...document.querySelectorAll("label.option, button, input[type=text]")]
            .filter((element: any) => element.offsetParent !== null)
            .map((element: any) => Math.round(element.getBoundingClientRect().height) as number),
        };
      });
      expect(layout.scrollWidth).toBeLessThanOrEqual(viewport.width);
      for (const height of layout.targets) expect(height).toBeGreaterThanOrEqual(44);
      await page.getByRole("radio", { name: "Production" }).check();
      await page.screenshot({ path: join(ARTIFACTS_DIR, `answer-page-${name}.png`), fullPage: true });
      await button(page, "Next").click();
      await page.getByRole("checkbox", { name: "E2E" }).check();
      await page.screenshot({ path: join(ARTIFACTS_DIR, `answer-page-${name}-step-2.png`), fullPage: true });
      expectClean(opened);
      await opened.page.close();
    }
    await stack.api("POST", `/questions/${run.id}/answer`, {
      answers: { deploy_target: ["Production"], checks: ["E2E"], release_note: ["Routine (Recommended)"] },
    });
    const opened = await openPage(run.answerUrl, { viewport: PHONE, deviceScaleFactor: 2 });
    await opened.page.getByRole("heading", { name: "Answered elsewhere" }).waitFor();
    await opened.page.screenshot({
      path: join(ARTIFACTS_DIR, "answer-page-phone-outcome.png"),
      fullPage: true,
    });
    await waitForExecutionEnd(stack, run.executionArn);
  });
});

describe("who is asking and why", () => {
  it("the context (as text, its line break kept) and the asking key's name stand above the questions, at every step and on the outcome", async () => {
    const context = "Release agent for <b>alice</b> & co:\nv1.4 <img src=x onerror=alert(1)> is green.";
    const created = await stack.api(
      "POST",
      "/questions",
      {
        questions: [
          { id: "go", header: "Go", question: "Ship it?", options: [{ label: "Yes" }, { label: "No" }] },
          {
            id: "note",
            header: "Note",
            question: "Tell anyone?",
            options: [{ label: "Yes" }, { label: "No" }],
          },
        ],
        owner: `web:${unique("owner")}`,
        context,
      },
      { auth: `Bearer ${RELEASE_BOT_KEY}` },
    );
    expect(created.status, created.text).toBe(201);
    // The asking key is an agent's: the owner's link goes to the operator's key, never to the one that asked.
    expect(created.body).not.toHaveProperty("answerUrl");
    const { answerUrl } = (await stack.api("GET", `/questions/${created.body.id}`)).body;
    const opened = await openPage(answerUrl);
    const { page } = opened;
    const shown = page.locator("#context");
    await expect(shown.textContent()).resolves.toBe(context);
    // Shown on two lines, as written: its line break is kept.
    const whiteSpace = await shown.evaluate(
      (element) => (globalThis as any).getComputedStyle(element).whiteSpace as string,
    );
    expect(whiteSpace).toBe("pre-wrap");
    await expect(page.locator("#asked-by").textContent()).resolves.toBe("Asked by release-bot");
    expect(await page.locator("main img, main b").count()).toBe(0);

    await page.getByRole("radio", { name: "Yes" }).check();
    await button(page, "Next").click();
    await expect(stepper(page).textContent()).resolves.toBe("2 of 2");
    expect(await shown.isVisible()).toBe(true);
    await page.locator("#question-1").getByRole("radio", { name: "No" }).check();
    await button(page, "Submit").click();

    await page.getByRole("heading", { name: "Answered", exact: true }).waitFor();
    await expect(page.locator("#context").textContent()).resolves.toBe(context);
    await expect(page.locator("#asked-by").textContent()).resolves.toBe("Asked by release-bot");
    expect(await page.locator("main img, main b").count()).toBe(0);
    expectClean(opened);
    await page.close();
  });

  it("a question with no context, asked with the operator's default key, shows neither", async () => {
    const { answerUrl } = await createQuestion([
      { id: "go", header: "Go", question: "Ship it?", options: [{ label: "Yes" }, { label: "No" }] },
    ]);
    const opened = await openPage(answerUrl);
    await opened.page.getByRole("heading", { name: "A question for you" }).waitFor();
    expect(await opened.page.locator("#context, #asked-by").count()).toBe(0);
    expectClean(opened);
    await opened.page.close();
  });
});
