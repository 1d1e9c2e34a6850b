/**
 * `npm run doctor -- --stage test` against the local stack with its secrets in SSM Parameter Store (a local
 * fake, reached as the real one through AWS_ENDPOINT_URL_SSM), the way a deployment reads them: the
 * doctor reads the same parameters, names the key from the stage's key list, reports a missing parameter
 * with the `secrets:put` command that stores it, and notices when --stage is not the stack's.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DoctorIo, runDoctor } from "../../scripts/lib/doctor.ts";
import { type FakePlatform, startFakePlatform } from "./support/fake-platform.ts";
import { type FakeSsm, startFakeSsm } from "./support/fake-ssm.ts";
import { startTestStack, type TestStack, waitFor } from "./support/test-stack.ts";

const PREFIX = "/handraise/test";
const API_KEY = "ssm-doctor-api-key-0123456789";
const AGENT_KEY = "ssm-doctor-agent-key-0123456789";
const BOT_TOKEN = "5151:ssm-doctor-bot";

let ssm: FakeSsm;
let telegram: FakePlatform;
let stack: TestStack;

beforeAll(async () => {
  ssm = await startFakeSsm();
  ssm.put(`${PREFIX}/api-key`, API_KEY);
  ssm.put(`${PREFIX}/api-keys/agent`, `ask:${AGENT_KEY}`);
  ssm.put(`${PREFIX}/telegram/bot-token`, BOT_TOKEN);
  ssm.put(`${PREFIX}/telegram/webhook-secret`, "ssm_webhook_secret");
  telegram = await startFakePlatform((call) =>
    call.method === "getWebhookInfo"
      ? { body: { ok: true, result: { url: "", pending_update_count: 0 } } }
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

/**
 * The doctor as run after a deploy: the stage's URL and key, and a shell that still holds the values it
 * stored with `npm run secrets:put` — which must not count, SSM's are the deployment's.
 */
async function doctor(argv: string[], key = API_KEY, settings: Record<string, string> = {}) {
  let stdout = "";
  const io: DoctorIo = {
    argv: ["--stage", "test", ...argv],
    env: {
      HANDRAISE_URL: stack.httpUrl,
      HANDRAISE_API_KEY: key,
      TELEGRAM_BOT_TOKEN: "1:a-stale-token-in-the-shell",
      TELEGRAM_API_BASE: telegram.url,
      ...settings,
    },
    stdout: (text) => {
      stdout += text;
    },
    stderr: () => {},
  };
  const exit = await runDoctor(io);
  const lines = stdout.trim().split("\n");
  return { exit, lines, failures: lines.filter((line) => line.startsWith("✗")) };
}

describe("npm run doctor --stage: secrets from SSM, as deployed", () => {
  it("reads the stage's parameters, decrypted, and names the key from its key list; exit 0", async () => {
    const reads = ssm.calls.length;
    const run = await doctor([]);
    expect(run.exit, run.lines.join("\n")).toBe(0);
    expect(run.lines).toEqual([
      `✓ the API at ${stack.httpUrl} answers`,
      `✓ the key is accepted: "default", scope admin: it may do anything (the operator's key: never give it to an agent)`,
      "✓ channels on: telegram; off: slack, discord, mattermost, teams, whatsapp, gchat",
      `✓ answer page off: no link-secret in SSM under ${PREFIX} (npm run secrets:put -- --stage test --answer-page turns it on)`,
      `✓ telegram secrets in SSM under ${PREFIX}: telegram/bot-token, telegram/webhook-secret`,
      `✓ telegram: the bot token works (webhook: none); not compared with ${stack.httpUrl}, which Telegram cannot call`,
    ]);
    // The bot token from SSM is the one asked with, not the shell's.
    expect(telegram.callsTo("getWebhookInfo").at(-1)?.path).toBe(`/bot${BOT_TOKEN}/getWebhookInfo`);
    // The stack's own functions read the same fake: every read here, theirs or the doctor's, is of the stage's
    // parameters, decrypted, and the keys are read by their path only.
    const calls = ssm.calls.slice(reads);
    expect(calls.some((c) => c.operation === "GetParametersByPath")).toBe(true);
    for (const call of calls) {
      expect(call.body.WithDecryption).toBe(true);
      if (call.operation === "GetParameter") {
        expect(String(call.body.Name)).toMatch(/^\/handraise\/test\/(api-key|link-secret|telegram\/.+)$/);
      } else {
        expect(call).toMatchObject({
          operation: "GetParametersByPath",
          body: { Path: `${PREFIX}/api-keys` },
        });
        expect(call.body.Recursive).not.toBe(true);
      }
    }
  });

  it("a wrong key: ✗ naming the stage's api-key parameter", async () => {
    const run = await doctor([], "not-the-stage-key-0000");
    expect(run.exit).toBe(1);
    expect(run.failures).toEqual([
      `✗ the API refused the key (401) — give the stack's key with --key or HANDRAISE_API_KEY (the ${PREFIX}/api-key parameter, or a key of its own: npm run secrets:put -- --stage test --api-key <name> --scope ask)`,
    ]);
  });

  it("names an ask key of the stage's list, and says it may not answer", async () => {
    const run = await doctor([], AGENT_KEY);
    expect(run.exit).toBe(0);
    expect(run.lines[1]).toBe(
      `✓ the key is accepted: "agent", scope ask: it may ask, and read, wait for and cancel its own questions; it may not answer`,
    );
  });

  it("a missing parameter: ✗ with the secrets:put command that stores it", async () => {
    const name = `${PREFIX}/telegram/webhook-secret`;
    const kept = ssm.parameters.get(name);
    ssm.parameters.delete(name);
    try {
      const run = await doctor([]);
      expect(run.exit).toBe(1);
      expect(run.failures).toContain(
        `✗ telegram secret is missing in SSM under ${PREFIX}: telegram/webhook-secret — store them with npm run secrets:put -- --stage test --channels telegram, with TELEGRAM_BOT_TOKEN and TELEGRAM_WEBHOOK_SECRET set`,
      );
      expect(run.lines.filter((line) => line.startsWith("✓ telegram:"))).toEqual([]);
    } finally {
      if (kept) ssm.parameters.set(name, kept);
    }
  });

  it("a placeholder stored as a secret: ✗ naming the parameter, never its value", async () => {
    ssm.put(`${PREFIX}/telegram/bot-token`, "changeme");
    try {
      const run = await doctor([]);
      expect(run.exit).toBe(1);
      expect(run.failures).toContain(
        `✗ telegram secrets in SSM under ${PREFIX}: the SSM parameter ${PREFIX}/telegram/bot-token is a placeholder ("changeme"), not a secret — store them with npm run secrets:put -- --stage test --channels telegram, with TELEGRAM_BOT_TOKEN and TELEGRAM_WEBHOOK_SECRET set`,
      );
    } finally {
      ssm.put(`${PREFIX}/telegram/bot-token`, BOT_TOKEN);
    }
  });

  it("e-mail on (its sender given, as deployed) without the stage's link-secret: ✗ naming it and the secrets:put that stores it", async () => {
    // E-mail has no webhook to ask: the doctor takes it as on from the settings given to it.
    const email = { HANDRAISE_EMAIL_FROM: "approvals@example.com" };
    // Only the lines about e-mail and the link secret: the tests above restored Telegram's secrets, which the
    // stack may still hold as they were for its cache age.
    const aboutEmail = (lines: string[]) =>
      lines.filter(
        (line) => line.startsWith("✗") && (line.includes("email") || line.includes("link-secret")),
      );
    const run = await doctor([], API_KEY, email);
    expect(run.exit).toBe(1);
    expect(run.lines).toContain("✓ email on, as this environment says (HANDRAISE_EMAIL_FROM is set)");
    expect(aboutEmail(run.lines)).toEqual([
      `✗ email secret is missing in SSM under ${PREFIX}: link-secret (email cannot work without it: a mail is answered only through its link) — store it with npm run secrets:put -- --stage test --channels email`,
    ]);
    // Without e-mail, no link-secret is wanted: the answer page is merely off.
    expect(aboutEmail((await doctor([])).lines)).toEqual([]);

    ssm.put(`${PREFIX}/link-secret`, "ssm-doctor-link-secret-0123456789abcdef");
    try {
      // Stored, it is picked up within the cache age (1 s here): no deploy, no restart.
      await waitFor(
        async () => ((await fetch(`${stack.httpUrl}/answer/x?sig=x`)).status === 403 ? true : undefined),
        { what: "the answer page to turn on" },
      );
      const fixed = await doctor([], API_KEY, email);
      expect(aboutEmail(fixed.lines)).toEqual([]);
      expect(fixed.lines).toContain(`✓ email secrets in SSM under ${PREFIX}: link-secret`);
      expect(fixed.lines).toContain(
        "✓ email: SES may send from approvals@example.com (the address is verified)",
      );
    } finally {
      ssm.parameters.delete(`${PREFIX}/link-secret`);
    }
  });

  it("e-mail's sender: ✓ when SES verified the address or its domain, ✗ naming what to verify when neither", async () => {
    const email = { HANDRAISE_EMAIL_FROM: "approvals@example.com" };
    const sesLines = (lines: string[]) => lines.filter((line) => /^[✓✗] email: SES/.test(line));
    ssm.put(`${PREFIX}/link-secret`, "ssm-doctor-link-secret-0123456789abcdef");
    try {
      // Only the domain is an identity: SES sends from any of its addresses.
      stack.ses.setIdentity("approvals@example.com", "absent");
      expect(sesLines((await doctor([], API_KEY, email)).lines)).toEqual([
        "✓ email: SES may send from approvals@example.com (its domain example.com is verified)",
      ]);
      // The address waits for its link to be followed, and the domain is no identity: every mail would be refused.
      stack.ses.setIdentity("approvals@example.com", "PENDING");
      stack.ses.setIdentity("example.com", "absent");
      const run = await doctor([], API_KEY, email);
      expect(run.exit).toBe(1);
      expect(sesLines(run.lines)).toEqual([
        "✗ email: SES may not send from approvals@example.com: neither it nor its domain (or a parent domain) is verified in this account and Region (approvals@example.com: verification PENDING; example.com: no identity) — verify the address (SES mails it a link) or its domain (DKIM records) in SES, in the stack's Region — aws sesv2 create-email-identity --email-identity approvals@example.com — or set HANDRAISE_EMAIL_FROM (deployed: the emailFrom parameter) to a verified address",
      ]);
    } finally {
      stack.ses.setIdentity("approvals@example.com", undefined);
      stack.ses.setIdentity("example.com", undefined);
      ssm.parameters.delete(`${PREFIX}/link-secret`);
    }
  });

  it("e-mail's sender: ✓ when a parent domain of the sender's domain is verified, trying each down to two labels", async () => {
    const email = { HANDRAISE_EMAIL_FROM: "approvals@mail.eu.example.com" };
    const sesLines = (lines: string[]) => lines.filter((line) => /^[✓✗] email: SES/.test(line));
    ssm.put(`${PREFIX}/link-secret`, "ssm-doctor-link-secret-0123456789abcdef");
    const unverified = ["approvals@mail.eu.example.com", "mail.eu.example.com", "eu.example.com"];
    try {
      for (const identity of unverified) stack.ses.setIdentity(identity, "absent");
      // SES: a verified example.com covers its subdomains and their addresses.
      expect(sesLines((await doctor([], API_KEY, email)).lines)).toEqual([
        "✓ email: SES may send from approvals@mail.eu.example.com (its parent domain example.com is verified)",
      ]);
      stack.ses.setIdentity("example.com", "absent");
      const run = await doctor([], API_KEY, email);
      expect(run.exit).toBe(1);
      const [line] = sesLines(run.lines);
      expect(line).toContain(
        "(approvals@mail.eu.example.com: no identity; mail.eu.example.com: no identity; eu.example.com: no identity; example.com: no identity)",
      );
    } finally {
      for (const identity of [...unverified, "example.com"]) stack.ses.setIdentity(identity, undefined);
      ssm.parameters.delete(`${PREFIX}/link-secret`);
    }
  });

  it("the answer page on with the stage's link-secret; --stage of another stack: ✗ for the key and the secrets", async () => {
    ssm.put(`${PREFIX}/link-secret`, "ssm-doctor-link-secret-0123456789abcdef");
    // The stack reads a new secret within its cache age (1 s here).
    await waitFor(
      async () => ((await fetch(`${stack.httpUrl}/answer/x?sig=x`)).status === 403 ? true : undefined),
      { what: "the answer page to turn on" },
    );
    const run = await doctor([]);
    expect(run.exit).toBe(0);
    expect(run.lines).toContain(`✓ answer page on (link-secret in SSM under ${PREFIX})`);

    const other = await doctor(["--stage", "other"]);
    const fix = `check that --stage names the stack of --url (${stack.httpUrl})`;
    expect(other.exit).toBe(1);
    expect(other.failures).toEqual([
      `✗ the key is accepted, but it is none of the keys in SSM under /handraise/other — ${fix}`,
      `✗ the answer page is on, but there is no link-secret in SSM under /handraise/other — ${fix}`,
      "✗ telegram secrets are missing in SSM under /handraise/other: telegram/bot-token, telegram/webhook-secret — store them with npm run secrets:put -- --stage other --channels telegram, with TELEGRAM_BOT_TOKEN and TELEGRAM_WEBHOOK_SECRET set",
    ]);
  });
});
