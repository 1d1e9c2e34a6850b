/**
 * The deploy tools with the WhatsApp channel: `npm run secrets:put -- --channels whatsapp` stores its three
 * secrets (and refuses a malformed one, storing nothing), and `npm run doctor` checks them and asks the Graph
 * API (a local fake) for the business number with the access token.
 */
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { PROJECT_ROOT } from "#infra/local/stack.ts";
import { runDoctor } from "../../scripts/lib/doctor.ts";
import {
  type FakePlatform,
  type FakeReply,
  type RecordedCall,
  startFakePlatform,
} from "./support/fake-platform.ts";
import { type FakeSsm, startFakeSsm } from "./support/fake-ssm.ts";
import { startTestStack, TEST_API_KEY, type TestStack } from "./support/test-stack.ts";

const WHATSAPP = {
  WHATSAPP_ACCESS_TOKEN: "EAAGdoctor0123456789abcdef",
  WHATSAPP_APP_SECRET: "0123456789abcdef0123456789abcdef",
  WHATSAPP_VERIFY_TOKEN: "verify-token-0123456789",
};
const PHONE_NUMBER_ID = "106540352242922";

let graph: FakePlatform;
let stack: TestStack;
let ssm: FakeSsm;
let override: ((call: RecordedCall) => FakeReply | undefined) | undefined;
let env: Record<string, string>;

beforeAll(async () => {
  graph = await startFakePlatform(
    (call) =>
      override?.(call) ??
      (call.path === `/${PHONE_NUMBER_ID}`
        ? { body: { display_phone_number: "+1 555-078-3881", verified_name: "Acme", id: PHONE_NUMBER_ID } }
        : { status: 404, body: { error: { message: "no fake for this", code: 100 } } }),
  );
  env = {
    ...WHATSAPP,
    WHATSAPP_PHONE_NUMBER_ID: PHONE_NUMBER_ID,
    WHATSAPP_API_BASE: graph.url,
    HANDRAISE_PUBLIC_URL: "https://handraise.example.com",
  };
  stack = await startTestStack(env);
  ssm = await startFakeSsm();
});
afterAll(async () => {
  await stack?.stop();
  await graph?.stop();
  await ssm?.stop();
});
beforeEach(() => {
  override = undefined;
  graph.calls.length = 0;
  ssm.parameters.clear();
});

async function doctor() {
  let stdout = "";
  const exit = await runDoctor({
    argv: [],
    env: { ...env, HANDRAISE_URL: stack.httpUrl, HANDRAISE_API_KEY: TEST_API_KEY },
    stdout: (text) => {
      stdout += text;
    },
    stderr: () => {},
  });
  return { exit, lines: stdout.trim().split("\n") };
}

describe("npm run doctor", () => {
  it("checks the secrets and asks the Graph API for the business number with the token", async () => {
    const { exit, lines } = await doctor();
    expect(exit, lines.join("\n")).toBe(0);
    expect(lines.slice(2)).toEqual([
      expect.stringMatching(/^✓ channels on: whatsapp; off: /),
      "✓ answer page on",
      "✓ whatsapp secrets in this environment: WHATSAPP_ACCESS_TOKEN, WHATSAPP_APP_SECRET, WHATSAPP_VERIFY_TOKEN",
      "✓ whatsapp: the access token reaches phone number +1 555-078-3881 (Acme)",
    ]);
    const [asked] = graph.calls;
    expect(asked).toMatchObject({
      verb: "GET",
      path: `/${PHONE_NUMBER_ID}`,
      headers: { authorization: `Bearer ${WHATSAPP.WHATSAPP_ACCESS_TOKEN}` },
    });
  });

  it("a token Meta refuses: ✗ naming the fix, exit 1", async () => {
    override = () => ({
      status: 401,
      body: { error: { message: "Error validating access token", type: "OAuthException", code: 190 } },
    });
    const { exit, lines } = await doctor();
    expect(exit).toBe(1);
    expect(lines.filter((line) => line.startsWith("✗"))).toEqual([
      expect.stringMatching(
        /^✗ whatsapp: the platform refused the access token or WHATSAPP_PHONE_NUMBER_ID \(GET \/<phone number id>: Error validating access token \(code 190\)\) — .*WHATSAPP_ACCESS_TOKEN/,
      ),
    ]);
  });
});

describe("npm run secrets:put", { timeout: 120_000 }, () => {
  const run = promisify(execFile);
  async function secretsPut(values: Record<string, string>) {
    try {
      const { stdout, stderr } = await run(
        process.execPath,
        ["--import", "tsx", "scripts/secrets-put.ts", "--stage", "prod", "--channels", "whatsapp"],
        {
          cwd: PROJECT_ROOT,
          env: {
            PATH: process.env.PATH ?? "",
            HOME: process.env.HOME ?? "",
            AWS_ENDPOINT_URL_SSM: ssm.url,
            AWS_REGION: "us-east-1",
            AWS_ACCESS_KEY_ID: "local",
            AWS_SECRET_ACCESS_KEY: "local",
            HANDRAISE_API_KEY: "prod-api-key-0123456789abcdef",
            ...values,
          },
        },
      );
      return { code: 0, output: stdout + stderr };
    } catch (error) {
      const failed = error as { code: number; stdout: string; stderr: string };
      return { code: failed.code, output: failed.stdout + failed.stderr };
    }
  }

  it("stores the three secrets as SecureStrings, printing none of them", async () => {
    const { code, output } = await secretsPut(WHATSAPP);
    expect(code, output).toBe(0);
    expect([...ssm.parameters.keys()].sort()).toEqual([
      "/handraise/prod/api-key",
      "/handraise/prod/whatsapp/access-token",
      "/handraise/prod/whatsapp/app-secret",
      "/handraise/prod/whatsapp/verify-token",
    ]);
    expect(ssm.parameters.get("/handraise/prod/whatsapp/app-secret")?.value).toBe(
      WHATSAPP.WHATSAPP_APP_SECRET,
    );
    for (const value of Object.values(WHATSAPP)) expect(output).not.toContain(value);
  });

  it("refuses a malformed app secret, naming it and its rule, and stores nothing", async () => {
    const { code, output } = await secretsPut({ ...WHATSAPP, WHATSAPP_APP_SECRET: "not-hex" });
    expect(code).not.toBe(0);
    expect(output).toContain("WHATSAPP_APP_SECRET");
    expect(output).toContain("32 lower-case hex characters");
    expect(ssm.parameters.size).toBe(0);
  });
});
