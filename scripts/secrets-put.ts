/**
 * `npm run secrets:put -- --stage prod --channels telegram,slack`: stores the secrets a deployment needs as
 * SSM Parameter Store SecureStrings under `/handraise/<stage>/` (the names of infra/secrets.json): the API
 * key, and every secret of each channel it enables. Values come from the environment variables of the same
 * table (TELEGRAM_BOT_TOKEN, …), so they never appear on a command line or in shell history; a missing,
 * malformed or placeholder value stops the script before anything is written. The API key is stored only when
 * HANDRAISE_API_KEY is set, or when the stage has none yet (then a new one is made and printed once): adding
 * a channel later never replaces the key clients use. Credentials and region come from the usual AWS
 * settings (AWS_PROFILE, AWS_REGION, …), as for the AWS CLI.
 *
 * Options: --stage (default dev), --channels (comma-separated; default none), --prefix (default
 * /handraise/<stage>), --kms-key-id (a key of your own; default the AWS managed aws/ssm), --new-api-key
 * (replace the stage's API key with a new one), --region, --dry-run (say what would be stored, store nothing).
 */
import { randomBytes } from "node:crypto";
import { parseArgs } from "node:util";
import { ParameterAlreadyExists, PutParameterCommand, SSMClient } from "@aws-sdk/client-ssm";
import {
  CHANNEL_NAMES,
  channelSecrets,
  parseChannelList,
  type SecretName,
  SSM_PATH,
  secretAbout,
  secretEnvName,
  secretProblem,
} from "#lib/secrets/secret-catalog.ts";

const { values: options } = parseArgs({
  options: {
    stage: { type: "string", default: "dev" },
    channels: { type: "string", default: "" },
    prefix: { type: "string" },
    "kms-key-id": { type: "string" },
    "new-api-key": { type: "boolean", default: false },
    region: { type: "string" },
    "dry-run": { type: "boolean", default: false },
  },
});

function fail(message: string): never {
  process.stderr.write(`secrets:put: ${message}\n`);
  process.exit(1);
}

const { channels, unknown } = parseChannelList(options.channels ?? "");
if (unknown.length > 0) fail(`unknown channel ${unknown.join(", ")} (channels: ${CHANNEL_NAMES.join(", ")})`);
const prefix = (options.prefix ?? `/handraise/${options.stage}`).replace(/\/+$/, "");
if (!SSM_PATH.test(prefix)) fail("--prefix must be an SSM path such as /handraise/prod");

const names: SecretName[] = ["api-key", ...channels.flatMap((channel) => channelSecrets(channel))];
let generatedApiKey: string | undefined;
const problems: string[] = [];
const values = new Map<SecretName, string>();
for (const name of names) {
  const variable = secretEnvName(name);
  let value = process.env[variable];
  if (!value && name === "api-key") {
    // Made here; stored only where the stage has no key yet, or with --new-api-key (below).
    generatedApiKey = randomBytes(32).toString("base64url");
    value = generatedApiKey;
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
for (const [name, value] of values) {
  const parameter = `${prefix}/${name}`;
  // A made-up API key never replaces the one the stage has (unless asked to): clients hold that one.
  const overwrite = !(name === "api-key" && generatedApiKey !== undefined && !options["new-api-key"]);
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
    if (!(error instanceof ParameterAlreadyExists) || overwrite) throw error;
    keptApiKey = true;
    process.stdout.write(`kept ${parameter}: it exists (--new-api-key replaces it)\n`);
  }
}
client.destroy();
if (generatedApiKey && !keptApiKey && !options["dry-run"]) {
  process.stdout.write(
    `\nA new API key was made (shown this once; clients send it as "Authorization: Bearer <key>"):\n${generatedApiKey}\n`,
  );
}
const channelParam = channels.length > 0 ? channels.join(",") : '""';
process.stdout.write(
  `\nDeploy with: npm run deploy -- --stage ${options.stage} --param="channels=${channelParam}"\n`,
);
