/**
 * The answer page's handler with the real resolve use case over an in-memory store: what it reads, what it
 * writes (only on POST), whom it answers as, and which page each case gets.
 */

import type { APIGatewayProxyEventV2 } from "aws-lambda";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { createResolveQuestion } from "#lib/app/resolve-question.ts";
import type { TaskCallbacks } from "#lib/callbacks/task-callbacks.ts";
import { createAnswerPage, webResolvedBy } from "#lib/http/answer-page.ts";
import { HttpError } from "#lib/http/http-errors.ts";
import { normalizeAskUserArgs } from "#lib/questions/index.ts";
import type { QuestionRecord } from "#lib/questions/question-record.ts";
import { MAX_ANSWER_VALUE_UNITS } from "#lib/questions/schema.ts";
import type { Outcome, QuestionStore } from "#lib/store/question-store.ts";
import { silentTelemetry } from "#lib/telemetry/telemetry.ts";
import { signAnswerLink } from "#lib/web/answer-link.ts";

const KEY = "a-link-secret-of-at-least-32-characters";
const NOW = 1_000_000;
const { questions } = normalizeAskUserArgs({
  questions: [{ id: "go", header: "Go", question: "Ship it?", options: [{ label: "Yes" }, { label: "No" }] }],
});

function setup(
  options: {
    owner?: string;
    key?: string | undefined;
    status?: QuestionRecord["status"];
    escalate?: QuestionRecord["escalate"];
  } = {},
) {
  let record: QuestionRecord = {
    id: "ask_1",
    status: options.status ?? "pending",
    questions,
    owner: options.owner ?? "web:ann",
    deliveries: [],
    createdAtMs: 0,
    expiresAtMs: NOW + 60_000,
    ...(options.escalate && { escalate: options.escalate }),
  };
  const calls: string[] = [];
  const store = {
    async get(id: string) {
      calls.push(`get ${id}`);
      return id === record.id ? record : undefined;
    },
    async close(id: string, outcome: Outcome) {
      calls.push(`close ${id}`);
      if (record.status !== "pending") return { kind: "not_pending", record };
      record = { ...record, ...outcome } as QuestionRecord;
      return { kind: "closed", record, taskToken: undefined };
    },
  } as unknown as QuestionStore;
  const callbacks = {} as TaskCallbacks;
  const resolve = createResolveQuestion({ store, callbacks, now: () => NOW, telemetry: silentTelemetry });
  const page = createAnswerPage({
    store,
    resolve,
    linkKey: async () => ("key" in options ? options.key : KEY),
    now: () => NOW,
  });
  const sigFor = (answerer: string) =>
    signAnswerLink(KEY, { id: record.id, answerer, expiresAtMs: record.expiresAtMs });
  return { page, calls, sig: sigFor(record.owner), sigFor, current: () => record };
}

function event(
  method: "GET" | "POST",
  sig: string,
  body?: Record<string, string>,
  headers: Record<string, string> = {},
  as?: string,
): APIGatewayProxyEventV2 {
  return {
    routeKey: `${method} /answer/{id}`,
    pathParameters: { id: "ask_1" },
    queryStringParameters: { sig, ...(as !== undefined && { as }) },
    headers: {
      ...(body && { "content-type": "application/x-www-form-urlencoded" }),
      "sec-fetch-site": "same-origin",
      ...headers,
    },
    requestContext: { http: { method } },
    ...(body && { body: new URLSearchParams(body).toString() }),
    isBase64Encoded: false,
  } as unknown as APIGatewayProxyEventV2;
}

describe("the answer page handler", () => {
  it("is off without a link secret: a 404 page, nothing read", async () => {
    const { page, calls, sig } = setup({ key: undefined });
    const response = await page(event("GET", sig));
    expect(response.statusCode).toBe(404);
    expect(response.body).toContain("There is no answer page here.");
    expect(calls).toEqual([]);
  });

  it("refuses a malformed signature before reading anything, a wrong one after", async () => {
    const { page, calls, sig } = setup();
    expect((await page(event("GET", "short"))).statusCode).toBe(403);
    expect(calls).toEqual([]);
    const wrong = `${sig.slice(0, -1)}${sig.endsWith("A") ? "B" : "A"}`;
    const response = await page(event("GET", wrong));
    expect(response.statusCode).toBe(403);
    expect(response.body).not.toContain("Ship it?");
    expect(calls).toEqual(["get ask_1"]);
  });

  it("GET shows the form and writes nothing", async () => {
    const { page, calls, sig } = setup();
    const response = await page(event("GET", sig));
    expect(response.statusCode).toBe(200);
    expect(response.headers).toMatchObject({ "cache-control": "no-store", "referrer-policy": "no-referrer" });
    expect(response.body).toContain("Ship it?");
    expect(calls).toEqual(["get ask_1"]);
  });

  it("GET with choose=<n> (an e-mail's option link) opens the form with option n chosen, and writes nothing", async () => {
    const { page, calls, sig } = setup();
    const chosen = (choose: string) =>
      page({ ...event("GET", sig), queryStringParameters: { sig, choose } }).then((r) => r.body ?? "");
    const checkedValues = (html: string) => [...html.matchAll(/value="(\d+)" checked/g)].map((m) => m[1]);
    expect(checkedValues(await chosen("2"))).toEqual(["1"]);
    expect(checkedValues(await chosen("1"))).toEqual(["0"]);
    // Out of range or not a number: the form as it is, nothing chosen (the link itself is still good).
    for (const bad of ["0", "3", "x", "-1", "1e1"]) {
      const html = await chosen(bad);
      expect(html).toContain("Ship it?");
      expect(checkedValues(html)).toEqual([]);
    }
    expect(calls.every((call) => call.startsWith("get "))).toBe(true);
  });

  it("choose= chooses nothing for a multi-select question or several questions", async () => {
    const { page, sig, current } = setup();
    const record = current();
    const [first] = record.questions;
    if (!first) throw new Error("no question");
    for (const shape of [[{ ...first, multiSelect: true }], [first, { ...first, id: "again" }]]) {
      Object.assign(record, { questions: shape });
      const response = await page({ ...event("GET", sig), queryStringParameters: { sig, choose: "1" } });
      expect(response.statusCode).toBe(200);
      expect(response.body).toContain("Ship it?");
      expect(response.body).not.toMatch(/value="\d+" checked/);
    }
  });

  it.each([
    ["web:ann", "web:ann"],
    ["telegram:42", "web:telegram:42"],
  ])(
    "POST answers as the owner %s, recorded as resolvedBy %s, then sends the browser back to the page (303)",
    async (owner, resolvedBy) => {
      const { page, sig, current } = setup({ owner });
      const response = await page(event("POST", sig, { sig, "a.go": "1", action: "submit" }));
      expect(response).toMatchObject({ statusCode: 303, headers: { location: `?sig=${sig}` } });
      expect(current()).toMatchObject({ status: "answered", answers: { go: ["No"] }, resolvedBy });
      expect(webResolvedBy(owner)).toBe(resolvedBy);
    },
  );

  describe("a link acts only as the answerer it was made for", () => {
    // Asked at 0: the escalation owner may answer from 999 s on, which NOW (1,000 s) is past.
    const escalate = {
      afterSeconds: 999,
      owner: "slack:T1:U9",
      deliverTo: [{ channel: "slack", chatId: "D9" }],
    };

    it("the escalation owner's link answers, recorded as that person, and the redirect keeps `as`", async () => {
      const { page, sigFor, current } = setup({ owner: "telegram:42", escalate });
      const sig = sigFor("slack:T1:U9");
      const response = await page(
        event("POST", sig, { sig, "a.go": "0", action: "submit" }, {}, "slack:T1:U9"),
      );
      expect(response).toMatchObject({
        statusCode: 303,
        headers: { location: `?as=${encodeURIComponent("slack:T1:U9")}&sig=${sig}` },
      });
      expect(current()).toMatchObject({ status: "answered", resolvedBy: "web:slack:T1:U9" });
    });

    it("another answerer's signature, or the owner's with someone else in `as`, is not valid; nothing changes", async () => {
      const { page, sig, sigFor, current } = setup({ owner: "telegram:42", escalate });
      const owners = await page(
        event("POST", sig, { sig, "a.go": "0", action: "submit" }, {}, "slack:T1:U9"),
      );
      expect(owners.statusCode).toBe(403);
      expect(owners.body).toContain("This link is not valid");
      const theirs = sigFor("slack:T1:U9");
      const asOwner = await page(event("POST", theirs, { sig: theirs, "a.go": "0", action: "submit" }));
      expect(asOwner.statusCode).toBe(403);
      expect((await page(event("GET", theirs, undefined, {}, "not an identity"))).statusCode).toBe(403);
      expect(current().status).toBe("pending");
    });

    it("a genuine link of someone who may not answer (yet) is told so and opens nothing", async () => {
      const early = { ...escalate, afterSeconds: 2_000 };
      const { page, sigFor, current } = setup({ owner: "telegram:42", escalate: early });
      for (const who of ["slack:T1:U9", "telegram:7"]) {
        const sig = sigFor(who);
        const shown = await page(event("GET", sig, undefined, {}, who));
        expect(shown.statusCode).toBe(403);
        expect(shown.body).toContain("This question is not yours to answer.");
        expect(shown.body).not.toContain("Ship it?");
        const posted = await page(event("POST", sig, { sig, "a.go": "0", action: "submit" }, {}, who));
        expect(posted.statusCode).toBe(403);
      }
      expect(current().status).toBe("pending");
    });
  });

  it("Skip cancels as skipped", async () => {
    const { page, sig, current } = setup();
    expect((await page(event("POST", sig, { sig, action: "skip" }))).statusCode).toBe(303);
    expect(current()).toMatchObject({ status: "cancelled", reason: "skipped", resolvedBy: "web:ann" });
  });

  it("refuses a post without the link's sig in its body, from another site, or of another type; nothing changes", async () => {
    const { page, sig, current } = setup();
    const answer = { "a.go": "0", action: "submit" };
    expect((await page(event("POST", sig, answer))).statusCode).toBe(403);
    const crossSite = await page(event("POST", sig, { sig, ...answer }, { "sec-fetch-site": "cross-site" }));
    expect(crossSite.statusCode).toBe(403);
    expect(crossSite.body).toContain("Answers are accepted only from the answer page itself.");
    expect(
      (await page(event("POST", sig, { sig, ...answer }, { "sec-fetch-site": "same-site" }))).statusCode,
    ).toBe(403);
    await expect(
      page(event("POST", sig, { sig, ...answer }, { "content-type": "application/json" })),
    ).rejects.toMatchObject({ statusCode: 415 });
    expect(current().status).toBe("pending");
  });

  it("an answer the shared validation refuses shows the form again with the reason; nothing changes", async () => {
    const { page, sig, current } = setup();
    const long = "x".repeat(MAX_ANSWER_VALUE_UNITS + 1);
    const response = await page(event("POST", sig, { sig, "t.go": long, action: "submit" }));
    expect(response.statusCode).toBe(400);
    expect(response.body).toContain("Your answer is too long: at most 4,000 characters.");
    expect(current().status).toBe("pending");
  });

  it("a post to an ended question shows its outcome with 409", async () => {
    const { page, sig } = setup({ status: "expired" });
    const response = await page(event("POST", sig, { sig, "a.go": "0", action: "submit" }));
    expect(response.statusCode).toBe(409);
    expect(response.body).toContain("Your answer was not sent");
    expect(response.body).toContain("<h1>Expired</h1>");
  });
});

describe("the answer page handler under random input", () => {
  const statusOf = async (run: Promise<{ statusCode?: number | undefined }>) => {
    try {
      return (await run).statusCode ?? 200;
    } catch (error) {
      // Only the page's own refusals are thrown (the error middleware shows them as pages).
      expect(error).toBeInstanceOf(HttpError);
      return (error as HttpError).statusCode;
    }
  };
  const inputs = fc.record({
    body: fc.oneof(
      fc.string(),
      fc.webUrl().map((url) => new URL(url).search.slice(1)),
    ),
    type: fc.constantFrom("application/x-www-form-urlencoded", "application/json", "text/plain", ""),
    site: fc.constantFrom("same-origin", "none", "cross-site", "same-site"),
  });

  it("a wrong link never reaches the question, whatever is posted", async () => {
    await fc.assert(
      fc.asyncProperty(fc.string(), inputs, async (sig, { body, type, site }) => {
        const { page, calls, sig: right } = setup();
        fc.pre(sig !== right);
        const status = await statusOf(
          page({ ...event("POST", sig, {}, { "content-type": type, "sec-fetch-site": site }), body }),
        );
        expect(status).toBe(403);
        expect(calls.filter((call) => call.startsWith("close"))).toEqual([]);
      }),
      { numRuns: 200 },
    );
  });

  it("the right link with any body: never a 5xx, and a close only for a well-formed answer or skip", async () => {
    await fc.assert(
      fc.asyncProperty(inputs, async ({ body, type, site }) => {
        const { page, calls, sig, current } = setup();
        const posted = `sig=${sig}&${body}`;
        const status = await statusOf(
          page({ ...event("POST", sig, {}, { "content-type": type, "sec-fetch-site": site }), body: posted }),
        );
        expect(status).toBeLessThan(500);
        if (calls.some((call) => call.startsWith("close"))) {
          expect(status).toBe(303);
          expect(["answered", "cancelled"]).toContain(current().status);
        } else expect(current().status).toBe("pending");
      }),
      { numRuns: 200 },
    );
  });
});
