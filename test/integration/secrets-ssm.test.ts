/**
 * Secrets read at run time from SSM Parameter Store, the way a deployment reads them: the local stack's real
 * handlers, HANDRAISE_SSM_PREFIX set, the SDK pointed at a local fake of the SSM API. Nothing secret is in the
 * environment; every read asks for decryption; a rotated value is picked up within the cache age; a missing
 * or placeholder parameter stops a function at start; the named API keys are read by their path only.
 */

import { SSMProvider } from "@aws-lambda-powertools/parameters/ssm";
import { SSMClient } from "@aws-sdk/client-ssm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApiKeyring } from "#lib/auth/api-keys.ts";
import { ConfigError } from "#lib/config.ts";
import { preloadSecrets } from "#lib/secrets/secrets.ts";
import { SsmParameterProvider } from "#lib/secrets/ssm-parameter-provider.ts";
import { createSsmSecrets } from "#lib/secrets/ssm-secrets.ts";
import { type FakePlatform, startFakePlatform } from "./support/fake-platform.ts";
import { type FakeSsm, startFakeSsm } from "./support/fake-ssm.ts";
import { singleQuestion, unique } from "./support/sample-questions.ts";
import { startTestStack, type TestStack, waitFor } from "./support/test-stack.ts";

const PREFIX = "/handraise/test";
const API_KEY = "ssm-api-key-0123456789abcdef";
/** A named key of scope ask, stored as the deployment stores it: `<scope>:<key>` under api-keys/. */
const AGENT_KEY = "ssm-agent-key-0123456789abcdef";
const BOT_TOKEN = "777:ssm-bot-token";
const HEADER = "x-telegram-bot-api-secret-token";

let ssm: FakeSsm;
let telegram: FakePlatform;
let stack: TestStack;

beforeAll(async () => {
  ssm = await startFakeSsm();
  ssm.put(`${PREFIX}/api-key`, API_KEY);
  ssm.put(`${PREFIX}/api-keys/agent`, `ask:${AGENT_KEY}`);
  ssm.put(`${PREFIX}/telegram/bot-token`, BOT_TOKEN);
  ssm.put(`${PREFIX}/telegram/webhook-secret`, "first-secret");
  telegram = await startFakePlatform((call) =>
    call.method === "sendMessage"
      ? { body: { ok: true, result: { message_id: 11, chat: { id: call.body.chat_id } } } }
      : { body: { ok: true, result: true } },
  );
  stack = await startTestStack({
    HANDRAISE_SSM_PREFIX: PREFIX,
    HANDRAISE_CHANNELS: "telegram",
    HANDRAISE_SECRETS_MAX_AGE_SECONDS: "1",
    AWS_ENDPOINT_URL_SSM: ssm.url,
    TELEGRAM_API_BASE: telegram.url,
  });
});
afterAll(async () => {
  await stack?.stop();
  await telegram?.stop();
  await ssm?.stop();
});

const LOCAL = { region: "us-east-1", credentials: { accessKeyId: "local", secretAccessKey: "local" } };

/** Secrets read as a deployed function reads them (SsmParameterProvider), from the fake SSM. */
const deployedSecrets = (prefix: string, maxAgeSeconds: number, now: () => number = () => 0) =>
  createSsmSecrets({
    prefix,
    maxAgeSeconds,
    now,
    provider: new SsmParameterProvider({ ...LOCAL, endpoint: ssm.url }),
  });

/** SSM calls of one operation, for the parameter or path given. */
const callsOf = (operation: "GetParameter" | "GetParametersByPath", nameOrPath: string) =>
  ssm.calls.filter(
    (call) => call.operation === operation && (call.body.Name ?? call.body.Path) === nameOrPath,
  ).length;

const api = (method: string, path: string, body?: unknown) =>
  stack.api(method, path, body, { auth: `Bearer ${API_KEY}` });

const update = (text: string) => ({
  update_id: Math.floor(Math.random() * 1e9),
  message: {
    message_id: 99,
    from: { id: 42, is_bot: false, first_name: "Ann" },
    chat: { id: 42, type: "private" },
    date: 1,
    text,
  },
});

const postUpdate = (secret: string, text: string) =>
  fetch(`${stack.httpUrl}/webhooks/telegram`, {
    method: "POST",
    headers: { "content-type": "application/json", [HEADER]: secret },
    body: JSON.stringify(update(text)),
  });

describe("secrets from SSM Parameter Store", () => {
  it("are not in the environment the handlers read", () => {
    for (const name of ["HANDRAISE_API_KEY", "TELEGRAM_BOT_TOKEN", "TELEGRAM_WEBHOOK_SECRET"]) {
      expect(process.env[name], name).toBeUndefined();
    }
  });

  it("answer the API and the webhook, and every read asks for decryption of a parameter under the prefix", async () => {
    expect((await stack.api("GET", "/questions?owner=telegram:42")).status).toBe(401);
    const created = await api("POST", "/questions", {
      questions: [singleQuestion],
      owner: "telegram:42",
      sessionKey: unique("ssm"),
      deliverTo: [{ channel: "telegram", chatId: "42" }],
    });
    expect(created.status).toBe(201);
    // The bot token from SSM is the one in the Bot API URL.
    expect(telegram.calls.at(-1)?.path).toBe(`/bot${BOT_TOKEN}/sendMessage`);
    expect((await postUpdate("first-secret", "2")).status).toBe(200);
    expect((await api("GET", `/questions/${created.body.id}`)).body.question).toMatchObject({
      status: "answered",
      answers: { deploy_target: ["Production"] },
    });
    const reads = ssm.calls.filter((call) => call.operation === "GetParameter");
    expect(reads.length).toBeGreaterThan(0);
    for (const read of reads) {
      expect(read.body.WithDecryption).toBe(true);
      expect(String(read.body.Name)).toMatch(
        /^\/handraise\/test\/(api-key|link-secret|notify-secret|telegram\/(bot-token|webhook-secret))$/,
      );
    }
  });

  it("read the named API keys by path only — one GetParametersByPath of <prefix>/api-keys, decrypted, not recursive — each with its scope", async () => {
    const agent = (method: string, path: string, body?: unknown) =>
      stack.api(method, path, body, { auth: `Bearer ${AGENT_KEY}` });
    const created = await agent("POST", "/questions", {
      questions: [singleQuestion],
      owner: "web:ssm-agent",
    });
    expect(created.status).toBe(201);
    expect((await api("GET", `/questions/${created.body.id}`)).body.question.askedBy).toBe("api:agent");
    const refused = await agent("POST", `/questions/${created.body.id}/answer`, {
      answers: { deploy_target: ["Production"] },
    });
    expect(refused.body.error.code).toBe("INSUFFICIENT_SCOPE");
    const byPath = ssm.calls.filter((call) => call.operation === "GetParametersByPath");
    expect(byPath.length).toBeGreaterThan(0);
    for (const read of byPath) {
      expect(read.body).toMatchObject({ Path: `${PREFIX}/api-keys`, WithDecryption: true, Recursive: false });
    }
    // Never one key by name.
    expect(ssm.calls.filter((call) => String(call.body.Name ?? "").includes("/api-keys/"))).toEqual([]);
  });

  it("accept a key added under the path within the cache age, and refuse it once removed, with no restart", async () => {
    const added = "ssm-added-key-0123456789abcdef";
    const list = async () =>
      (await stack.api("GET", "/questions?owner=web:x", undefined, { auth: `Bearer ${added}` })).status;
    expect(await list()).toBe(401);
    ssm.put(`${PREFIX}/api-keys/added`, `answer:${added}`);
    await waitFor(async () => ((await list()) === 200 ? true : undefined), {
      timeoutMs: 10_000,
      intervalMs: 250,
      what: "the added key to be accepted",
    });
    ssm.parameters.delete(`${PREFIX}/api-keys/added`);
    await waitFor(async () => ((await list()) === 401 ? true : undefined), {
      timeoutMs: 10_000,
      intervalMs: 250,
      what: "the removed key to be refused",
    });
  });

  it("read every page of the path, and refuse a malformed key naming its parameter, never its value", async () => {
    const secrets = deployedSecrets("/handraise/many", 60);
    // SSM answers at most 10 parameters a page.
    for (let i = 0; i < 12; i++)
      ssm.put(`/handraise/many/api-keys/agent-${i}`, `ask:many-key-${i}-0123456789abcdef`);
    // A parameter below a key's own path is not a key (the read is not recursive).
    ssm.put("/handraise/many/api-keys/nested/deeper", "ask:nested-key-0123456789abcdef");
    const keys = await secrets.getGroup("api-keys");
    expect(Object.keys(keys).sort()).toEqual(Array.from({ length: 12 }, (_, i) => `agent-${i}`).sort());
    expect(keys["agent-3"]).toBe("ask:many-key-3-0123456789abcdef");

    const broken = deployedSecrets("/handraise/broken-keys", 60);
    ssm.put("/handraise/broken-keys/api-keys/agent", "owner:broken-key-0123456789abcdef");
    const started = preloadSecrets(broken, [], [], ["api-keys"]);
    await expect(started).rejects.toBeInstanceOf(ConfigError);
    const message = await started.catch((error: Error) => error.message);
    expect(message).toContain("/handraise/broken-keys/api-keys/agent must be <scope>:<key>");
    expect(message).not.toContain("broken-key-0123456789abcdef");
  });

  it("pick up a rotated secret within the cache age, with no restart", async () => {
    ssm.put(`${PREFIX}/telegram/webhook-secret`, "rotated-secret");
    await waitFor(
      async () => ((await postUpdate("rotated-secret", "hi")).status === 200 ? true : undefined),
      {
        timeoutMs: 10_000,
        intervalMs: 250,
        what: "the rotated webhook secret to be accepted",
      },
    );
    expect((await postUpdate("first-secret", "hi")).status).toBe(401);
  });

  it("remember a missing parameter for the cache age: an optional secret left out costs no read per request", async () => {
    let clock = 0;
    const secrets = deployedSecrets("/handraise/optional", 60, () => clock);
    const name = "/handraise/optional/link-secret";
    const reads = () => ssm.calls.filter((call) => call.body.Name === name).length;
    expect(await secrets.get("link-secret")).toBeUndefined();
    expect(await secrets.get("link-secret")).toBeUndefined();
    expect(reads()).toBe(1);
    // Stored later, it is picked up once the cache age has passed.
    ssm.put(name, "a-link-secret-of-at-least-32-characters");
    clock += 60_001;
    expect(await secrets.get("link-secret")).toBe("a-link-secret-of-at-least-32-characters");
    expect(reads()).toBe(2);
  });

  it("stop a function at start when one is missing or a placeholder, naming each (never a value)", async () => {
    const secrets = deployedSecrets("/handraise/broken", 1);
    ssm.put("/handraise/broken/telegram/webhook-secret", "unset");
    ssm.put("/handraise/broken/slack/signing-secret", "not-hex-but-a-real-looking-secret");
    const started = preloadSecrets(secrets, [
      "telegram/bot-token",
      "telegram/webhook-secret",
      "slack/signing-secret",
    ]);
    await expect(started).rejects.toBeInstanceOf(ConfigError);
    const message = await started.catch((error: Error) => error.message);
    expect(message).toContain("the secret telegram/bot-token is not configured");
    expect(message).toContain('/handraise/broken/telegram/webhook-secret is a placeholder ("unset")');
    expect(message).toContain("/handraise/broken/slack/signing-secret must be 32 hexadecimal characters");
    expect(message).not.toContain("not-hex-but-a-real-looking-secret");
  });

  it("remember an empty group for the cache age: a deployment with no named keys reads the path once, not per request", async () => {
    let clock = 0;
    const keyring = createApiKeyring(deployedSecrets("/handraise/no-named", 60, () => clock));
    ssm.put("/handraise/no-named/api-key", "no-named-admin-key-0123456789abcdef");
    for (let i = 0; i < 5; i++) {
      expect(await keyring.identify("no-named-admin-key-0123456789abcdef")).toEqual({
        name: "default",
        scope: "admin",
      });
    }
    expect(callsOf("GetParameter", "/handraise/no-named/api-key")).toBe(1);
    expect(callsOf("GetParametersByPath", "/handraise/no-named/api-keys")).toBe(1);
    // A key added later is not read within the cache age, and is once it has passed.
    const added = "no-named-added-key-0123456789abcdef";
    ssm.put("/handraise/no-named/api-keys/added", `ask:${added}`);
    expect(await keyring.identify(added)).toBeUndefined();
    expect(callsOf("GetParametersByPath", "/handraise/no-named/api-keys")).toBe(1);
    clock += 60_001;
    expect(await keyring.identify(added)).toEqual({ name: "added", scope: "ask" });
    expect(callsOf("GetParametersByPath", "/handraise/no-named/api-keys")).toBe(2);
  });

  it("read the same through Powertools' SSMProvider, as the doctor does: every page, a missing parameter remembered", async () => {
    let clock = 0;
    const secrets = createSsmSecrets({
      prefix: "/handraise/doctor",
      maxAgeSeconds: 60,
      now: () => clock,
      provider: new SSMProvider({ awsSdkV3Client: new SSMClient({ ...LOCAL, endpoint: ssm.url }) }),
    });
    for (let i = 0; i < 12; i++)
      ssm.put(`/handraise/doctor/api-keys/agent-${i}`, `ask:doctor-key-${i}-0123456789abcdef`);
    expect(Object.keys(await secrets.getGroup("api-keys"))).toHaveLength(12);
    expect(await secrets.get("link-secret")).toBeUndefined();
    expect(await secrets.get("link-secret")).toBeUndefined();
    expect(callsOf("GetParameter", "/handraise/doctor/link-secret")).toBe(1);
    clock += 60_001;
    expect(await secrets.get("link-secret")).toBeUndefined();
    expect(callsOf("GetParameter", "/handraise/doctor/link-secret")).toBe(2);
  });
});
