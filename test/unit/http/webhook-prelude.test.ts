import middy from "@middy/core";
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from "aws-lambda";
import { describe, expect, it } from "vitest";
import { createPlatformHttp } from "#lib/channels/platform-http.ts";
import { toHttpResponse } from "#lib/http/http-errors.ts";
import { verifiedWebhook, type WebhookRequest, webhookPrelude } from "#lib/http/webhook-prelude.ts";

const event = (body: string, headers: Record<string, string> = {}): APIGatewayProxyEventV2 =>
  ({ routeKey: "POST /webhooks/test", headers, body, isBase64Encoded: false }) as APIGatewayProxyEventV2;

/** A webhook behind the prelude that echoes the verified body; records what verification saw. */
function webhook(options: { accept: boolean; maxBytes?: number; ackWithinMs?: number; nowMs?: number }) {
  const seen: WebhookRequest[] = [];
  let handled = 0;
  const handler = middy<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2>()
    .use({
      onError: async (request) => {
        request.response = toHttpResponse(request.error, () => {});
      },
    })
    .use(
      webhookPrelude({
        maxBytes: options.maxBytes ?? 16,
        verify: (request) => {
          seen.push(request);
          return options.accept;
        },
        refusal: "Missing or wrong test signature.",
        ...(options.ackWithinMs !== undefined && { ackWithinMs: options.ackWithinMs }),
        now: () => options.nowMs ?? 1_000,
      }),
    )
    .handler(async (e) => {
      handled++;
      return { statusCode: 200, body: verifiedWebhook(e).body.toString("utf8") };
    });
  return { call: (e: APIGatewayProxyEventV2) => handler(e, {} as Context), seen, handled: () => handled };
}

describe("webhookPrelude", () => {
  it("hands the handler the verified raw body, and verification the headers, body and arrival time", async () => {
    const { call, seen } = webhook({ accept: true });
    const response = await call(event('{"a":1}', { "x-sig": "v1" }));
    expect(response).toMatchObject({ statusCode: 200, body: '{"a":1}' });
    expect(seen).toHaveLength(1);
    expect(seen[0]?.headers["x-sig"]).toBe("v1");
    expect(seen[0]?.body.toString("utf8")).toBe('{"a":1}');
    expect(seen[0]?.nowMs).toBe(1_000);
  });

  it("refuses what verification does not accept with a 401 and its message; the handler never runs", async () => {
    const { call, handled } = webhook({ accept: false });
    const response = await call(event("{}"));
    expect(response.statusCode).toBe(401);
    expect(handled()).toBe(0);
    expect(JSON.parse(response.body ?? "")).toEqual({
      error: { code: "UNAUTHORIZED", message: "Missing or wrong test signature." },
    });
  });

  it("refuses a body over the limit with a 413 before any verification", async () => {
    const { call, seen, handled } = webhook({ accept: true, maxBytes: 4 });
    expect((await call(event("12345"))).statusCode).toBe(413);
    // Base64 larger than four times the limit is refused before it is decoded.
    expect(
      (await call({ ...event(Buffer.alloc(64).toString("base64")), isBase64Encoded: true })).statusCode,
    ).toBe(413);
    expect(seen).toEqual([]);
    expect(handled()).toBe(0);
  });

  it("a handler that reads a request the prelude did not verify fails closed", () => {
    expect(() => verifiedWebhook(event("{}"))).toThrow(/without webhookPrelude/);
  });

  it("bounds the platform calls made `within` the request by the acknowledgement deadline", async () => {
    let clock = 1_000;
    let fetched = 0;
    const http = createPlatformHttp(
      { platform: "test", retryAfterMs: () => undefined, describe: () => "" },
      {
        now: () => clock,
        fetch: async () => {
          fetched++;
          return new Response("{}", { status: 200 });
        },
      },
    );
    const handler = middy<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2>()
      .use(webhookPrelude({ verify: () => true, refusal: "no", ackWithinMs: 2_000, now: () => clock }))
      .handler(async (e) => {
        clock += 2_500; // the handler's own work used up the budget
        await verifiedWebhook(e).within(() =>
          http.send({ name: "post", method: "POST", url: "http://127.0.0.1:1/x", idempotent: false }),
        );
        return { statusCode: 200 };
      });
    await expect(handler(event("{}"), {} as Context)).rejects.toThrow(/acknowledgement/);
    expect(fetched).toBe(0);
  });
});
