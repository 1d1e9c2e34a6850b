import type { APIGatewayProxyEventV2 } from "aws-lambda";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type LocalHttpGateway, startHttpGateway } from "#infra/local/http-gateway.ts";

let gateway: LocalHttpGateway;
const seen: APIGatewayProxyEventV2[] = [];

beforeAll(async () => {
  const handler = async (event: APIGatewayProxyEventV2) => {
    seen.push(event);
    return { statusCode: 201, headers: { "x-echo": "1" }, body: "ok" };
  };
  gateway = await startHttpGateway({
    port: 0,
    routes: [
      { method: "POST", path: "/things/{id}/do", functionName: "f", handler },
      { method: "GET", path: "/plain", functionName: "f", handler: async () => ({ hello: "world" }) },
    ],
  });
});
afterAll(async () => {
  await gateway?.stop();
});

describe("the local HTTP gateway builds API Gateway payload 2.0 events", () => {
  it("route key, path parameters, lower-cased headers, query, cookies, raw JSON body", async () => {
    const response = await fetch(`${gateway.url}/things/a%20b/do?x=1&x=2`, {
      method: "POST",
      headers: { "Content-Type": "application/json", "X-Custom": "V", Cookie: "a=1; b=2" },
      body: '{"k":"ü"}',
    });
    expect(response.status).toBe(201);
    expect(response.headers.get("x-echo")).toBe("1");
    const event = seen.at(-1) as APIGatewayProxyEventV2;
    expect(event).toMatchObject({
      version: "2.0",
      routeKey: "POST /things/{id}/do",
      rawPath: "/things/a%20b/do",
      rawQueryString: "x=1&x=2",
      pathParameters: { id: "a b" },
      queryStringParameters: { x: "1,2" },
      cookies: ["a=1", "b=2"],
      body: '{"k":"ü"}',
      isBase64Encoded: false,
      requestContext: { routeKey: "POST /things/{id}/do", stage: "$default", http: { method: "POST" } },
    });
    expect(event.headers["x-custom"]).toBe("V");
    expect(event.headers.cookie).toBeUndefined();
    expect(event.requestContext.time).toMatch(/^\d{2}\/[A-Z][a-z]{2}\/\d{4}:\d{2}:\d{2}:\d{2} \+0000$/);
  });

  it("binary bodies arrive base64-encoded, byte for byte", async () => {
    await fetch(`${gateway.url}/things/x/do`, {
      method: "POST",
      headers: { "content-type": "image/png" },
      body: new Uint8Array([0, 255, 1, 128]),
    });
    const event = seen.at(-1) as APIGatewayProxyEventV2;
    expect(event.isBase64Encoded).toBe(true);
    expect([...Buffer.from(event.body ?? "", "base64")]).toEqual([0, 255, 1, 128]);
  });

  it("a result without statusCode is a 200 JSON body", async () => {
    const plain = await fetch(`${gateway.url}/plain`);
    expect(plain.status).toBe(200);
    expect(await plain.json()).toEqual({ hello: "world" });
  });

  it("an unknown route or method is a 404 in the API's error shape, naming the route", async () => {
    const unknown = await fetch(`${gateway.url}/nothing?x=1`);
    expect(unknown.status).toBe(404);
    expect(unknown.headers.get("content-type")).toBe("application/json");
    expect(await unknown.json()).toEqual({
      error: { code: "NOT_FOUND", message: "No route GET /nothing." },
    });
    // A malformed escape names no route either: a 404, not the gateway failing.
    const malformed = await fetch(`${gateway.url}/things/%E0%A4%A/do`, { method: "POST" });
    expect(malformed.status).toBe(404);
    expect(await malformed.json()).toMatchObject({ error: { code: "NOT_FOUND" } });
    const wrongMethod = await fetch(`${gateway.url}/plain`, { method: "DELETE" });
    expect(wrongMethod.status).toBe(404);
    expect(await wrongMethod.json()).toEqual({
      error: { code: "NOT_FOUND", message: "No route DELETE /plain." },
    });
  });
});
