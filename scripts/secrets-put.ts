/**
 * `npm run secrets:put -- --stage prod --channels telegram,slack`: stores the secrets a deployment needs as
 * SSM Parameter Store SecureStrings under `/handraise/<stage>/` (the names of infra/secrets.json and each channel's lib/channels/<name>/manifest.json): the API
 * key, and every secret of each channel it enables (a channel's optional ones when their variable is set).
 * Values come from the environment variables of the same table (TELEGRAM_BOT_TOKEN, …), so they never appear on a command line or in shell history; a missing,
 * malformed or placeholder value stops the script before anything is written. The API key is stored only when
 * HANDRAISE_API_KEY is set, or when the stage has none yet (then a new one is made and printed once): adding
 * a channel later never replaces the key clients use. The answer page's link secret is stored when
 * HANDRAISE_LINK_SECRET is set, or made (and never printed: nobody needs to know it) with --answer-page
 * where the stage has none; without it the page is off. The notifications' signing secret is stored when
 * HANDRAISE_NOTIFY_SECRET is set, or made with --notifications where the stage has none (then printed once:
 * receivers need it to verify). Credentials and region come from the usual AWS
 * settings (AWS_PROFILE, AWS_REGION, …), as for the AWS CLI; without them, or with SSM out of reach, it stops
 * with one line saying what to set (scripts/lib/aws-problem.ts) and exits 1.
 *
 * `npm run secrets:put -- --stage prod --api-key ci-agent --scope ask` instead makes one named API key
 * (docs/api.md, "Keys and scopes"): a new random key, stored as `<scope>:<key>` in
 * `/handraise/<stage>/api-keys/<name>` and printed once; nothing else is stored. It never replaces a key of
 * that name (the agent holding it would be locked out) unless --new-api-key is given too.
 *
 * Options: --stage (default dev), --channels (comma-separated; default none), --answer-page,
 * --notifications, --prefix
 * (default /handraise/<stage>), --kms-key-id (a key of your own; default the AWS managed aws/ssm),
 * --new-api-key (replace the stage's API key with a new one; with --api-key, that named key), --api-key
 * <name> and --scope ask|answer|admin (one named key), --region, --dry-run (say what would be stored, store
 * nothing).
 */
import { randomBytes } from "node:crypto";
import { parseArgs } from "node:util";
import { ParameterAlreadyExists, PutParameterCommand, SSMClient } from "@aws-sdk/client-ssm";
import { DEFAULT_API_KEY_NAME } from "#lib/auth/api-keys.ts";
import {
  API_KEY_NAME_PATTERN,
  API_KEY_SCOPES,
  CHANNEL_NAMES,
  channelNeeds,
  channelSecrets,
  optionalChannelSecrets,
  parseChannelList,
  type SecretName,
  SSM_PATH,
  secretAbout,
  secretEnvName,
  secretProblem,
} from "#lib/secrets/secret-catalog.ts";
import { awsProblem } from "./lib/aws-problem.ts";

const { values: options } = parseArgs({
  options: {
    stage: { type: "string", default: "dev" },
    channels: { type: "string", default: "" },
    "answer-page": { type: "boolean", default: false },
    notifications: { type: "boolean", default: false },
    prefix: { type: "string" },
    "kms-key-id": { type: "string" },
    "new-api-key": { type: "boolean", default: false },
    "api-key": { type: "string" },
    scope: { type: "string" },
    region: { type: "string" },
    "dry-run": { type: "boolean", default: false },
  },
});

function fail(message: string): never {
  process.stderr.write(`secrets:put: ${message}\n`);
  process.exit(1);
}

/**
 * Stops at an AWS call that failed (no credentials, no region, SSM unreachable, refused) with one line
 * saying what to set, not the SDK's stack trace. What was stored before it is listed above it.
 */
async function failStoring(parameter: string, client: SSMClient, error: unknown): Promise<never> {
  const region = await client.config.region().catch(() => undefined);
  fail(
    `could not store ${parameter}: ${awsProblem(error, { service: "SSM", env: process.env, ...(region && { region }) })}`,
  );
}

const { channels, unknown } = parseChannelList(options.channels ?? "");
if (unknown.length > 0) fail(`unknown channel ${unknown.join(", ")} (channels: ${CHANNEL_NAMES.join(", ")})`);
const prefix = (options.prefix ?? `/handraise/${options.stage}`).replace(/\/+$/, "");
if (!SSM_PATH.test(prefix)) fail("--prefix must be an SSM path such as /handraise/prod");
if (options["api-key"] !== undefined) {
  await putNamedApiKey(options["api-key"], options.scope);
  process.exit(0);
}
if (options.scope !== undefined) fail("--scope goes with --api-key <name>");

const answerPage = options["answer-page"] || Boolean(process.env[secretEnvName("link-secret")]);
// A channel's `needs` (e-mail: the link secret, made here when not given) come with it; each name once.
const names: SecretName[] = [
  ...new Set<SecretName>([
    "api-key",
    ...(answerPage ? (["link-secret"] as const) : []),
    ...(options.notifications || process.env[secretEnvName("notify-secret")]
      ? (["notify-secret"] as const)
      : []),
    ...channels.flatMap((channel) => channelSecrets(channel)),
    // A channel's optional secrets (Mattermost's outgoing-webhook tokens) are stored when their variable is set.
    ...channels.flatMap((channel) =>
      optionalChannelSecrets(channel).filter((name) => process.env[secretEnvName(name)]),
    ),
    ...channels.flatMap((channel) => channelNeeds(channel).map((need) => need.name)),
  ]),
];
let generatedApiKey: string | undefined;
let generatedNotifySecret: string | undefined;
/** Secrets made here rather than given: they never replace what the stage has (clients and links hold those). */
const made = new Set<SecretName>();
const problems: string[] = [];
const values = new Map<SecretName, string>();
for (const name of names) {
  const variable = secretEnvName(name);
  let value = process.env[variable];
  if (!value && name === "api-key") {
    // Made here; stored only where the stage has no key yet, or with --new-api-key (below).
    generatedApiKey = randomBytes(32).toString("base64url");
    value = generatedApiKey;
    if (!options["new-api-key"]) made.add(name);
  }
  if (!value && name === "link-secret") {
    made.add(name);
    value = randomBytes(32).toString("base64url");
  }
  if (!value && name === "notify-secret") {
    // Standard Webhooks' format (lib/notify/standard-webhooks.ts): whsec_ + base64 of the key bytes.
    made.add(name);
    generatedNotifySecret = `whsec_${randomBytes(32).toString("base64")}`;
    value = generatedNotifySecret;
  }
  if (!value) {
    problems.push(`${variable} is not set (${secretAbout(name)})`);
    continue;
  }
  const problem = secretProblem(name, value);
  if (problem) problems.push(`${variable} ${problem}`);
  else values.set(name, value);
}
if (problems.length > 0) fail(`nothing was stored:\n  - ${problems.join("\n  - ")}`);

const client = new SSMClient(options.region ? { region: options.region } : {});
let keptApiKey = false;
let keptNotifySecret = false;
for (const [name, value] of values) {
  const parameter = `${prefix}/${name}`;
  const overwrite = !made.has(name);
  if (options["dry-run"]) {
    process.stdout.write(`would store ${parameter} (SecureString${overwrite ? "" : ", unless it exists"})\n`);
    continue;
  }
  try {
    await client.send(
      new PutParameterCommand({
        Name: parameter,
        Value: value,
        Type: "SecureString",
        Overwrite: overwrite,
        ...(options["kms-key-id"] && { KeyId: options["kms-key-id"] }),
        Description: `Handraise: ${secretAbout(name)}`,
      }),
    );
    process.stdout.write(`stored ${parameter} (SecureString)\n`);
  } catch (error) {
    if (!(error instanceof ParameterAlreadyExists) || overwrite) await failStoring(parameter, client, error);
    if (name === "api-key") keptApiKey = true;
    if (name === "notify-secret") keptNotifySecret = true;
    process.stdout.write(
      `kept ${parameter}: it exists${name === "api-key" ? " (--new-api-key replaces it)" : ""}\n`,
    );
  }
}
client.destroy();
if (generatedApiKey && !keptApiKey && !options["dry-run"]) {
  process.stdout.write(
    `\nA new API key was made (shown this once; clients send it as "Authorization: Bearer <key>"):\n${generatedApiKey}\n`,
  );
}
if (generatedNotifySecret && !keptNotifySecret && !options["dry-run"]) {
  process.stdout.write(
    `\nA notification signing secret was made (shown this once; receivers verify webhook-signature with it):\n${generatedNotifySecret}\n`,
  );
}
const channelParam = channels.length > 0 ? channels.join(",") : '""';
process.stdout.write(
  `\nDeploy with: npm run deploy -- --stage ${options.stage} --param="channels=${channelParam}"\n`,
);

/** `--api-key <name> --scope <scope>`: one new named key, stored as `<scope>:<key>`, printed once. */
async function putNamedApiKey(name: string, scope: string | undefined): Promise<void> {
  if (options.channels || options["answer-page"] || options.notifications) {
    fail("--api-key makes one named key and stores nothing else: run secrets:put again for the rest");
  }
  if (!API_KEY_NAME_PATTERN.test(name)) {
    fail("--api-key must be a key name: 1-32 of a-z 0-9 _ -, starting with a letter or digit");
  }
  if (name === DEFAULT_API_KEY_NAME) {
    fail(`the key "${DEFAULT_API_KEY_NAME}" is the stage's api-key parameter: make it without --api-key`);
  }
  if (scope === undefined || !(API_KEY_SCOPES as readonly string[]).includes(scope)) {
    fail(`--scope must be one of ${API_KEY_SCOPES.join(", ")} (agents get ask)`);
  }
  const key = randomBytes(32).toString("base64url");
  const parameter = `${prefix}/api-keys/${name}`;
  const overwrite = options["new-api-key"];
  if (options["dry-run"]) {
    process.stdout.write(`would store ${parameter} (SecureString${overwrite ? "" : ", unless it exists"})\n`);
    return;
  }
  const client = new SSMClient(options.region ? { region: options.region } : {});
  try {
    await client.send(
      new PutParameterCommand({
        Name: parameter,
        Value: `${scope}:${key}`,
        Type: "SecureString",
        Overwrite: overwrite,
        ...(options["kms-key-id"] && { KeyId: options["kms-key-id"] }),
        Description: `Handraise: API key ${name} (scope ${scope})`,
      }),
    );
  } catch (error) {
    if (!(error instanceof ParameterAlreadyExists)) await failStoring(parameter, client, error);
    process.stdout.write(`kept ${parameter}: it exists (--new-api-key replaces it)\n`);
    return;
  } finally {
    client.destroy();
  }
  process.stdout.write(
    `stored ${parameter} (SecureString)\n\nThe API key "${name}" (scope ${scope}) was made (shown this once; send it as "Authorization: Bearer <key>"; in use within 5 minutes):\n${key}\n`,
  );
}
