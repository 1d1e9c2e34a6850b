/**
 * The local stack's composition map (infra/local/handler-factories.ts): a factory for every function
 * serverless.yml declares, each channel's webhook found from the channel list, and the AWS settings the
 * handlers' clients are given explicitly.
 */
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { awsClientSettingsFrom, handlerFactories } from "#infra/local/handler-factories.ts";
import { readServerlessFunctions } from "#infra/local/serverless-functions.ts";
import { CHANNELS } from "#lib/channels/channel-list.ts";
import { telegram } from "#lib/channels/telegram/index.ts";

const PROJECT_ROOT = fileURLToPath(new URL("../../..", import.meta.url));

describe("the local stack's handler factories", () => {
  it("build every function serverless.yml declares (the stack refuses to start on one without)", async () => {
    const factories = await handlerFactories();
    const declared = readServerlessFunctions(PROJECT_ROOT).map((fn) => fn.key);
    expect(declared.filter((key) => factories[key] === undefined)).toEqual([]);
    // Left out of a deployment unless asked for, but still in serverless.yml and served locally.
    expect(declared).toContain("durableAgent");
  });

  it("take each channel's webhook function from its manifest, none named here", async () => {
    const factories = await handlerFactories();
    const webhooks = CHANNELS.flatMap((channel) => channel.manifest.webhook ?? []);
    expect(webhooks.length).toBeGreaterThan(0);
    for (const fn of webhooks) expect(factories[fn], fn).toBeTypeOf("function");
    // A channel without a webhook (e-mail) adds none.
    expect(
      Object.keys(factories)
        .filter((key) => key.endsWith("Webhook"))
        .sort(),
    ).toEqual(webhooks.sort());
  });

  it("refuse a channel whose folder does not export the webhook its manifest names", async () => {
    const renamed = { ...telegram, manifest: { ...telegram.manifest, webhook: "telegramHook" } };
    await expect(handlerFactories([renamed])).rejects.toThrow(
      "lib/channels/telegram/index.ts exports no telegramHook for the telegram channel",
    );
  });
});

describe("awsClientSettingsFrom", () => {
  it("is what the SDK would read from the environment: Region, key and each service's endpoint", () => {
    expect(
      awsClientSettingsFrom({
        AWS_REGION: "us-east-1",
        AWS_ACCESS_KEY_ID: "local",
        AWS_SECRET_ACCESS_KEY: "secret",
        AWS_ENDPOINT_URL_DYNAMODB: "http://127.0.0.1:8000",
        AWS_ENDPOINT_URL_SSM: "http://127.0.0.1:9000",
        AWS_ENDPOINT_URL_SESV2: "http://127.0.0.1:9100",
        AWS_ENDPOINT_URL_S3: "http://127.0.0.1:9200",
      }),
    ).toEqual({
      region: "us-east-1",
      credentials: { accessKeyId: "local", secretAccessKey: "secret" },
      // The e-mail channel's SES client too; a service Handraise builds no client for is left out.
      endpoints: {
        dynamodb: "http://127.0.0.1:8000",
        ssm: "http://127.0.0.1:9000",
        sesv2: "http://127.0.0.1:9100",
      },
    });
  });

  it("takes the global AWS_ENDPOINT_URL for a service without its own, and a session token when set", () => {
    const settings = awsClientSettingsFrom({
      AWS_REGION: "eu-west-1",
      AWS_ACCESS_KEY_ID: "a",
      AWS_SECRET_ACCESS_KEY: "b",
      AWS_SESSION_TOKEN: "c",
      AWS_ENDPOINT_URL: "http://127.0.0.1:4566",
      AWS_ENDPOINT_URL_SFN: "http://127.0.0.1:8083",
    });
    expect(settings.credentials).toEqual({ accessKeyId: "a", secretAccessKey: "b", sessionToken: "c" });
    expect(settings.endpoints.sfn).toBe("http://127.0.0.1:8083");
    expect(settings.endpoints.dynamodb).toBe("http://127.0.0.1:4566");
  });
});
