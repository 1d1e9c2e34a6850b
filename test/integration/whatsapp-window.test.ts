/**
 * WhatsApp's 24-hour window on a deployment without WHATSAPP_TEMPLATE (a stack of its own: handlers read
 * their configuration once per process): a question WhatsApp refuses with 131047 fails that target, with the
 * reason, and is stored as delivery_failed. The template fallback itself is in whatsapp.test.ts.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { captureLogs } from "./support/captured-logs.ts";
import { type FakePlatform, startFakePlatform } from "./support/fake-platform.ts";
import { singleQuestion as single } from "./support/sample-questions.ts";
import { startTestStack, type TestStack } from "./support/test-stack.ts";

let stack: TestStack;
let graph: FakePlatform;

beforeAll(async () => {
  graph = await startFakePlatform(
    () => ({
      status: 400,
      body: { error: { message: "(#131047) Re-engagement message", type: "OAuthException", code: 131047 } },
    }),
    { limits: "whatsapp" },
  );
  stack = await startTestStack({
    WHATSAPP_ACCESS_TOKEN: "EAAGtest0123456789abcdef",
    WHATSAPP_APP_SECRET: "0123456789abcdef0123456789abcdef",
    WHATSAPP_VERIFY_TOKEN: "verify-token-0123456789",
    WHATSAPP_PHONE_NUMBER_ID: "106540352242922",
    WHATSAPP_API_BASE: graph.url,
    HANDRAISE_PUBLIC_URL: "https://handraise.test",
  });
});
afterAll(async () => {
  await stack?.stop();
  await graph?.stop();
});

it("outside the 24-hour window without a template, the target fails with that reason", async () => {
  const logs = captureLogs();
  const created = await stack.api("POST", "/questions", {
    questions: [single],
    owner: "whatsapp:16505551234",
    deliverTo: [{ channel: "whatsapp", chatId: "16505551234" }],
  });
  expect(created.status, created.text).toBe(201);
  expect(created.body.status).toBe("delivery_failed");
  // One attempt, the interactive question; no template was tried.
  expect(graph.calls.map((call) => call.body.type)).toEqual(["interactive"]);
  logs.stop();
  const [refused] = logs.logged("delivery refused");
  expect(refused).toMatchObject({ channel: "whatsapp" });
  expect(JSON.stringify(refused)).toContain("WHATSAPP_TEMPLATE is not set");
});
