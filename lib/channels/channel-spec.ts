/**
 * The light half of a channel's descriptor (lib/channels/channel-descriptor.ts): its name, manifest (owner
 * format, secrets, webhook function) and configuration slice. Types and zod only, so that lib/config.ts,
 * lib/questions and lib/secrets can derive from every channel's spec without loading any platform code.
 */
import { httpUrl } from "../config-values.ts";
import * as z from "../zod.ts";

/**
 * Which functions read a channel secret: those that deliver to every enabled channel (`deliver`), those that
 * only edit posted copies once a question ends (`retire`), the channel's own webhook (`webhook`). Which
 * functions are of the first two kinds is infra/secrets.json's `channelReaders`.
 */
export type SecretReader = "deliver" | "retire" | "webhook";

/** One secret of a channel: `manifest.json` `secrets.<name>`, read by the TS and by the deploy CJS alike. */
export interface ChannelSecret {
  /** The environment variable that holds it locally. */
  env: string;
  /** What it is and where to find it (`npm run secrets:put`, `npm run doctor`). */
  about: string;
  /** May be absent: what needs it is then off (the channel itself stays on). */
  optional?: boolean;
  /** Its format, as the platform issues it (absent: one word, no spaces). */
  format?: { pattern: string; flags?: string; rule: string };
  readBy: SecretReader[];
}

/** The part of a channel that is plain data: `lib/channels/<name>/manifest.json`. */
export interface ChannelManifest {
  name: string;
  /**
   * Whether a chat of this channel can be shared by several people, so that a group (`answerers[].group`) can
   * answer in it. False where a chat is one person's (e-mail's address, WhatsApp's phone number): a group
   * there could never answer, so asking with one is refused.
   */
  groupChats: boolean;
  /**
   * For how many days the platform may send one event again when it was not acknowledged (WhatsApp: Meta, for
   * up to 7); absent: 2 (Telegram drops an update after 24 h). An event's dedupe claim is kept that long.
   */
  redeliversForDays?: number;
  /** The owner format `<name>:<id>`: an example and what the id is (error messages and docs). */
  owner: { example: string; id: string; idPattern?: string };
  /** Its webhook function, absent for a channel that receives nothing. */
  webhook?: string;
  /** How its webhook function deploys (infra/deploy/webhooks.cjs), with `webhook`. */
  webhookFunction?: WebhookFunction;
  /**
   * Locally, without HANDRAISE_CHANNELS, the channel is on when this environment variable is set — its bot
   * token, or a setting for a channel without secrets (absent: only when listed).
   */
  onLocally?: string;
  secrets: Record<string, ChannelSecret>;
  /**
   * Its settings that are not secrets, as deployed: each a serverless.yml parameter that the provider
   * environment passes on as `env`. infra/deploy/secret-access.cjs stops packaging when a `required` one is
   * empty while the channel is on; the spec's settings (`need`) require the same variables at start.
   */
  params?: ChannelParam[];
  /**
   * The deployment's own optional secrets (infra/secrets.json) this channel cannot work without, each with
   * why (e-mail: `link-secret`, since a mail is answered only through its link). While the channel is on,
   * `npm run secrets:put -- --channels <name>` stores them and `npm run doctor` reports one missing; the
   * functions still start without it (docs/architecture.md, "Channels as modules", says why).
   */
  needs?: Record<string, string>;
  /**
   * What the channel's readers may do on AWS besides reading its secrets (e-mail: `ses:SendEmail`), as IAM
   * statements infra/deploy/secret-access.cjs adds to each reader's policy. `${param:<name>}` in a value is the
   * deployment's parameter; `${AWS::…}` in the resource is CloudFormation's.
   */
  permissions?: ChannelPermission[];
}

/**
 * A webhook's deployment (`manifest.json` `webhookFunction`): infra/deploy/webhooks.cjs makes its function
 * (entry functions/<name>-webhook.ts, route `/webhooks/<name>`), its role and its URL output from it.
 */
export interface WebhookFunction {
  /** The methods of `/webhooks/<name>` (absent: POST). */
  methods?: string[];
  /** Seconds, when not the provider's. */
  timeout?: number;
  /** Whether it writes the message index (posts a question again, indexes a prompt): BatchWriteItem. */
  writesMessageIndex: boolean;
  /** Its reservation with reserve=on, unless params.reservedConcurrency names another. */
  reservedConcurrency: number;
  /** The description of its stack output `<Webhook>Url`. */
  urlOutput: string;
}

/** One deployment parameter of a channel: `manifest.json` `params[]`. */
export interface ChannelParam {
  /** Its name in serverless.yml `params` (`--param="<name>=<value>"`). */
  name: string;
  /** The provider environment variable it becomes (the spec's variable). */
  env: string;
  /** Must be set while the channel is on (absent or false: optional). */
  required?: boolean;
}

export interface ChannelPermission {
  sid: string;
  action: string;
  resource: string;
  condition?: Record<string, Record<string, string>>;
  readBy: SecretReader[];
}

/** A required setting of a channel that is on: its value, or "" after noting the problem. */
export type NeedSetting = (variable: string, value: string | undefined) => string;

/**
 * The channel's slice of the configuration: its environment variables (merged into lib/config.ts's
 * schema, so a malformed value is refused whether or not the channel is on) and, when it is on, its typed
 * settings. `env` of `settings` also holds the shared settings (HANDRAISE_PUBLIC_URL).
 */
export interface ChannelConfig<Shape extends VariableShape, Settings> {
  variables: Shape;
  settings(env: EnvOf<Shape> & SharedEnv, need: NeedSetting): Settings;
}

/** A channel's environment variables, by name, with the schema of each. */
export type VariableShape = Record<string, z.ZodMiniType>;
/** The parsed values of those variables (an optional one absent: undefined). */
export type EnvOf<Shape extends VariableShape> = { [K in keyof Shape]: z.output<Shape[K]> };
/** The settings every channel may read besides its own. */
export interface SharedEnv {
  HANDRAISE_PUBLIC_URL?: string | undefined;
}

/** The light half: everything lib/config.ts, lib/questions and lib/secrets derive. */
export interface ChannelSpec<
  Name extends string = string,
  Settings = unknown,
  Shape extends VariableShape = VariableShape,
> {
  name: Name;
  manifest: ChannelManifest;
  config: ChannelConfig<Shape, Settings>;
}

/** Checks a spec's types (the manifest JSON widens, the settings must match its variables). */
export function defineSpec<Name extends string, Settings, Shape extends VariableShape>(
  spec: ChannelSpec<Name, Settings, Shape>,
): ChannelSpec<Name, Settings, Shape> {
  return spec;
}

/** The settings of a channel whose only setting is its API's base URL (`<variable>`, default `fallback`). */
export function apiBaseConfig<Variable extends string>(variable: Variable, fallback: string) {
  const variables = { [variable]: z._default(httpUrl, fallback) } as Record<
    Variable,
    ReturnType<typeof z._default<typeof httpUrl>>
  >;
  return {
    variables,
    settings: (env: EnvOf<typeof variables>) => ({ apiBase: env[variable] }),
  } satisfies ChannelConfig<typeof variables, { apiBase: string }>;
}
