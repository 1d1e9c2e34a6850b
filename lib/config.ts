/**
 * Configuration: read from the environment once, validated with zod, failing fast with a message that names
 * the variable. Nothing else in Handraise reads `process.env`. AWS endpoints are not configured here: the
 * AWS SDK reads `AWS_ENDPOINT_URL_DYNAMODB` / `AWS_ENDPOINT_URL_SFN` itself, which is how the local stack
 * points the same handlers at its own services.
 */
import {
  MAX_TIMEOUT_SECONDS,
  MIN_TIMEOUT_SECONDS,
  STEP_FUNCTIONS_MAX_TIMEOUT_SECONDS,
} from "./questions/schema.ts";
import * as z from "./zod.ts";

const seconds = (fallback: number) =>
  z._default(
    z.coerce
      .number()
      .check(
        z.int("must be a whole number of seconds"),
        z.gte(1, "must be at least 1"),
        z.lte(
          STEP_FUNCTIONS_MAX_TIMEOUT_SECONDS,
          "must be at most one year (31536000), the Step Functions limit",
        ),
      ),
    fallback,
  );

const optionalSecret = z.optional(z.string().check(z.minLength(1)));
const url = z.url();

const envSchema = z
  .object({
    HANDRAISE_TABLE: z.string().check(z.minLength(1, "is required (the DynamoDB table name)")),
    HANDRAISE_API_KEY: z.optional(z.string().check(z.minLength(16, "must be at least 16 characters"))),
    HANDRAISE_MIN_TIMEOUT_SECONDS: seconds(MIN_TIMEOUT_SECONDS),
    HANDRAISE_MAX_TIMEOUT_SECONDS: seconds(MAX_TIMEOUT_SECONDS),
    /** Days a closed or expired record stays readable before DynamoDB TTL removes it. */
    HANDRAISE_RETENTION_DAYS: z._default(z.coerce.number().check(z.int(), z.gte(1), z.lte(365)), 7),
    /** Local stack only: deliver to channel "console" by writing the prompt to stdout. */
    HANDRAISE_CONSOLE_CHANNEL: z._default(z.enum(["true", "false"]), "false"),
    /** The HTTP API's public base URL: Mattermost buttons and dialogs call `<it>/webhooks/mattermost`. */
    HANDRAISE_PUBLIC_URL: z.optional(url),
    TELEGRAM_BOT_TOKEN: optionalSecret,
    TELEGRAM_WEBHOOK_SECRET: optionalSecret,
    TELEGRAM_API_BASE: z._default(url, "https://api.telegram.org"),
    SLACK_BOT_TOKEN: optionalSecret,
    SLACK_SIGNING_SECRET: optionalSecret,
    SLACK_API_BASE: z._default(url, "https://slack.com/api"),
    DISCORD_APPLICATION_ID: optionalSecret,
    DISCORD_PUBLIC_KEY: optionalSecret,
    DISCORD_BOT_TOKEN: optionalSecret,
    DISCORD_API_BASE: z._default(url, "https://discord.com/api/v10"),
    MATTERMOST_URL: z.optional(url),
    MATTERMOST_BOT_TOKEN: optionalSecret,
    MATTERMOST_ACTION_SECRET: optionalSecret,
    MATTERMOST_COMMAND_TOKEN: optionalSecret,
  })
  .check(
    z.refine((env) => env.HANDRAISE_MIN_TIMEOUT_SECONDS <= env.HANDRAISE_MAX_TIMEOUT_SECONDS, {
      path: ["HANDRAISE_MIN_TIMEOUT_SECONDS"],
      message: "must not be above HANDRAISE_MAX_TIMEOUT_SECONDS",
    }),
    // Mattermost buttons are signed and call the webhook back: both are needed to render them.
    z.refine(
      (env) =>
        !(env.MATTERMOST_URL && env.MATTERMOST_BOT_TOKEN) ||
        (env.MATTERMOST_ACTION_SECRET?.length ?? 0) >= 16,
      {
        path: ["MATTERMOST_ACTION_SECRET"],
        message: "is required, at least 16 characters, when MATTERMOST_URL and MATTERMOST_BOT_TOKEN are set",
      },
    ),
    z.refine((env) => !(env.MATTERMOST_URL && env.MATTERMOST_BOT_TOKEN) || env.HANDRAISE_PUBLIC_URL, {
      path: ["HANDRAISE_PUBLIC_URL"],
      message: "is required when MATTERMOST_URL and MATTERMOST_BOT_TOKEN are set (buttons call it back)",
    }),
  );

export interface Config {
  tableName: string;
  /** Absent: the question API refuses every request (it never runs open). */
  apiKey: string | undefined;
  limits: { minTimeoutSeconds: number; maxTimeoutSeconds: number };
  retentionSeconds: number;
  consoleChannel: boolean;
  /** HANDRAISE_PUBLIC_URL: the HTTP API base URL, for controls that call a webhook back (Mattermost). */
  publicUrl: string | undefined;
  telegram: { botToken?: string; webhookSecret?: string; apiBase: string };
  slack: { botToken?: string; signingSecret?: string; apiBase: string };
  discord: { applicationId?: string; publicKey?: string; botToken?: string; apiBase: string };
  mattermost: { url?: string; botToken?: string; actionSecret?: string; commandToken?: string };
}

export class ConfigError extends Error {
  override readonly name = "ConfigError";
}

/**
 * Parses the environment. Empty strings count as unset, so a template can leave a variable blank.
 * @throws ConfigError naming every bad variable.
 */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const present = Object.fromEntries(
    Object.entries(env).filter(([, value]) => value !== undefined && value !== ""),
  );
  const parsed = envSchema.safeParse(present);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join(".")} ${issue.message}`);
    throw new ConfigError(`Invalid configuration: ${problems.join("; ")}`);
  }
  const e = parsed.data;
  return {
    tableName: e.HANDRAISE_TABLE,
    apiKey: e.HANDRAISE_API_KEY,
    limits: {
      minTimeoutSeconds: e.HANDRAISE_MIN_TIMEOUT_SECONDS,
      maxTimeoutSeconds: e.HANDRAISE_MAX_TIMEOUT_SECONDS,
    },
    retentionSeconds: e.HANDRAISE_RETENTION_DAYS * 86_400,
    consoleChannel: e.HANDRAISE_CONSOLE_CHANNEL === "true",
    publicUrl: e.HANDRAISE_PUBLIC_URL,
    telegram: definedOnly({
      botToken: e.TELEGRAM_BOT_TOKEN,
      webhookSecret: e.TELEGRAM_WEBHOOK_SECRET,
      apiBase: e.TELEGRAM_API_BASE,
    }),
    slack: definedOnly({
      botToken: e.SLACK_BOT_TOKEN,
      signingSecret: e.SLACK_SIGNING_SECRET,
      apiBase: e.SLACK_API_BASE,
    }),
    discord: definedOnly({
      applicationId: e.DISCORD_APPLICATION_ID,
      publicKey: e.DISCORD_PUBLIC_KEY,
      botToken: e.DISCORD_BOT_TOKEN,
      apiBase: e.DISCORD_API_BASE,
    }),
    mattermost: definedOnly({
      url: e.MATTERMOST_URL,
      botToken: e.MATTERMOST_BOT_TOKEN,
      actionSecret: e.MATTERMOST_ACTION_SECRET,
      commandToken: e.MATTERMOST_COMMAND_TOKEN,
    }),
  };
}

/** Drops undefined members so the result fits optional properties under exactOptionalPropertyTypes. */
function definedOnly<T extends Record<string, unknown>>(
  value: T,
): { [K in keyof T]: Exclude<T[K], undefined> } {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as {
    [K in keyof T]: Exclude<T[K], undefined>;
  };
}
