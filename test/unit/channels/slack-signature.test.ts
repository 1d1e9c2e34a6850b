import { createHmac } from "node:crypto";
import middy from "@middy/core";
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from "aws-lambda";
import { describe, expect, it } from "vitest";
import type { HandleInbound } from "#lib/app/handle-inbound.ts";
import type { Inbound } from "#lib/channels/inbound.ts";
import type { SlackApi } from "#lib/channels/slack/slack-api.ts";
import { slackPrelude, slackSignature, verifySlackSignature } from "#lib/channels/slack/slack-signature.ts";
import { createSlackWebhook } from "#lib/channels/slack/slack-webhook.ts";
import { HttpError } from "#lib/http/http-errors.ts";
import { MAX_WEBHOOK_BODY_BYTES } from "#lib/http/middlewares.ts";
import { webhookPrelude } from "#lib/http/webhook-prelude.ts";
import type { QuestionStore } from "#lib/store/question-store.ts";
import { NO_ANSWER_LINKS } from "#lib/web/answer-link.ts";
import vectors from "../../fixtures/signature-vectors.json" with { type: "json" };

const vector = vectors.slack_official;
const body = Buffer.from(vector.body, "utf8");
const signedAtMs = Number(vector.timestamp) * 1000;
const request = { timestamp: vector.timestamp, signature: vector.signature, body };

describe("Slack request signatures (official vector S1)", () => {
  it("computes the documented signature of v0:<timestamp>:<raw body>", () => {
    expect(slackSignature(vector.signing_secret, vector.timestamp, body)).toBe(vector.signature);
    // …which is plain HMAC-SHA256 hex of the basestring, prefixed v0=.
    const basestring = `v0:${vector.timestamp}:${vector.body}`;
    expect(`v0=${createHmac("sha256", vector.signing_secret).update(basestring).digest("hex")}`).toBe(
      vector.signature,
    );
  });

  it("accepts the vector with the clock frozen at its timestamp, and up to 300 s either way", () => {
    expect(verifySlackSignature(vector.signing_secret, request, signedAtMs)).toBe(true);
    expect(verifySlackSignature(vector.signing_secret, request, signedAtMs + 300_000)).toBe(true);
    expect(verifySlackSignature(vector.signing_secret, request, signedAtMs - 300_000)).toBe(true);
  });

  it("rejects it 301 s later or earlier (replay window)", () => {
    expect(verifySlackSignature(vector.signing_secret, request, signedAtMs + 301_000)).toBe(false);
    expect(verifySlackSignature(vector.signing_secret, request, signedAtMs - 301_000)).toBe(false);
  });

  it("rejects a changed body, a wrong secret, a changed timestamp", () => {
    const changed = { ...request, body: Buffer.from(`${vector.body}x`, "utf8") };
    expect(verifySlackSignature(vector.signing_secret, changed, signedAtMs)).toBe(false);
    expect(verifySlackSignature(`${vector.signing_secret}0`, request, signedAtMs)).toBe(false);
    const later = { ...request, timestamp: String(Number(vector.timestamp) + 1) };
    expect(verifySlackSignature(vector.signing_secret, later, signedAtMs)).toBe(false);
  });

  it("rejects missing or malformed headers without throwing", () => {
    const secret = vector.signing_secret;
    expect(verifySlackSignature(secret, { ...request, signature: undefined }, signedAtMs)).toBe(false);
    expect(verifySlackSignature(secret, { ...request, timestamp: undefined }, signedAtMs)).toBe(false);
    expect(verifySlackSignature(secret, { ...request, timestamp: "1531420618.5" }, signedAtMs)).toBe(false);
    expect(verifySlackSignature(secret, { ...request, signature: "v0=abc" }, signedAtMs)).toBe(false);
    expect(
      verifySlackSignature(secret, { ...request, signature: vector.signature.toUpperCase() }, signedAtMs),
    ).toBe(false);
  });
});

describe("the Slack webhook behind its prelude verifies before anything else, with its injected clock", () => {
  /**
   * The webhook composed as functions/slack-webhook.ts composes it, with the clock frozen at `nowMs`,
   * recording what reaches the pipeline, store and Slack.
   */
  function webhookAt(nowMs: number, secret = vector.signing_secret) {
    const handled: Inbound[] = [];
    const apiCalls: string[] = [];
    const storeCalls: string[] = [];
    const store = new Proxy({} as QuestionStore, {
      get: (_, name) => async () => {
        storeCalls.push(String(name));
        throw new Error("the store is not part of this test");
      },
    });
    const api: SlackApi = {
      call: async (method) => {
        apiCalls.push(method);
        return {} as never;
      },
    };
    const handleInbound = (async (inbound: Inbound) => {
      handled.push(inbound);
      return { kind: "no_pending" };
    }) as HandleInbound;
    const bare = createSlackWebhook({
      api,
      links: NO_ANSWER_LINKS,
      store,
      handleInbound,
      now: () => nowMs,
      onError: () => {},
    });
    const composed = middy<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2>()
      .use(
        webhookPrelude(
          slackPrelude(
            async () => secret,
            () => nowMs,
          ),
        ),
      )
      .handler(bare);
    const webhook = (event: APIGatewayProxyEventV2) => composed(event, {} as Context);
    return { webhook, bare, handled, apiCalls, storeCalls };
  }
  const eventOf = (body: string, headers: Record<string, string>, base64 = false) =>
    ({
      body: base64 ? Buffer.from(body, "utf8").toString("base64") : body,
      isBase64Encoded: base64,
      headers,
    }) as unknown as APIGatewayProxyEventV2;
  const vectorHeaders = {
    "content-type": "application/x-www-form-urlencoded",
    "x-slack-request-timestamp": vector.timestamp,
    "x-slack-signature": vector.signature,
  };
  const refusal = (promise: Promise<unknown>) =>
    expect(promise).rejects.toSatisfy((error) => error instanceof HttpError && error.statusCode === 401);

  it("accepts the official vector at its timestamp (an unknown slash command: told how to use /handraise)", async () => {
    const { webhook, handled, storeCalls } = webhookAt(signedAtMs);
    const response = await webhook(eventOf(vector.body, vectorHeaders));
    expect(response.statusCode).toBe(200);
    expect(JSON.parse(String(response.body))).toMatchObject({ response_type: "ephemeral" });
    expect(handled).toEqual([]);
    expect(storeCalls).toEqual([]);
    // API Gateway may base64-encode the body: verified on the decoded bytes.
    expect((await webhook(eventOf(vector.body, vectorHeaders, true))).statusCode).toBe(200);
  });

  it("refuses it 301 s later, with the body + x, or with another secret: 401, nothing handled", async () => {
    const late = webhookAt(signedAtMs + 301_000);
    await refusal(late.webhook(eventOf(vector.body, vectorHeaders)));
    const tampered = webhookAt(signedAtMs);
    await refusal(tampered.webhook(eventOf(`${vector.body}x`, vectorHeaders)));
    const other = webhookAt(signedAtMs, "another-signing-secret");
    await refusal(other.webhook(eventOf(vector.body, vectorHeaders)));
    const huge = webhookAt(signedAtMs);
    await expect(
      huge.webhook(eventOf("x".repeat(MAX_WEBHOOK_BODY_BYTES + 1), vectorHeaders)),
    ).rejects.toSatisfy((error) => error instanceof HttpError && error.statusCode === 413);
    for (const { handled, apiCalls, storeCalls } of [late, tampered, other, huge]) {
      expect(handled).toEqual([]);
      expect(apiCalls).toEqual([]);
      expect(storeCalls).toEqual([]);
    }
  });

  it("the webhook without its prelude refuses to read the body at all (fails closed)", async () => {
    const { bare, handled } = webhookAt(signedAtMs);
    await expect(bare(eventOf(vector.body, vectorHeaders))).rejects.toThrow("without webhookPrelude");
    expect(handled).toEqual([]);
  });
});
