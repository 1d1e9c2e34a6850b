/**
 * The secrets Handraise knows, which channel each belongs to, which function may read which, and what a
 * well-formed value of each looks like. Pure: no I/O, no environment. The deployment's own secrets and each
 * function's row are infra/secrets.json; each channel's are in its folder's manifest.json, through the
 * channel specs (lib/channels/channel-specs.ts). infra/deploy/secret-access.cjs reads the same files.
 *
 * A value is refused when it is a placeholder ("unset", "changeme", "xxx…", …): a deployer who stores
 * `unset` for a platform they do not use must not thereby switch it on with a secret everyone can guess.
 */
import catalog from "../../infra/secrets.json" with { type: "json" };
import type { ChannelSecret, SecretReader } from "../channels/channel-spec.ts";
import { CHANNEL_NAMES, CHANNEL_SPECS, type ChannelName } from "../channels/channel-specs.ts";

export { CHANNEL_NAMES, type ChannelName } from "../channels/channel-specs.ts";

/** A secret of the deployment itself (infra/secrets.json `parameters`). */
type DeploymentSecretName = keyof typeof catalog.parameters;
/** A secret of infra/secrets.json `parameters` or of a channel's manifest: one fixed name, one variable. */
export type FixedSecretName = DeploymentSecretName | `${ChannelName}/${string}`;
/** A model provider's API key, named by the run's input (`model.apiKeySecret`): `models/<name>`. */
export type ModelSecretName = `models/${string}`;
/** A named key of the question API and /mcp (`api-keys/<name>`, holding `<scope>:<key>`). */
export type ApiKeySecretName = `api-keys/${string}`;
export type SecretName = FixedSecretName | ModelSecretName | ApiKeySecretName;
/** Secrets whose names the deployment chooses, read all at once (deployed: by SSM path). */
export type SecretGroup = "api-keys";
/**
 * What a function's row grants: one secret, every model key (`models/*`, a path-scoped grant, since the run
 * chooses the name), or every named API key (`api-keys/*`, read together by path: the deployment chooses
 * the names).
 */
export type SecretGrant = FixedSecretName | "models/*" | "api-keys/*";
export type FunctionName = keyof typeof catalog.functions;

interface SecretEntry {
  env: string;
  channel?: ChannelName;
  /** May be absent: what needs it is off (the answer page, notifications, Mattermost's typed replies). */
  optional?: boolean;
  about: string;
  format?: ChannelSecret["format"];
  readBy?: readonly SecretReader[];
}

/** Every fixed secret: the deployment's own, then each channel's in the channels' order. */
const parameters = {
  ...(catalog.parameters as Record<DeploymentSecretName, SecretEntry>),
  ...Object.fromEntries(
    CHANNEL_SPECS.flatMap((spec) =>
      Object.entries(spec.manifest.secrets).map(([name, entry]) => [name, { ...entry, channel: spec.name }]),
    ),
  ),
} as Record<string, SecretEntry>;

/** A fixed secret's entry (every FixedSecretName that passed isFixedSecretName has one). */
const entryOf = (name: FixedSecretName): SecretEntry => parameters[name] as SecretEntry;

/** The fixed secrets (model keys are named per run, so they are not listed). */
export const SECRET_NAMES = Object.keys(parameters) as FixedSecretName[];

/** An SSM parameter path prefix, such as `/handraise/prod`. */
export const SSM_PATH = /^\/[A-Za-z0-9_.\-/]+$/;

/**
 * A comma-separated list of channels (`telegram, Slack`) → the known channels, in order, without repeats,
 * and the words that name none.
 */
export function parseChannelList(text: string): { channels: ChannelName[]; unknown: string[] } {
  const channels: ChannelName[] = [];
  const unknown: string[] = [];
  for (const word of text.split(",").map((w) => w.trim().toLowerCase())) {
    if (word === "") continue;
    if (!(CHANNEL_NAMES as readonly string[]).includes(word)) unknown.push(word);
    else if (!channels.includes(word as ChannelName)) channels.push(word as ChannelName);
  }
  return { channels, unknown };
}

/** A model key's name, as the run input gives it (`apiKeySecret`): lower-case letters, digits, `_`, `-`. */
export const MODEL_SECRET_NAME_PATTERN = new RegExp(catalog.models.namePattern);
const MODEL_KEY_ENV: Record<string, string> = catalog.models.env;

/** A named API key's name (`api-keys/<name>`): lower-case letters, digits, `_`, `-`, at most 32. */
export const API_KEY_NAME_PATTERN = new RegExp(catalog.apiKeys.namePattern);
/** What a key may do (lib/auth/api-keys.ts): stored as `<scope>:<key>`. */
export const API_KEY_SCOPES = ["ask", "answer", "admin"] as const;
export type ApiKeyScope = (typeof API_KEY_SCOPES)[number];
/** The environment variable that holds the named API keys locally (`<name>:<scope>:<key>`, comma-separated). */
export const API_KEYS_ENV = catalog.apiKeys.env;

export function isApiKeySecretName(name: string): name is ApiKeySecretName {
  return name.startsWith("api-keys/");
}

export function isModelSecretName(name: string): name is ModelSecretName {
  return name.startsWith("models/") && MODEL_SECRET_NAME_PATTERN.test(name.slice("models/".length));
}

/** `openai` → `models/openai`: the secret that holds the API key a run names. */
export function modelSecretName(name: string): ModelSecretName {
  return `models/${name}`;
}

/**
 * The environment variable that holds a secret locally: `telegram/bot-token` → `TELEGRAM_BOT_TOKEN`;
 * `models/openai` → `OPENAI_API_KEY`, `models/anthropic` → `ANTHROPIC_API_KEY`, any other model key
 * `models/<name>` → `HANDRAISE_SECRET_<NAME>` (upper-cased, `-` as `_`).
 */
export function secretEnvName(name: SecretName): string {
  if (isApiKeySecretName(name)) return API_KEYS_ENV;
  if (!isFixedSecretName(name)) {
    const short = name.slice("models/".length);
    return MODEL_KEY_ENV[short] ?? `${catalog.models.envPrefix}${short.toUpperCase().replaceAll("-", "_")}`;
  }
  return entryOf(name).env;
}

/** Whether an environment variable may hold a model key locally (loadConfig keeps these aside). */
export function isModelKeyEnvName(variable: string): boolean {
  return (
    Object.values(MODEL_KEY_ENV).includes(variable) ||
    (variable.startsWith(catalog.models.envPrefix) && variable.length > catalog.models.envPrefix.length)
  );
}

function isFixedSecretName(name: SecretName | SecretGrant): name is FixedSecretName {
  return Object.hasOwn(parameters, name);
}

/** The channel a secret belongs to; undefined for the deployment's own (the API key, model keys). */
export function secretChannel(name: SecretName | SecretGrant): ChannelName | undefined {
  return isFixedSecretName(name) ? entryOf(name).channel : undefined;
}

export function secretAbout(name: SecretName): string {
  if (isApiKeySecretName(name)) return catalog.apiKeys.about;
  return isFixedSecretName(name) ? entryOf(name).about : catalog.models.about;
}

/**
 * Whether a grant of a function's row covers reading the secret `name` on its own (`models/*` covers every
 * model key). Named API keys are read only as their group (`api-keys/*`, one read by path), never one by one.
 */
export function grantCovers(grant: SecretGrant, name: SecretName): boolean {
  return grant === "models/*" ? isModelSecretName(name) : grant === name;
}

/** Whether a function's row lets it read a group of secrets (`api-keys/*`: every named API key). */
export function grantsGroup(grants: readonly SecretGrant[], group: SecretGroup): boolean {
  return grants.includes(`${group}/*`);
}

/** The fixed secrets among a row's grants: those a function can read (and check) before it serves. */
export function fixedSecrets(grants: readonly SecretGrant[]): FixedSecretName[] {
  return grants.filter((grant): grant is FixedSecretName => !grant.endsWith("/*"));
}

/** Whether a secret may be absent (`optional` in its catalog entry): what needs it is then off. */
export function isOptionalSecret(name: SecretName): boolean {
  return isFixedSecretName(name) && entryOf(name).optional === true;
}

/** The secrets that may be absent: a function starts without them. */
export const OPTIONAL_SECRETS = SECRET_NAMES.filter(isOptionalSecret);

/** Every secret a channel needs once it is on: all of them, or the channel refuses to start. */
export function channelSecrets(channel: ChannelName): FixedSecretName[] {
  return SECRET_NAMES.filter((name) => secretChannel(name) === channel && !isOptionalSecret(name));
}

/**
 * The deployment's own optional secrets a channel cannot work without, and why (its manifest's `needs`:
 * e-mail's `link-secret`). `npm run secrets:put` stores them with the channel's and `npm run doctor` checks
 * them; they stay optional for the functions, which start without them.
 */
export function channelNeeds(channel: ChannelName): { name: FixedSecretName; why: string }[] {
  const spec = CHANNEL_SPECS.find((candidate) => candidate.name === channel);
  // Each names one of infra/secrets.json's optional secrets (test/unit/deploy/channel-params.test.ts).
  return Object.entries(spec?.manifest.needs ?? {}).map(([name, why]) => ({
    name: name as FixedSecretName,
    why,
  }));
}

/** The secrets a channel may use when they are set, and does without otherwise. */
export function optionalChannelSecrets(channel: ChannelName): FixedSecretName[] {
  return SECRET_NAMES.filter((name) => secretChannel(name) === channel && isOptionalSecret(name));
}

/** Which of a channel's secrets function `fn` reads, by what it does with the channel (none: no role). */
function channelRole(fn: FunctionName, channel: ChannelName): SecretReader | undefined {
  const readers = catalog.channelReaders;
  if (readers.deliver.includes(fn)) return "deliver";
  if (readers.retire.includes(fn)) return "retire";
  const spec = CHANNEL_SPECS.find((candidate) => candidate.name === channel);
  return spec?.manifest.webhook === fn ? "webhook" : undefined;
}

/**
 * The secrets a function may read in a deployment that enables `channels`: its row of infra/secrets.json,
 * then the secrets of each enabled channel that its role reads (manifest.json `readBy`). The same list
 * becomes the function's IAM policy.
 */
export function functionSecrets(fn: FunctionName, channels: ReadonlySet<ChannelName>): SecretGrant[] {
  const own = catalog.functions[fn] as SecretGrant[];
  const theirs = SECRET_NAMES.filter((name) => {
    const { channel, readBy = [] } = entryOf(name);
    if (channel === undefined || !channels.has(channel)) return false;
    const role = channelRole(fn, channel);
    return role !== undefined && readBy.includes(role);
  });
  return [...own, ...theirs];
}

/** The channels a function serves in a deployment that enables `channels`: each it may read a secret of. */
export function functionChannels(fn: FunctionName, channels: ReadonlySet<ChannelName>): ChannelName[] {
  return CHANNEL_NAMES.filter((channel) => channels.has(channel) && channelRole(fn, channel) !== undefined);
}

const PLACEHOLDERS = new Set([
  "unset",
  "none",
  "null",
  "nil",
  "undefined",
  "changeme",
  "change-me",
  "change_me",
  "todo",
  "tbd",
  "placeholder",
  "dummy",
  "secret",
  "token",
  "password",
]);

/** A stand-in somebody typed instead of the real value (any case): never a secret. */
export function isPlaceholder(value: string): boolean {
  const text = value.trim().toLowerCase();
  return (
    PLACEHOLDERS.has(text) ||
    /^x{3,}/.test(text) ||
    /^[-*.]{3,}$/.test(text) ||
    /^<.*>$/.test(text) ||
    /^\$\{.*\}$/.test(text)
  );
}

/** Each deployment secret's own format (a channel's are in its manifest: a looser check would let a typo through). */
const FORMATS: Partial<Record<FixedSecretName, { pattern: RegExp; rule: string }>> = {
  "api-key": { pattern: /^\S{16,}$/, rule: "at least 16 characters, no spaces" },
  // An HMAC-SHA256 key: 32 characters of a random base64 string carry about 192 bits.
  "link-secret": { pattern: /^\S{32,}$/, rule: "at least 32 characters, no spaces" },
  // Standard Webhooks' own format (lib/notify/standard-webhooks.ts): whsec_ + base64 of 24-64 key bytes.
  "notify-secret": {
    pattern: /^whsec_[A-Za-z0-9+/]{32,88}={0,2}$/,
    rule: "whsec_ followed by the base64 of 24 to 64 random bytes",
  },
  ...Object.fromEntries(
    SECRET_NAMES.flatMap((name) => {
      const format = entryOf(name).format;
      return format ? [[name, { pattern: new RegExp(format.pattern, format.flags), rule: format.rule }]] : [];
    }),
  ),
};
const ANY_TOKEN = { pattern: /^\S+$/, rule: "one word, without spaces" };

/**
 * What is wrong with a secret's value, as a phrase that follows its name; undefined when it is fine.
 *
 * @example
 * secretProblem("telegram/webhook-secret", "unset") // → 'is a placeholder ("unset"), not a secret'
 */
export function secretProblem(name: SecretName, value: string): string | undefined {
  if (isApiKeySecretName(name)) return apiKeyProblem(name.slice("api-keys/".length), value);
  if (value.trim() === "") return "is empty";
  // A listed placeholder is no secret, so it may be shown; a value that merely starts like one is not shown.
  if (isPlaceholder(value)) {
    const shown = PLACEHOLDERS.has(value.trim().toLowerCase()) ? `"${value.trim()}"` : "xxx… / ---";
    return `is a placeholder (${shown}), not a secret`;
  }
  const format = (isFixedSecretName(name) ? FORMATS[name] : undefined) ?? ANY_TOKEN;
  return format.pattern.test(value) ? undefined : `must be ${format.rule}`;
}

/**
 * A named API key `<name>` holding `<scope>:<key>`: the name as API_KEY_NAME_PATTERN wants it, one of the
 * scopes, and the key as the `api-key` rule wants it (never shown).
 */
function apiKeyProblem(keyName: string, value: string): string | undefined {
  if (!API_KEY_NAME_PATTERN.test(keyName)) {
    return "is not a key name: 1-32 of a-z 0-9 _ -, starting with a letter or digit";
  }
  const colon = value.indexOf(":");
  const scope = value.slice(0, colon);
  if (colon < 0 || !(API_KEY_SCOPES as readonly string[]).includes(scope)) {
    return `must be <scope>:<key>, the scope one of ${API_KEY_SCOPES.join(", ")}`;
  }
  const problem = secretProblem("api-key", value.slice(colon + 1));
  return problem && `holds a key that ${problem}`;
}
