/**
 * Lifecycle guarantee 6, bad input, over HTTP on the real local stack: random requests to every question API
 * route and every chat webhook never get a 5xx and never change a record; oversized bodies and answers that
 * could push a run's task output towards Step Functions' 256 KiB limit are refused with a clear error.
 */
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MAX_BODY_BYTES, MAX_WEBHOOK_BODY_BYTES } from "#lib/http/middlewares.ts";
import { MAX_ANSWER_VALUE_UNITS, MAX_ANSWERS_BYTES } from "#lib/questions/schema.ts";
import vectors from "../fixtures/signature-vectors.json" with { type: "json" };
import { type FakePlatform, startFakePlatform } from "./support/fake-platform.ts";
import { discordSignature, slackSignature } from "./support/signing.ts";
import { allItems, startTestStack, type TestStack } from "./support/test-stack.ts";

const TG_SECRET = vectors.telegram_generated.secret_token;
const TG_HEADER = vectors.telegram_generated.header.toLowerCase();
const SLACK_SECRET = "5d41402abc4b2a76b9719d911017c592";
const D1 = vectors.discord_generated;
const MM_COMMAND_TOKEN = "mmcommandtoken0123456789ab";

let stack: TestStack;
let platform: FakePlatform;
let pendingId: string;
let answeredId: string;

const single = {
  id: "deploy_target",
  header: "Deploy to",
  question: "Where should it go?",
  options: [{ label: "Staging (Recommended)" }, { label: "Production" }],
};
const multi = { ...single, id: "checks", multiSelect: true };

beforeAll(async () => {
  platform = await startFakePlatform(() => ({ body: { ok: true, result: true } }));
  stack = await startTestStack({
    TELEGRAM_BOT_TOKEN: "123456:TEST-token",
    TELEGRAM_WEBHOOK_SECRET: TG_SECRET,
    TELEGRAM_API_BASE: platform.url,
    SLACK_BOT_TOKEN: "xoxb-test-0000-token",
    SLACK_SIGNING_SECRET: SLACK_SECRET,
    SLACK_API_BASE: platform.url,
    DISCORD_BOT_TOKEN: "MTA5.test-bot-token",
    DISCORD_PUBLIC_KEY: D1.public_key,
    DISCORD_APPLICATION_ID: "111111111111111111",
    DISCORD_API_BASE: platform.url,
    MATTERMOST_URL: platform.url,
    MATTERMOST_BOT_TOKEN: "mm-bot-token",
    MATTERMOST_ACTION_SECRET: "mm-action-secret-0123456789",
    MATTERMOST_COMMAND_TOKEN: MM_COMMAND_TOKEN,
    HANDRAISE_PUBLIC_URL: "http://127.0.0.1:9",
  });
  const pending = await stack.api("POST", "/questions", {
    questions: [single, multi],
    owner: "web:fuzz",
    sessionKey: "fuzz-pending",
    agentId: "fuzz-agent",
  });
  pendingId = pending.body.id;
  const answered = await stack.api("POST", "/questions", { questions: [single], owner: "web:fuzz" });
  answeredId = answered.body.id;
  await stack.api("POST", `/questions/${answeredId}/answer`, { answers: { deploy_target: ["Production"] } });
});
afterAll(async () => {
  await stack?.stop();
  await platform?.stop();
});

/** Every item of the table, in a stable order: what "nothing changed" is checked against. */
async function snapshot(): Promise<string> {
  const items = await allItems(stack);
  items.sort((a, b) => String(a.pk).localeCompare(String(b.pk)));
  return JSON.stringify(items);
}
async function questionSnapshot(): Promise<string> {
  const items = (await allItems(stack)).filter((item) => String(item.pk).startsWith("Q#"));
  items.sort((a, b) => String(a.pk).localeCompare(String(b.pk)));
  return JSON.stringify(items);
}

async function request(
  method: string,
  path: string,
  body: string | undefined,
  headers: Record<string, string>,
) {
  const response = await fetch(`${stack.httpUrl}${path}`, {
    method,
    headers,
    ...(body !== undefined && method !== "GET" && { body }),
  });
  return { status: response.status, text: await response.text() };
}

// ── Arbitraries ───────────────────────────────────────────────────────────────────────────────────────

const jsonText = fc.jsonValue().map((value) => JSON.stringify(value));
/** Bodies that are almost what a route takes, but never a valid request. */
const nearBody = fc.oneof(
  jsonText,
  fc.string({ unit: "grapheme", maxLength: 300 }),
  fc
    .record({ answers: fc.jsonValue(), resolvedBy: fc.jsonValue() }, { requiredKeys: [] })
    .map((b) => JSON.stringify(b)),
  fc
    .record(
      { reason: fc.string(), resolvedBy: fc.oneof(fc.string({ maxLength: 400 }), fc.jsonValue()) },
      { requiredKeys: ["reason"] },
    )
    .filter((b) => b.reason !== "cancelled" && b.reason !== "skipped")
    .map((b) => JSON.stringify(b)),
  fc
    .record(
      {
        questions: fc.jsonValue(),
        owner: fc.oneof(fc.string(), fc.constant("web:fuzz")),
        timeoutSeconds: fc.jsonValue(),
        deliverTo: fc.jsonValue(),
      },
      { requiredKeys: ["questions"] },
    )
    .map((b) => JSON.stringify(b)),
  fc.constant(""),
  fc.constant("{"),
  fc.constant("null"),
);
const anyId = fc.oneof(
  fc.constant("PENDING"),
  fc.constant("ANSWERED"),
  fc.string({ minLength: 1, maxLength: 80 }),
  fc.stringMatching(/^ask_[0-9a-f]{0,40}$/),
);
const headerValue = fc.string({ maxLength: 60 }).filter((v) => /^[\t\x20-\x7e]*$/.test(v));
const authHeader = fc.oneof(
  fc.constant(`Bearer ${"test-api-key-0123456789"}`),
  fc.constant(`Bearer ${"test-api-key-0123456789"}`),
  fc.constant(undefined),
  headerValue,
);
const contentType = fc.oneof(
  fc.constant("application/json"),
  fc.constant("text/plain"),
  fc.constant("application/x-www-form-urlencoded"),
  fc.constant("application/octet-stream"),
  headerValue,
);
/** Almost a list cursor: base64url of random JSON, or of a position with random values. */
const nearCursor = fc
  .oneof(
    fc.jsonValue(),
    fc.record({
      createdAtMs: fc.oneof(fc.integer(), fc.double(), fc.string()),
      id: fc.string({ maxLength: 60 }),
    }),
  )
  .map((value) => Buffer.from(JSON.stringify(value) ?? "").toString("base64url"));
const query = fc.dictionary(
  fc.oneof(
    fc.constantFrom("owner", "sessionKey", "agentId", "timeoutMs", "limit", "cursor"),
    fc.string({ maxLength: 10 }),
  ),
  fc.oneof(fc.string({ maxLength: 300 }), fc.integer({ min: -1e9, max: 1e9 }).map(String), nearCursor),
  { maxKeys: 4 },
);

type RouteName = "create" | "list" | "get" | "answer" | "cancel" | "wait" | "other";
const apiRequest = fc.record({
  route: fc.constantFrom<RouteName>("create", "list", "get", "answer", "cancel", "wait", "other"),
  id: anyId,
  body: nearBody,
  auth: authHeader,
  contentType,
  query,
  method: fc.constantFrom("GET", "POST", "PUT", "DELETE", "PATCH"),
  otherPath: fc.string({ maxLength: 40 }),
});

type ApiRequest = typeof apiRequest extends fc.Arbitrary<infer T> ? T : never;

/**
 * A cancel of the pending question with the right key and an empty or well-formed body is a valid write (the
 * body's members are optional): the property below is about invalid requests, so such draws are left out.
 */
function isValidCancel(req: ApiRequest): boolean {
  if (req.route !== "cancel" || req.id !== "PENDING" || req.auth !== `Bearer ${"test-api-key-0123456789"}`) {
    return false;
  }
  if (req.body === "") return true;
  try {
    const body: unknown = JSON.parse(req.body);
    if (typeof body !== "object" || body === null || Array.isArray(body)) return false;
    return Object.entries(body).every(([key, value]) =>
      key === "reason"
        ? value === "cancelled" || value === "skipped"
        : key === "resolvedBy" && typeof value === "string" && value.length >= 1 && value.length <= 256,
    );
  } catch {
    return false;
  }
}

function pathOf(req: ApiRequest): { method: string; path: string } {
  const id =
    req.id === "PENDING" ? pendingId : req.id === "ANSWERED" ? answeredId : encodeURIComponent(req.id);
  const qs = new URLSearchParams(req.query).toString();
  switch (req.route) {
    case "create":
      return { method: "POST", path: "/questions" };
    case "list":
      return { method: "GET", path: `/questions?${qs}` };
    case "get":
      return { method: "GET", path: `/questions/${id}` };
    case "answer":
      return { method: "POST", path: `/questions/${id}/answer` };
    case "cancel":
      return { method: "POST", path: `/questions/${id}/cancel` };
    case "wait": {
      // Never wait on the pending question: a valid small timeout would just make the test slow.
      const waitId = req.id === "PENDING" ? answeredId : id;
      return { method: "GET", path: `/questions/${waitId}/wait?${qs}` };
    }
    case "other":
      return { method: req.method, path: `/${encodeURIComponent(req.otherPath)}/questions/${id}` };
  }
}

// ── Question API ──────────────────────────────────────────────────────────────────────────────────────

describe("question API under random input", () => {
  it("random bodies, headers, queries and paths on every route → never a 5xx, every write refused, the table unchanged", async () => {
    const before = await snapshot();
    const seen = new Set<number>();
    await fc.assert(
      fc.asyncProperty(
        apiRequest.filter((req) => !isValidCancel(req)),
        async (req) => {
          const { method, path } = pathOf(req);
          const headers: Record<string, string> = { "content-type": req.contentType };
          if (req.auth !== undefined) headers.authorization = req.auth;
          const response = await request(method, path, req.body, headers);
          seen.add(response.status);
          expect(response.status).toBeLessThan(500);
          if (method !== "GET") expect(response.status).toBeGreaterThanOrEqual(400);
          // Every error body has the documented shape.
          if (response.status >= 400 && response.text.startsWith('{"error"')) {
            expect(JSON.parse(response.text).error).toMatchObject({
              code: expect.any(String),
              message: expect.any(String),
            });
          }
        },
      ),
      { numRuns: 200 },
    );
    expect(await snapshot()).toBe(before);
    // The run reached past authentication (400s) as well as failing it (401).
    expect(seen.has(400)).toBe(true);
    expect(seen.has(401)).toBe(true);
  }, 60_000);
});

// ── Webhooks ──────────────────────────────────────────────────────────────────────────────────────────

type Webhook = "telegram" | "slack" | "discord" | "mattermost";
const WEBHOOKS: Webhook[] = ["telegram", "slack", "discord", "mattermost"];

/** Headers that sign `body` the way each platform signs (Mattermost: its slash-command token, in the body). */
function signedHeaders(webhook: Webhook, body: string): Record<string, string> {
  const timestamp = String(Math.floor(Date.now() / 1000));
  switch (webhook) {
    case "telegram":
      return { [TG_HEADER]: TG_SECRET };
    case "slack":
      return {
        "x-slack-request-timestamp": timestamp,
        "x-slack-signature": slackSignature(SLACK_SECRET, timestamp, body),
      };
    case "discord":
      return {
        "x-signature-ed25519": discordSignature(timestamp, body),
        "x-signature-timestamp": timestamp,
      };
    case "mattermost":
      return {};
  }
}

const webhookBody = fc.oneof(
  jsonText,
  fc.string({ unit: "grapheme", maxLength: 300 }),
  fc.jsonValue().map((value) => `payload=${encodeURIComponent(JSON.stringify(value))}`),
  fc
    .dictionary(fc.string({ maxLength: 12 }), fc.string({ maxLength: 40 }))
    .map((form) => new URLSearchParams(form).toString()),
);
/** Bogus signature headers: wrong, stale or missing. */
const forgedHeaders = fc.record(
  {
    [TG_HEADER]: headerValue,
    "x-slack-request-timestamp": fc.oneof(headerValue, fc.integer().map(String)),
    "x-slack-signature": fc.oneof(headerValue, fc.stringMatching(/^v0=[0-9a-f]{64}$/)),
    "x-signature-ed25519": fc.oneof(headerValue, fc.stringMatching(/^[0-9a-f]{128}$/)),
    "x-signature-timestamp": fc.oneof(headerValue, fc.integer().map(String)),
  },
  { requiredKeys: [] },
);

describe("webhooks under random input", () => {
  it.each(WEBHOOKS)("%s: random unsigned or forged requests → 401, nothing stored", async (webhook) => {
    const before = await snapshot();
    await fc.assert(
      fc.asyncProperty(webhookBody, forgedHeaders, contentType, async (body, headers, type) => {
        const response = await request("POST", `/webhooks/${webhook}`, body, {
          ...headers,
          "content-type": type,
        });
        expect(response.status).toBe(401);
      }),
      { numRuns: 100 },
    );
    expect(await snapshot()).toBe(before);
  });

  it.each(WEBHOOKS)(
    "%s: validly signed random payloads → never a 5xx, no question changed",
    async (webhook) => {
      const before = await questionSnapshot();
      const body =
        webhook === "mattermost"
          ? fc
              .dictionary(
                fc.constantFrom(
                  "text",
                  "channel_id",
                  "user_id",
                  "team_id",
                  "command",
                  "trigger_id",
                  "context",
                ),
                fc.string({ maxLength: 60 }),
              )
              .map((form) => new URLSearchParams({ ...form, token: MM_COMMAND_TOKEN }).toString())
          : webhookBody;
      const statuses = new Set<number>();
      await fc.assert(
        fc.asyncProperty(body, contentType, async (raw, type) => {
          const response = await request("POST", `/webhooks/${webhook}`, raw, {
            ...signedHeaders(webhook, raw),
            "content-type": webhook === "mattermost" ? "application/x-www-form-urlencoded" : type,
          });
          statuses.add(response.status);
          expect(response.status).toBeLessThan(500);
        }),
        { numRuns: 100 },
      );
      expect(await questionSnapshot()).toBe(before);
      // Verification passed: the requests got past the 401.
      expect([...statuses].some((s) => s !== 401)).toBe(true);
    },
  );
});

// ── Limits ────────────────────────────────────────────────────────────────────────────────────────────

describe("size limits", () => {
  it(`question API bodies over ${MAX_BODY_BYTES} bytes → 413 PAYLOAD_TOO_LARGE, nothing stored`, async () => {
    const before = await snapshot();
    const big = { questions: [single], owner: "web:fuzz", pad: "x".repeat(MAX_BODY_BYTES) };
    for (const path of ["/questions", `/questions/${pendingId}/answer`, `/questions/${pendingId}/cancel`]) {
      const response = await stack.api("POST", path, big);
      expect(response.status).toBe(413);
      expect(response.body.error).toMatchObject({ code: "PAYLOAD_TOO_LARGE" });
      expect(response.body.error.message).toContain(String(MAX_BODY_BYTES));
    }
    expect(await snapshot()).toBe(before);
  });

  it.each(WEBHOOKS)(
    `%s: a body over ${MAX_WEBHOOK_BODY_BYTES} bytes → 413 before verification, signed or not`,
    async (webhook) => {
      const before = await snapshot();
      const body = JSON.stringify({ update_id: 1, type: 1, pad: "x".repeat(MAX_WEBHOOK_BODY_BYTES) });
      for (const headers of [{}, signedHeaders(webhook, body)]) {
        const response = await request("POST", `/webhooks/${webhook}`, body, {
          "content-type": "application/json",
          ...headers,
        });
        expect(response.status).toBe(413);
        expect(JSON.parse(response.text).error.code).toBe("PAYLOAD_TOO_LARGE");
      }
      expect(await snapshot()).toBe(before);
    },
  );

  it(`an answer value over ${MAX_ANSWER_VALUE_UNITS} characters, or answers over ${MAX_ANSWERS_BYTES} bytes → 400 INVALID_ANSWER, still pending`, async () => {
    const before = await snapshot();
    const longValue = await stack.api("POST", `/questions/${pendingId}/answer`, {
      answers: { deploy_target: ["x".repeat(MAX_ANSWER_VALUE_UNITS + 1)], checks: ["Unit"] },
    });
    expect(longValue.status).toBe(400);
    expect(longValue.body.error.code).toBe("INVALID_ANSWER");
    expect(longValue.body.error.message).toContain(`longer than ${MAX_ANSWER_VALUE_UNITS} characters`);

    // Each value fits, the whole does not (and the body is still under the 64 KiB request limit).
    const many = Array.from({ length: 12 }, (_, i) => `${i}${"y".repeat(3000)}`);
    const tooMuch = await stack.api("POST", `/questions/${pendingId}/answer`, {
      answers: { deploy_target: ["Production"], checks: many },
    });
    expect(tooMuch.status).toBe(400);
    expect(tooMuch.body.error.code).toBe("INVALID_ANSWER");
    expect(tooMuch.body.error.message).toContain(String(MAX_ANSWERS_BYTES));
    expect(await snapshot()).toBe(before);
    expect((await stack.api("GET", `/questions/${pendingId}`)).body.question.status).toBe("pending");
  });
});
