/**
 * `npm run secrets:put` against a local fake of the SSM API: it stores each secret of the enabled channels
 * as a SecureString under the stage's prefix, refuses placeholders and missing values before writing
 * anything, and never prints a value (but the API key it makes).
 */
import { execFile } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { type AddressInfo, createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { PROJECT_ROOT } from "#infra/local/stack.ts";
import { type FakeSsm, startFakeSsm } from "./support/fake-ssm.ts";

const run = promisify(execFile);
let ssm: FakeSsm;
/** Ends the script runs of a test that timed out, so none of them writes into the next test's fake. */
let runs = new AbortController();

beforeAll(async () => {
  ssm = await startFakeSsm();
});
afterAll(async () => {
  await ssm?.stop();
});
beforeEach(() => {
  ssm.parameters.clear();
  ssm.calls.length = 0;
});
afterEach(() => {
  runs.abort();
  runs = new AbortController();
});

/** The lines the script itself wrote (Node's own warnings about its version left out). */
const ours = (output: string) => output.split("\n").filter((line) => line.startsWith("secrets:put:"));

function expectNoStackTrace(output: string): void {
  expect(output).not.toMatch(/^\s+at /m);
  expect(output).not.toContain("CredentialsProviderError");
}

/** A loopback URL nothing listens on: a port the system handed out, closed again. */
async function closedPortUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return `http://127.0.0.1:${port}`;
}

const TELEGRAM = { TELEGRAM_BOT_TOKEN: "123456:AAH-secret_value", TELEGRAM_WEBHOOK_SECRET: "tg_Secret-123" };

/** Runs the script with the fake SSM and its credentials, changed by `env` (`undefined` removes a variable). */
async function secretsPut(args: string[], env: Record<string, string | undefined>) {
  const settings: Record<string, string | undefined> = {
    PATH: process.env.PATH ?? "",
    HOME: process.env.HOME ?? "",
    AWS_ENDPOINT_URL_SSM: ssm.url,
    AWS_REGION: "us-east-1",
    AWS_ACCESS_KEY_ID: "local",
    AWS_SECRET_ACCESS_KEY: "local",
    ...env,
  };
  try {
    // Node with tsx's loader, as `npm run secrets:put` runs it, without npx's start-up on every call.
    const { stdout, stderr } = await run(
      process.execPath,
      ["--import", "tsx", "scripts/secrets-put.ts", ...args],
      {
        cwd: PROJECT_ROOT,
        signal: runs.signal,
        env: Object.fromEntries(
          Object.entries(settings).filter((entry): entry is [string, string] => entry[1] !== undefined),
        ),
      },
    );
    return { code: 0, output: stdout + stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, output: failed.stdout + failed.stderr };
  }
}

// Each test runs the script a few times in fresh Node processes: seconds each on a busy 2-core machine.
describe("npm run secrets:put", { timeout: 120_000 }, () => {
  it("stores the API key and each enabled channel's secrets as SecureStrings under /handraise/<stage>", async () => {
    const { code, output } = await secretsPut(["--stage", "prod", "--channels", "telegram"], {
      ...TELEGRAM,
      HANDRAISE_API_KEY: "prod-api-key-0123456789abcdef",
    });
    expect(code, output).toBe(0);
    expect([...ssm.parameters.keys()].sort()).toEqual([
      "/handraise/prod/api-key",
      "/handraise/prod/telegram/bot-token",
      "/handraise/prod/telegram/webhook-secret",
    ]);
    for (const call of ssm.calls) expect(call.body).toMatchObject({ Type: "SecureString", Overwrite: true });
    expect(ssm.parameters.get("/handraise/prod/telegram/bot-token")?.value).toBe(TELEGRAM.TELEGRAM_BOT_TOKEN);
    // No value is printed: the output names parameters only.
    for (const value of [...Object.values(TELEGRAM), "prod-api-key-0123456789abcdef"]) {
      expect(output).not.toContain(value);
    }
    expect(output).toContain('npm run deploy -- --stage prod --param="channels=telegram"');
  });

  it("makes an API key when none is given, and prints it once", async () => {
    const { code, output } = await secretsPut(["--stage", "dev"], {});
    expect(code, output).toBe(0);
    const key = ssm.parameters.get("/handraise/dev/api-key")?.value ?? "";
    expect(key).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(output.split(key)).toHaveLength(2);
  });

  it("never replaces the stage's API key with a made-up one (a channel added later), unless asked", async () => {
    ssm.put("/handraise/prod/api-key", "the-key-clients-use-0123456789");
    const added = await secretsPut(["--stage", "prod", "--channels", "telegram"], TELEGRAM);
    expect(added.code, added.output).toBe(0);
    expect(ssm.parameters.get("/handraise/prod/api-key")?.value).toBe("the-key-clients-use-0123456789");
    expect(ssm.parameters.get("/handraise/prod/telegram/bot-token")?.value).toBe(TELEGRAM.TELEGRAM_BOT_TOKEN);
    expect(added.output).toContain("kept /handraise/prod/api-key");
    expect(added.output).not.toContain("A new API key was made");

    const renewed = await secretsPut(["--stage", "prod", "--new-api-key"], {});
    expect(renewed.code, renewed.output).toBe(0);
    expect(ssm.parameters.get("/handraise/prod/api-key")?.value).not.toBe("the-key-clients-use-0123456789");
    expect(renewed.output).toContain("A new API key was made");
  });

  it("makes the notifications' whsec_ secret with --notifications, prints it once, never replaces one; refuses a malformed one", async () => {
    const env = { HANDRAISE_API_KEY: "notify-api-key-0123456789abcdef" };
    const made = await secretsPut(["--stage", "hooks", "--notifications"], env);
    expect(made.code, made.output).toBe(0);
    const secret = ssm.parameters.get("/handraise/hooks/notify-secret")?.value ?? "";
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(made.output.split(secret)).toHaveLength(2);
    const again = await secretsPut(["--stage", "hooks", "--notifications"], env);
    expect(ssm.parameters.get("/handraise/hooks/notify-secret")?.value).toBe(secret);
    expect(again.output).toContain("kept /handraise/hooks/notify-secret");
    const refused = await secretsPut(["--stage", "bad"], {
      ...env,
      HANDRAISE_NOTIFY_SECRET: "plain-secret-value",
    });
    expect(refused.code).toBe(1);
    expect(refused.output).toContain("HANDRAISE_NOTIFY_SECRET must be whsec_");
  });

  it("stores the answer page's link secret when given, or makes one with --answer-page (never printed)", async () => {
    const given = "a-link-secret-of-at-least-32-characters";
    const stored = await secretsPut(["--stage", "web"], {
      HANDRAISE_API_KEY: "web-api-key-0123456789abcdef",
      HANDRAISE_LINK_SECRET: given,
    });
    expect(stored.code, stored.output).toBe(0);
    expect(ssm.parameters.get("/handraise/web/link-secret")?.value).toBe(given);
    expect(stored.output).not.toContain(given);

    const made = await secretsPut(["--stage", "made", "--answer-page"], {
      HANDRAISE_API_KEY: "web-api-key-0123456789abcdef",
    });
    expect(made.code, made.output).toBe(0);
    const secret = ssm.parameters.get("/handraise/made/link-secret")?.value ?? "";
    expect(secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(made.output).not.toContain(secret);
    // Without either, the page stays off: no link secret is stored.
    await secretsPut(["--stage", "off"], { HANDRAISE_API_KEY: "web-api-key-0123456789abcdef" });
    expect(ssm.parameters.has("/handraise/off/link-secret")).toBe(false);

    // A made-up link secret never replaces the one the stage has (its links would stop working).
    const again = await secretsPut(["--stage", "made", "--answer-page"], {
      HANDRAISE_API_KEY: "web-api-key-0123456789abcdef",
    });
    expect(again.code, again.output).toBe(0);
    expect(ssm.parameters.get("/handraise/made/link-secret")?.value).toBe(secret);
  });

  it("--channels email stores the link secret e-mail needs, made when not given (once, with --answer-page too)", async () => {
    const mail = await secretsPut(["--stage", "mail", "--channels", "email", "--answer-page"], {
      HANDRAISE_API_KEY: "web-api-key-0123456789abcdef",
    });
    expect(mail.code, mail.output).toBe(0);
    expect(ssm.parameters.get("/handraise/mail/link-secret")?.value).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const writes = ssm.calls
      .filter((call) => call.operation === "PutParameter")
      .map((call) => call.body.Name);
    expect(writes.filter((name) => name === "/handraise/mail/link-secret")).toHaveLength(1);

    // --channels email alone: e-mail's need makes one all the same.
    const alone = await secretsPut(["--stage", "alone", "--channels", "email"], {
      HANDRAISE_API_KEY: "web-api-key-0123456789abcdef",
    });
    expect(alone.code, alone.output).toBe(0);
    expect(ssm.parameters.get("/handraise/alone/link-secret")?.value).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it("refuses a placeholder or a missing value, naming each variable, and stores nothing", async () => {
    const { code, output } = await secretsPut(["--channels", "telegram,slack"], {
      TELEGRAM_BOT_TOKEN: TELEGRAM.TELEGRAM_BOT_TOKEN,
      TELEGRAM_WEBHOOK_SECRET: "unset",
      SLACK_BOT_TOKEN: "xoxb-1-2",
    });
    expect(code).toBe(1);
    expect(output).toContain('TELEGRAM_WEBHOOK_SECRET is a placeholder ("unset")');
    expect(output).toContain("SLACK_SIGNING_SECRET is not set");
    expect(ssm.calls).toEqual([]);
  });

  it("stores Google Chat's service account key whole, as the console downloads it; refuses another JSON", async () => {
    const key = JSON.stringify(
      {
        type: "service_account",
        project_id: "handraise-prod",
        private_key:
          "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\n-----END PRIVATE KEY-----\n",
        client_email: "handraise@handraise-prod.iam.gserviceaccount.com",
      },
      null,
      2,
    );
    const stored = await secretsPut(["--stage", "gc", "--channels", "gchat"], {
      HANDRAISE_API_KEY: "prod-api-key-0123456789abcdef",
      GOOGLE_CHAT_SERVICE_ACCOUNT: key,
    });
    expect(stored.code, stored.output).toBe(0);
    expect(ssm.parameters.get("/handraise/gc/gchat/service-account")?.value).toBe(key);
    expect(stored.output).not.toContain("MIIE");
    const refused = await secretsPut(["--stage", "gc2", "--channels", "gchat"], {
      HANDRAISE_API_KEY: "prod-api-key-0123456789abcdef",
      GOOGLE_CHAT_SERVICE_ACCOUNT: JSON.stringify({ type: "authorized_user", refresh_token: "1//secret" }),
    });
    expect(refused.code).toBe(1);
    expect(refused.output).toContain("GOOGLE_CHAT_SERVICE_ACCOUNT must be the service account's JSON key");
    expect(refused.output).not.toContain("1//secret");
    expect(ssm.parameters.has("/handraise/gc2/gchat/service-account")).toBe(false);
  });

  it("stores Mattermost's outgoing-webhook tokens when given, apart from the command token; needs none", async () => {
    const mattermost = {
      HANDRAISE_API_KEY: "prod-api-key-0123456789abcdef",
      MATTERMOST_BOT_TOKEN: "mmbottoken0123456789abcdef",
      MATTERMOST_ACTION_SECRET: "mm-action-secret-0123456789",
      MATTERMOST_COMMAND_TOKEN: "cmdtoken1234567890abcdefgh",
    };
    const without = await secretsPut(["--stage", "mm", "--channels", "mattermost"], mattermost);
    expect(without.code, without.output).toBe(0);
    expect(ssm.parameters.has("/handraise/mm/mattermost/command-token")).toBe(true);
    expect(ssm.parameters.has("/handraise/mm/mattermost/outgoing-token")).toBe(false);
    const withHooks = await secretsPut(["--stage", "mm", "--channels", "mattermost"], {
      ...mattermost,
      MATTERMOST_OUTGOING_TOKEN: "hooktoken234567890abcdefgh",
    });
    expect(withHooks.code, withHooks.output).toBe(0);
    expect(ssm.parameters.get("/handraise/mm/mattermost/outgoing-token")?.value).toBe(
      "hooktoken234567890abcdefgh",
    );
    expect(ssm.parameters.get("/handraise/mm/mattermost/command-token")?.value).toBe(
      "cmdtoken1234567890abcdefgh",
    );
  });

  it("--api-key <name> --scope <scope> makes one named key: <scope>:<key> under api-keys/, printed once, nothing else", async () => {
    const { code, output } = await secretsPut(
      ["--stage", "prod", "--api-key", "ci-agent", "--scope", "ask"],
      {},
    );
    expect(code, output).toBe(0);
    expect([...ssm.parameters.keys()]).toEqual(["/handraise/prod/api-keys/ci-agent"]);
    const stored = ssm.parameters.get("/handraise/prod/api-keys/ci-agent");
    expect(stored?.type).toBe("SecureString");
    const [scope, key = ""] = (stored?.value ?? "").split(":");
    expect(scope).toBe("ask");
    expect(key).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(output.split(key)).toHaveLength(2);
    expect(output).toContain('The API key "ci-agent" (scope ask)');
    expect(ssm.calls.map((call) => call.body)).toEqual([expect.objectContaining({ Overwrite: false })]);

    // Never replaced by accident (the agent holding it would be locked out); --new-api-key does.
    const again = await secretsPut(["--stage", "prod", "--api-key", "ci-agent", "--scope", "answer"], {});
    expect(again.code, again.output).toBe(0);
    expect(again.output).toContain("kept /handraise/prod/api-keys/ci-agent");
    expect(ssm.parameters.get("/handraise/prod/api-keys/ci-agent")?.value).toBe(stored?.value);
    const rotated = await secretsPut(
      ["--stage", "prod", "--api-key", "ci-agent", "--scope", "answer", "--new-api-key"],
      {},
    );
    expect(rotated.code, rotated.output).toBe(0);
    expect(ssm.parameters.get("/handraise/prod/api-keys/ci-agent")?.value).toMatch(
      /^answer:[A-Za-z0-9_-]{43}$/,
    );
  });

  it("--api-key refuses a bad name, the name default, a missing or unknown scope, and other secrets beside it", async () => {
    const refusals: [string[], string][] = [
      [["--api-key", "CI Agent", "--scope", "ask"], "--api-key must be a key name"],
      [["--api-key", "default", "--scope", "admin"], 'the key "default" is the stage\'s api-key parameter'],
      [["--api-key", "ci"], "--scope must be one of ask, answer, admin"],
      [["--api-key", "ci", "--scope", "owner"], "--scope must be one of ask, answer, admin"],
      [["--api-key", "ci", "--scope", "ask", "--channels", "telegram"], "stores nothing else"],
      [["--scope", "ask"], "--scope goes with --api-key"],
    ];
    for (const [args, message] of refusals) {
      const { code, output } = await secretsPut(args, TELEGRAM);
      expect(code, args.join(" ")).toBe(1);
      expect(output, args.join(" ")).toContain(message);
    }
    expect(ssm.calls).toEqual([]);
  });

  it("without AWS credentials: one line naming what to set, no stack trace, exit 1", async () => {
    const home = await mkdtemp(join(tmpdir(), "handraise-no-aws-"));
    try {
      // No credentials anywhere: none in the environment, an empty home (no ~/.aws), no instance metadata.
      const noCredentials = {
        HOME: home,
        AWS_ACCESS_KEY_ID: undefined,
        AWS_SECRET_ACCESS_KEY: undefined,
        AWS_EC2_METADATA_DISABLED: "true",
        HANDRAISE_API_KEY: "prod-api-key-0123456789abcdef",
      };
      const { code, output } = await secretsPut(["--stage", "prod"], noCredentials);
      expect(code, output).toBe(1);
      expect(ours(output)).toEqual([
        'secrets:put: could not store /handraise/prod/api-key: no AWS credentials found: set AWS_PROFILE to a profile of ~/.aws/config (after "aws sso login" for an SSO profile), or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY.',
      ]);
      expectNoStackTrace(output);

      // A profile that is not there is named.
      const profile = await secretsPut(["--stage", "prod", "--api-key", "ci", "--scope", "ask"], {
        ...noCredentials,
        AWS_PROFILE: "handraise-missing",
      });
      expect(profile.code, profile.output).toBe(1);
      expect(ours(profile.output)).toEqual([
        expect.stringMatching(/^secrets:put: could not store \/handraise\/prod\/api-keys\/ci: /),
      ]);
      expect(profile.output).toMatch(/for the profile "handraise-missing" \(AWS_PROFILE\)/);
      expectNoStackTrace(profile.output);
      expect(ssm.calls).toEqual([]);
    } finally {
      await rm(home, { recursive: true, force: true });
    }
  });

  it("without a region: one line asking for AWS_REGION or --region, exit 1", async () => {
    const { code, output } = await secretsPut(["--stage", "prod"], {
      AWS_REGION: undefined,
      HANDRAISE_API_KEY: "prod-api-key-0123456789abcdef",
    });
    expect(code, output).toBe(1);
    expect(ours(output)).toEqual([
      "secrets:put: could not store /handraise/prod/api-key: no AWS region: set AWS_REGION or pass --region (or AWS_PROFILE to a profile with a region).",
    ]);
    expectNoStackTrace(output);
  });

  it("with SSM unreachable (a closed port): one line naming the endpoint and its variable, exit 1", async () => {
    const closed = await closedPortUrl();
    const { code, output } = await secretsPut(["--stage", "prod", "--channels", "telegram"], {
      ...TELEGRAM,
      AWS_ENDPOINT_URL_SSM: closed,
      HANDRAISE_API_KEY: "prod-api-key-0123456789abcdef",
    });
    expect(code, output).toBe(1);
    expect(ours(output)).toEqual([
      `secrets:put: could not store /handraise/prod/api-key: could not reach SSM at ${closed} (ECONNREFUSED): check AWS_ENDPOINT_URL_SSM, or unset it to use AWS.`,
    ]);
    expectNoStackTrace(output);
    // It stopped at the first parameter: the channel's were not tried.
    expect(output).not.toContain("telegram");
  });

  it("refuses an unknown channel", async () => {
    const { code, output } = await secretsPut(["--channels", "carrier-pigeon"], {});
    expect(code).toBe(1);
    expect(output).toContain("unknown channel carrier-pigeon");
    expect(ssm.calls).toEqual([]);
  });
});
