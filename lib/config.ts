/**
 * Configuration: read from the environment once, validated, failing fast with a message that names every bad
 * variable. Nothing else in Handraise reads `process.env`. AWS endpoints are not configured here: the AWS
 * SDK reads `AWS_ENDPOINT_URL_DYNAMODB` / `AWS_ENDPOINT_URL_SFN` / `AWS_ENDPOINT_URL_SCHEDULER` itself (and
 * lib/aws/signed-request.ts, which calls SSM and Lambda's callback API in the SDK's place,
 * `AWS_ENDPOINT_URL_SSM` / `AWS_ENDPOINT_URL_LAMBDA` as the SDK would), or is given them by a process that
 * builds handlers of its own (the local stack, lib/aws-client-settings.ts), which is how the same handlers
 * reach its own services.
 *
 * Channels are all-or-nothing. A channel is on when the deployment lists it in `HANDRAISE_CHANNELS`, or —
 * without that list, locally — when its bot token is set; then every other setting it needs must be there
 * and well-formed, or the process refuses to start. A channel that is off needs nothing, and its webhook
 * answers 404 CHANNEL_DISABLED.
 *
 * Secrets come from one of two places, never both: deployed, SSM Parameter Store SecureStrings under
 * `HANDRAISE_SSM_PREFIX`, read at run time (lib/secrets/ssm-secrets.ts) — then no secret may be in the
 * environment; locally, the environment variables named in infra/secrets.json and the channels' manifests,
 * checked here. Model keys
 * are the exception on both counts: a run names its key, so locally their variables (`OPENAI_API_KEY`,
 * `ANTHROPIC_API_KEY`, `HANDRAISE_SECRET_<NAME>`) are kept aside unchecked and checked when a run reads one;
 * deployed they are not read at all (a shell may well have OPENAI_API_KEY set for other tools).
 *
 * API keys: `HANDRAISE_API_KEY` is the key named `default`, scope `admin`; `HANDRAISE_API_KEYS` adds named
 * keys, comma-separated `<name>:<scope>:<key>` (lib/auth/api-keys.ts). Deployed, both are SSM parameters.
 */
import { DEFAULT_API_KEY_NAME } from "./auth/api-keys.ts";
import type { NeedSetting } from "./channels/channel-spec.ts";
import { CHANNEL_SPECS, type SettingsOf } from "./channels/channel-specs.ts";
import { ConfigError } from "./config-error.ts";
import { httpUrl } from "./config-values.ts";
import { contextProblem, ownerProblem, parseDeliverTo } from "./mcp/asker.ts";
import { MAX_REMINDERS } from "./questions/question-record.ts";
import {
  MAX_TIMEOUT_SECONDS,
  MIN_TIMEOUT_SECONDS,
  STEP_FUNCTIONS_MAX_TIMEOUT_SECONDS,
} from "./questions/schema.ts";
import {
  API_KEYS_ENV,
  CHANNEL_NAMES,
  type ChannelName,
  channelSecrets,
  type FixedSecretName,
  isModelKeyEnvName,
  isPlaceholder,
  parseChannelList,
  SECRET_NAMES,
  SSM_PATH,
  secretEnvName,
  secretProblem,
} from "./secrets/secret-catalog.ts";
import { describeIssue, issuesOf, ruleMessage } from "./validation-messages.ts";
import * as z from "./zod.ts";

export { ConfigError } from "./config-error.ts";

const seconds = (fallback: number, max = STEP_FUNCTIONS_MAX_TIMEOUT_SECONDS) =>
  z._default(
    z.coerce.number().check(
      z.int({ error: ruleMessage("must be a whole number of seconds") }),
      z.gte(1, { error: ruleMessage("must be at least 1") }),
      z.lte(max, {
        error: ruleMessage(
          max === STEP_FUNCTIONS_MAX_TIMEOUT_SECONDS
            ? "must be at most one year (31536000), the Step Functions limit"
            : `must be at most ${max}`,
        ),
      }),
    ),
    fallback,
  );

/**
 * Seconds before each retry of a notification, after the first attempt: 5 s, 5 min, 30 min, 2 h, 5 h, 8 h,
 * 8 h — the last attempt about 23.6 hours after the question closed.
 */
export const DEFAULT_NOTIFY_RETRY_SECONDS = [5, 300, 1800, 7200, 18_000, 28_800, 28_800];

/** `600,1800` → [600, 1800]: whole seconds, at least 1, at most MAX_REMINDERS of them. */
const reminderList = z.pipe(
  z.string().check(
    z.regex(/^\s*\d+\s*(,\s*\d+\s*)*$/, {
      error: ruleMessage("must be whole seconds separated by commas, e.g. 600,1800"),
    }),
  ),
  z.transform((text) => text.split(",").map((part) => Number(part.trim()))),
);

/** The settings that are not secrets; each channel's are checked only when the channel is on. */
const envSchema = z
  .object({
    HANDRAISE_TABLE: z
      .string()
      .check(z.minLength(1, { error: ruleMessage("is required (the DynamoDB table name)") })),
    HANDRAISE_MIN_TIMEOUT_SECONDS: seconds(MIN_TIMEOUT_SECONDS),
    HANDRAISE_MAX_TIMEOUT_SECONDS: seconds(MAX_TIMEOUT_SECONDS),
    /** Days a closed or expired record stays readable before DynamoDB TTL removes it. */
    HANDRAISE_RETENTION_DAYS: z._default(z.coerce.number().check(z.int(), z.gte(1), z.lte(365)), 7),
    /** Local stack only: deliver to channel "console" by writing the prompt to stdout. */
    HANDRAISE_CONSOLE_CHANNEL: z._default(z.enum(["true", "false"]), "false"),
    /** The HTTP API's public base URL: Mattermost buttons and dialogs call `<it>/webhooks/mattermost`. */
    HANDRAISE_PUBLIC_URL: z.optional(httpUrl),
    /** The enabled channels, comma-separated (deployed: serverless.yml's `channels` parameter). */
    HANDRAISE_CHANNELS: z.optional(z.string()),
    /** Deployed: read secrets from SSM Parameter Store under this path (`/handraise/<stage>`). */
    HANDRAISE_SSM_PREFIX: z.optional(
      z
        .string()
        .check(z.regex(SSM_PATH, { error: ruleMessage("must be an SSM path such as /handraise/prod") })),
    ),
    /** The EventBridge bus question events go to (name or ARN); unset: no events are published. */
    HANDRAISE_EVENT_BUS: z.optional(
      z.string().check(
        z.regex(/^(arn:[\w-]+:events:[\w-]+:\d{12}:event-bus\/)?[\w.\-/]{1,256}$/, {
          error: ruleMessage("must be an EventBridge bus name or ARN"),
        }),
      ),
    ),
    /**
     * Reminders every question gets unless its request names its own (`remindAfterSeconds`), in seconds
     * after it was asked; those at or past a question's deadline are left out for that question.
     */
    HANDRAISE_REMIND_AFTER_SECONDS: z.optional(reminderList),
    /**
     * The question timers (expiry, reminders, escalation) on EventBridge Scheduler: the stack's schedule group,
     * the question-timer function the schedules invoke, the role Scheduler invokes it with, and the queue a
     * timer Scheduler could not deliver is kept in. All four, or none (no timers: expiry is derived on read
     * and closed by the model step when an AskUser task times out).
     */
    HANDRAISE_SCHEDULE_GROUP: z.optional(
      z
        .string()
        .check(z.regex(/^[0-9a-zA-Z_.-]{1,64}$/, { error: ruleMessage("must be a schedule group name") })),
    ),
    HANDRAISE_TIMER_FUNCTION_ARN: z.optional(
      z.string().check(
        z.regex(/^arn:[\w-]+:lambda:[\w-]+:\d{12}:function:[\w-]+$/, {
          error: ruleMessage("must be a Lambda function ARN"),
        }),
      ),
    ),
    HANDRAISE_TIMER_ROLE_ARN: z.optional(
      z.string().check(
        z.regex(/^arn:[\w-]+:iam::\d{12}:role\/[\w+=,.@/-]+$/, {
          error: ruleMessage("must be an IAM role ARN"),
        }),
      ),
    ),
    HANDRAISE_TIMER_DEAD_LETTER_ARN: z.optional(
      z.string().check(
        z.regex(/^arn:[\w-]+:sqs:[\w-]+:\d{12}:[\w-]{1,80}$/, {
          error: ruleMessage("must be an SQS queue ARN"),
        }),
      ),
    ),
    /** How long a secret read from SSM is reused: a rotated value is picked up within this. */
    HANDRAISE_SECRETS_MAX_AGE_SECONDS: seconds(300, 3600),
    ...channelVariables(),
    /** Where closed questions' notifications wait between attempts (deployed: the notify queue's URL). */
    HANDRAISE_NOTIFY_QUEUE_URL: z.optional(httpUrl),
    /** Seconds before each retry of a notification, comma-separated (default: about 24 hours in all). */
    HANDRAISE_NOTIFY_RETRY_SECONDS: z._default(
      z.string().check(
        z.regex(/^\d{1,6}(,\d{1,6}){0,19}$/, {
          error: ruleMessage("must be up to 20 whole numbers of seconds, comma-separated"),
        }),
      ),
      DEFAULT_NOTIFY_RETRY_SECONDS.join(","),
    ),
    /** Local stack only: notify receivers on this machine (`http://127.0.0.1:…`). */
    HANDRAISE_NOTIFY_LOOPBACK: z._default(z.enum(["true", "false"]), "false"),
    /** The MCP server's asking person and targets when a request names none (README.md, "MCP server"). */
    HANDRAISE_MCP_OWNER: z.optional(z.string()),
    HANDRAISE_MCP_DELIVER_TO: z.optional(z.string()),
    /** The context (who is asking and why) of MCP questions whose request sends no X-Handraise-Context. */
    HANDRAISE_MCP_CONTEXT: z.optional(z.string()),
    /** How long an MCP tool call waits for the answer before it returns `pending` (under clients' timeouts). */
    HANDRAISE_MCP_WAIT_SECONDS: seconds(20, 25),
    /**
     * The durable agent's execution timeout (serverless.yml durableExecutionTimeout; at most 366 days, Lambda's
     * limit): its questions are capped to end before the execution does.
     */
    HANDRAISE_DURABLE_EXECUTION_TIMEOUT_SECONDS: z.optional(
      z.coerce
        .number()
        .check(
          z.int({ error: ruleMessage("must be a whole number of seconds") }),
          z.gte(1, { error: ruleMessage("must be at least 1") }),
          z.lte(31_622_400, { error: ruleMessage("must be at most 366 days (31622400), Lambda's limit") }),
        ),
    ),
  })
  .check(
    z.refine((env) => env.HANDRAISE_MIN_TIMEOUT_SECONDS <= env.HANDRAISE_MAX_TIMEOUT_SECONDS, {
      path: ["HANDRAISE_MIN_TIMEOUT_SECONDS"],
      error: ruleMessage("must not be above HANDRAISE_MAX_TIMEOUT_SECONDS"),
    }),
  );
type Env = z.infer<typeof envSchema>;

/** What each enabled channel needs besides its secrets (absent: the channel is off): its spec's settings. */
export type ChannelSettings = { [Name in ChannelName]?: SettingsOf<Name> };

/** Every channel's environment variables, for the schema (each checked for its format even when off). */
function channelVariables() {
  return Object.assign({}, ...CHANNEL_SPECS.map((spec) => spec.config.variables)) as UnionToIntersection<
    (typeof CHANNEL_SPECS)[number]["config"]["variables"]
  >;
}
type UnionToIntersection<U> = (U extends unknown ? (x: U) => void : never) extends (x: infer I) => void
  ? I
  : never;

export interface TimerSettings {
  /** The schedule group the timers are created in. */
  group: string;
  /** The function every timer invokes. */
  targetArn: string;
  /** The role Scheduler assumes to invoke it. */
  roleArn: string;
  /** The SQS queue where Scheduler keeps a timer it could not deliver (every schedule's dead-letter queue). */
  deadLetterArn: string;
}

export type SecretSource =
  | {
      kind: "env";
      values: Partial<Record<FixedSecretName, string>>;
      /** Model keys by environment variable (absent: none set), checked when a run reads one. */
      modelKeys?: Record<string, string>;
      /** The named API keys of HANDRAISE_API_KEYS, by name: `<scope>:<key>` (absent: none set). */
      apiKeys?: Record<string, string>;
    }
  | { kind: "ssm"; prefix: string; maxAgeSeconds: number };

export interface Config {
  tableName: string;
  limits: { minTimeoutSeconds: number; maxTimeoutSeconds: number };
  retentionSeconds: number;
  consoleChannel: boolean;
  publicUrl: string | undefined;
  /** Where question events are published; undefined: nowhere. */
  eventBus: string | undefined;
  /** The reminders of a question whose request names none (seconds after it was asked). */
  remindAfterSeconds: number[];
  /** Where question timers are set (EventBridge Scheduler); undefined: no timers. */
  timers: TimerSettings | undefined;
  /** The enabled channels: exactly the keys of `channels`. */
  enabledChannels: ReadonlySet<ChannelName>;
  channels: ChannelSettings;
  secrets: SecretSource;
  notify: NotifySettings;
  mcp: McpSettings;
  /** The durable agent's execution timeout, where it runs: a question it asks ends before the execution. */
  durableExecutionTimeoutSeconds?: number | undefined;
}

/** Signed notifications (lib/notify): the queue, the retry schedule, and whether loopback receivers are allowed. */
export interface NotifySettings {
  queueUrl: string | undefined;
  retrySeconds: number[];
  allowLoopback: boolean;
}

/** The MCP server's defaults (its requests may name their own owner, targets and context). */
export interface McpSettings {
  owner: string | undefined;
  deliverTo: string | undefined;
  /** Who is asking and why, for requests that send no X-Handraise-Context (checked here). */
  context: string | undefined;
  waitSeconds: number;
}

/**
 * Whether Powertools' Tracer is switched off by its own setting, `POWERTOOLS_TRACE_ENABLED=false` (the
 * local stack sets it: there is no X-Ray daemon there). Switched off, the Tracer would trace nothing, and
 * lib/telemetry/observability.ts does not load it. Read apart from `loadConfig`: a function builds its
 * observability before it loads its configuration.
 */
export function tracingSwitchedOff(env: Record<string, string | undefined> = process.env): boolean {
  return env.POWERTOOLS_TRACE_ENABLED?.toLowerCase() === "false";
}

/**
 * Parses the environment. Empty strings count as unset, so a template can leave a variable blank.
 * @throws ConfigError naming every bad variable.
 */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const present = Object.fromEntries(
    Object.entries(env).filter(([, value]) => value !== undefined && value !== ""),
  ) as Record<string, string>;
  const problems: string[] = [];
  const parsed = envSchema.safeParse(present);
  if (!parsed.success) {
    problems.push(...issuesOf(parsed.error.issues).map(describeIssue));
  }
  const e = parsed.success ? parsed.data : undefined;
  const fromSsm = e?.HANDRAISE_SSM_PREFIX !== undefined;

  const enabled = enabledChannels(present, fromSsm, problems);
  const values: Partial<Record<FixedSecretName, string>> = {};
  for (const name of SECRET_NAMES) {
    const variable = secretEnvName(name);
    const value = present[variable];
    if (fromSsm) {
      if (value !== undefined) {
        problems.push(`${variable} must not be set: with HANDRAISE_SSM_PREFIX, secrets are read from SSM`);
      }
      continue;
    }
    const problem = value === undefined ? undefined : secretProblem(name, value);
    if (problem !== undefined) problems.push(`${variable} ${problem}`);
    else if (value !== undefined) values[name] = value;
  }
  const apiKeys = fromSsm ? undefined : namedApiKeys(present[API_KEYS_ENV], values["api-key"], problems);
  if (fromSsm && present[API_KEYS_ENV] !== undefined) {
    problems.push(`${API_KEYS_ENV} must not be set: with HANDRAISE_SSM_PREFIX, API keys are read from SSM`);
  }
  if (!fromSsm) {
    for (const channel of enabled) {
      for (const name of channelSecrets(channel)) {
        if (present[secretEnvName(name)] === undefined) {
          problems.push(`${secretEnvName(name)} is required: the ${channel} channel is on`);
        }
      }
    }
  }
  const channels = e ? channelSettings(e, enabled, problems) : {};
  const timers = e ? timerSettings(e, problems) : undefined;
  const reminders = e?.HANDRAISE_REMIND_AFTER_SECONDS ?? [];
  if (reminders.some((seconds) => seconds < 1) || reminders.length > MAX_REMINDERS) {
    problems.push(
      `HANDRAISE_REMIND_AFTER_SECONDS must list at most ${MAX_REMINDERS} reminders, each at least 1 second`,
    );
  }
  const mcpOwnerProblem =
    e?.HANDRAISE_MCP_OWNER && ownerProblem(e.HANDRAISE_MCP_OWNER, "HANDRAISE_MCP_OWNER");
  if (mcpOwnerProblem) problems.push(mcpOwnerProblem);
  const mcpTargets = e?.HANDRAISE_MCP_DELIVER_TO && parseDeliverTo(e.HANDRAISE_MCP_DELIVER_TO);
  if (mcpTargets && "problem" in mcpTargets) problems.push(`HANDRAISE_MCP_DELIVER_TO: ${mcpTargets.problem}`);
  const mcpContextProblem = e?.HANDRAISE_MCP_CONTEXT && contextProblem(e.HANDRAISE_MCP_CONTEXT);
  if (mcpContextProblem) problems.push(`HANDRAISE_MCP_CONTEXT: ${mcpContextProblem}`);
  if (problems.length > 0 || !e) {
    throw new ConfigError(`Invalid configuration: ${problems.join("; ")}`);
  }
  return {
    tableName: e.HANDRAISE_TABLE,
    limits: {
      minTimeoutSeconds: e.HANDRAISE_MIN_TIMEOUT_SECONDS,
      maxTimeoutSeconds: e.HANDRAISE_MAX_TIMEOUT_SECONDS,
    },
    retentionSeconds: e.HANDRAISE_RETENTION_DAYS * 86_400,
    consoleChannel: e.HANDRAISE_CONSOLE_CHANNEL === "true",
    publicUrl: e.HANDRAISE_PUBLIC_URL,
    eventBus: e.HANDRAISE_EVENT_BUS,
    remindAfterSeconds: [...new Set(reminders)].sort((a, b) => a - b),
    timers,
    enabledChannels: enabled,
    channels,
    secrets: fromSsm
      ? {
          kind: "ssm",
          prefix: e.HANDRAISE_SSM_PREFIX ?? "",
          maxAgeSeconds: e.HANDRAISE_SECRETS_MAX_AGE_SECONDS,
        }
      : { kind: "env", values, ...modelKeysOf(present), ...(apiKeys && { apiKeys }) },
    notify: {
      queueUrl: e.HANDRAISE_NOTIFY_QUEUE_URL,
      retrySeconds: e.HANDRAISE_NOTIFY_RETRY_SECONDS.split(",").map(Number),
      allowLoopback: e.HANDRAISE_NOTIFY_LOOPBACK === "true",
    },
    mcp: {
      owner: e.HANDRAISE_MCP_OWNER,
      deliverTo: e.HANDRAISE_MCP_DELIVER_TO,
      context: e.HANDRAISE_MCP_CONTEXT,
      waitSeconds: e.HANDRAISE_MCP_WAIT_SECONDS,
    },
    ...(e.HANDRAISE_DURABLE_EXECUTION_TIMEOUT_SECONDS !== undefined && {
      durableExecutionTimeoutSeconds: e.HANDRAISE_DURABLE_EXECUTION_TIMEOUT_SECONDS,
    }),
  };
}

/** The model key variables that are set, by name (`{}` → nothing, so a config without them stays as it was). */
function modelKeysOf(env: Record<string, string>): { modelKeys?: Record<string, string> } {
  const modelKeys = Object.fromEntries(
    Object.entries(env).filter(([variable]) => isModelKeyEnvName(variable)),
  );
  return Object.keys(modelKeys).length > 0 ? { modelKeys } : {};
}

/**
 * HANDRAISE_API_KEYS — `<name>:<scope>:<key>`, comma-separated — by name as `<scope>:<key>`; undefined when
 * unset. Each entry is named by its position, never shown (it holds a key); a name must be new, must not be
 * `default` (HANDRAISE_API_KEY's), and no two keys may be the same (which scope applies could not be told).
 */
function namedApiKeys(
  text: string | undefined,
  defaultKey: string | undefined,
  problems: string[],
): Record<string, string> | undefined {
  if (text === undefined) return undefined;
  const keys: Record<string, string> = {};
  const seen = new Set(defaultKey === undefined ? [] : [defaultKey]);
  text.split(",").forEach((raw, index) => {
    const entry = raw.trim();
    if (entry === "") return;
    const at = `${API_KEYS_ENV} entry ${index + 1}`;
    const [name = "", scope, ...rest] = entry.split(":");
    const key = rest.join(":");
    if (scope === undefined || rest.length === 0) {
      problems.push(`${at} must be <name>:<scope>:<key>`);
      return;
    }
    const problem = secretProblem(`api-keys/${name}`, `${scope}:${key}`);
    if (problem !== undefined) problems.push(`${at} ${problem}`);
    else if (name === DEFAULT_API_KEY_NAME) {
      problems.push(`${at} is named "${DEFAULT_API_KEY_NAME}", which is ${secretEnvName("api-key")}'s name`);
    } else if (Object.hasOwn(keys, name)) problems.push(`${at} repeats the name "${name}"`);
    else if (seen.has(key)) problems.push(`${at} ("${name}") has the same key as another; give each its own`);
    else {
      keys[name] = `${scope}:${key}`;
      seen.add(key);
    }
  });
  return keys;
}

/** HANDRAISE_CHANNELS when given (deployed it always is); locally, the channels whose bot token is set. */
function enabledChannels(
  env: Record<string, string>,
  fromSsm: boolean,
  problems: string[],
): Set<ChannelName> {
  const listed = env.HANDRAISE_CHANNELS;
  if (listed === undefined) {
    if (fromSsm) return new Set();
    return new Set(
      CHANNEL_NAMES.filter((channel) => {
        const variable = botTokenVariable(channel);
        return variable !== undefined && env[variable] !== undefined;
      }),
    );
  }
  const { channels, unknown } = parseChannelList(listed);
  for (const word of unknown) {
    problems.push(`HANDRAISE_CHANNELS names an unknown channel "${word}" (${CHANNEL_NAMES.join(", ")})`);
  }
  return new Set(channels);
}

/** The variable whose presence turns a channel on locally (its manifest's `onLocally`: its bot token). */
const botTokenVariable = (channel: ChannelName): string | undefined =>
  CHANNEL_SPECS.find((spec) => spec.name === channel)?.manifest.onLocally;

const TIMER_VARIABLES = [
  "HANDRAISE_SCHEDULE_GROUP",
  "HANDRAISE_TIMER_FUNCTION_ARN",
  "HANDRAISE_TIMER_ROLE_ARN",
  "HANDRAISE_TIMER_DEAD_LETTER_ARN",
] as const;

/** The timers' settings: all four, or none (timers off). A timer without a dead-letter queue is not set. */
function timerSettings(e: Env, problems: string[]): TimerSettings | undefined {
  const { HANDRAISE_SCHEDULE_GROUP: group, HANDRAISE_TIMER_FUNCTION_ARN: targetArn } = e;
  const { HANDRAISE_TIMER_ROLE_ARN: roleArn, HANDRAISE_TIMER_DEAD_LETTER_ARN: deadLetterArn } = e;
  if (
    group !== undefined &&
    targetArn !== undefined &&
    roleArn !== undefined &&
    deadLetterArn !== undefined
  ) {
    return { group, targetArn, roleArn, deadLetterArn };
  }
  const missing = TIMER_VARIABLES.filter((name) => e[name] === undefined);
  if (missing.length < TIMER_VARIABLES.length) {
    problems.push(
      `${missing.join(", ")} ${missing.length > 1 ? "are" : "is"} required: question timers need all four`,
    );
  }
  return undefined;
}

function channelSettings(e: Env, enabled: ReadonlySet<ChannelName>, problems: string[]): ChannelSettings {
  const channels: Record<string, unknown> = {};
  for (const spec of CHANNEL_SPECS) {
    if (!enabled.has(spec.name)) continue;
    const need = (variable: string, value: string | undefined): string => {
      if (value === undefined) problems.push(`${variable} is required: the ${spec.name} channel is on`);
      else if (isPlaceholder(value)) problems.push(`${variable} is a placeholder ("${value}")`);
      return value ?? "";
    };
    channels[spec.name] = (spec.config.settings as (env: Env, need: NeedSetting) => unknown)(e, need);
  }
  return channels as ChannelSettings;
}
