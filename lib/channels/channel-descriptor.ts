/**
 * What a channel is to the rest of Handraise: one folder `lib/channels/<name>/` whose `index.ts` exports one
 * ChannelDescriptor. Everything that used to name each platform in shared code — the channel names, the
 * owner pattern, the configuration, the secret catalog, each function's IAM policy, the wiring and the
 * webhook entries — is derived from the list of descriptors (docs/architecture.md, "Channels as modules").
 *
 * A descriptor has two halves, kept in two files of its folder so that a bundle carries only what it uses:
 * - its spec (`<name>-spec.ts` with `manifest.json`): name, owner format, configuration and secrets. Light —
 *   JSON, zod and nothing of the platform's code — because lib/config.ts and lib/questions, which every
 *   function imports, derive from it (lib/channels/channel-specs.ts lists them);
 * - the descriptor (`index.ts`): the spec plus how to build its client, its ChatChannel and its webhook,
 *   imported only by the functions that serve the channel (lib/channels/channel-list.ts lists them).
 */
import type { Logger } from "@aws-lambda-powertools/logger";
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from "aws-lambda";
import type { HandleInbound } from "../app/handle-inbound.ts";
import type { AwsService, SdkClientConfig } from "../aws-client-settings.ts";
import type { WebhookPreludeOptions } from "../http/webhook-prelude.ts";
import type { SecretName } from "../secrets/secret-catalog.ts";
import type { Secrets, SecretValue } from "../secrets/secrets.ts";
import type { QuestionStore } from "../store/question-store.ts";
import type { Telemetry } from "../telemetry/telemetry.ts";
import type { AnswerLinks } from "../web/answer-link.ts";
import type { ChannelSpec, VariableShape } from "./channel-spec.ts";
import type { ChatChannel } from "./chat-channel.ts";

/** What building a channel's platform client (one per process) may use. */
export interface ClientContext<Settings> {
  settings: Settings;
  /** A secret of the channel, read when first used (SSM deployed, the environment locally). */
  secret(name: SecretName): SecretValue;
  now: () => number;
  /**
   * The configuration of an AWS SDK client for `service` in this process: empty when deployed (the SDK reads
   * Lambda's environment), the local stack's own endpoint and credentials locally.
   */
  awsClientConfig(service: AwsService): SdkClientConfig;
  /**
   * An AWS SDK client traced like the function's own (X-Ray records its service and operation, never its
   * parameters); the function's outbound HTTP is otherwise not captured, so an unwrapped client is invisible.
   */
  traced<Client>(client: Client): Client;
}

/** What a channel's ChatChannel is built with. */
export interface ChannelContext<Settings> extends ClientContext<Settings> {
  /** The answer page's links, for the copies it posts. */
  links: AnswerLinks;
  /**
   * Told when the channel could not confirm a conversation as private (the platform's API failed or
   * refused: a missing scope, an outage). The copy is then posted as shared, without a link — fail closed —
   * and this says why, so an operator can fix what made every copy shared.
   */
  privacyUnconfirmed: (error: unknown) => void;
}

/** What a channel's webhook is built with, besides its client. */
export interface WebhookContext<Settings> extends ChannelContext<Settings> {
  secrets: Secrets;
  store: QuestionStore;
  handleInbound: HandleInbound;
  /** Reports what does not change the outcome: a notice, modal or edit the platform did not take. */
  onError: (error: unknown, context: string) => void;
  telemetry: Telemetry;
  logger: Pick<Logger, "warn">;
}

export type WebhookHandler = (event: APIGatewayProxyEventV2) => Promise<APIGatewayProxyStructuredResultV2>;

/** A webhook: the prelude's proof check (401 before anything is parsed) and the handler behind it. */
export interface ChannelWebhook {
  prelude: Omit<WebhookPreludeOptions, "now">;
  handler: WebhookHandler;
  /**
   * A `GET` at the same route by which the platform confirms the URL before it sends anything (WhatsApp's
   * subscription check): it carries no body to sign, proves itself its own way and changes nothing, so it
   * is answered without the prelude. Absent: a `GET` goes through the prelude like any request.
   */
  handshake?: WebhookHandler;
}

/** The whole channel: its spec and how it delivers. */
export interface ChannelDescriptor<
  Name extends string = string,
  Settings = unknown,
  Shape extends VariableShape = VariableShape,
  Client = unknown,
> extends ChannelSpec<Name, Settings, Shape> {
  /** Its platform client. Built once per process, shared by its ChatChannel and its webhook. */
  client(context: ClientContext<Settings>): Client;
  channel(client: Client, context: ChannelContext<Settings>): ChatChannel;
}

/** Ties a folder's spec to its client and channel, checking their types against each other. */
export function defineChannel<Name extends string, Settings, Shape extends VariableShape, Client>(
  spec: ChannelSpec<Name, Settings, Shape>,
  parts: Pick<ChannelDescriptor<Name, NoInfer<Settings>, Shape, Client>, "client" | "channel">,
): ChannelDescriptor<Name, Settings, Shape, Client> {
  return { ...spec, ...parts };
}

/**
 * A channel's webhook (its manifest's `webhook` function), exported beside the descriptor from its index.ts
 * (defineWebhook) — not a field of the descriptor, so that the functions that deliver to every channel
 * (lib/channels/channel-list.ts) carry no webhook code.
 */
export interface ChannelWebhookDefinition<Descriptor extends AnyChannel> {
  channel: Descriptor;
  create(
    client: ReturnType<Descriptor["client"]>,
    context: WebhookContext<Parameters<Descriptor["client"]>[0]["settings"]>,
  ): ChannelWebhook;
}

/** Any channel's descriptor, as lists hold them (each has its own settings and client types). */
// biome-ignore lint/suspicious/noExplicitAny: the lists hold descriptors of different settings and clients.
export type AnyChannel = ChannelDescriptor<string, any, any, any>;

/**
 * The client and channel of a platform whose API takes its base URL and a bot token (Telegram, Slack,
 * Discord): the client from the channel's `apiBase` setting and its secret `botToken`, the channel from the
 * client, the answer page's links and where to report a conversation it could not confirm private.
 */
export function botTokenChannel<Client>(
  createApi: (options: { apiBase: string; botToken: SecretValue; now: () => number }) => Client,
  botToken: SecretName,
  createChannel: (
    api: Client,
    links: AnswerLinks,
    privacyUnconfirmed: (error: unknown) => void,
  ) => ChatChannel,
) {
  return {
    client: ({ settings, secret, now }: ClientContext<{ apiBase: string }>): Client =>
      createApi({ apiBase: settings.apiBase, botToken: secret(botToken), now }),
    channel: (api: Client, { links, privacyUnconfirmed }: ChannelContext<unknown>) =>
      createChannel(api, links, privacyUnconfirmed),
  };
}

/**
 * A channel's webhook definition. Call it as `/* @__PURE__ *\/ defineWebhook(…)`: the annotation lets esbuild
 * drop it, and the platform's webhook code with it, from the bundles that do not use it.
 */
export function defineWebhook<Descriptor extends AnyChannel>(
  channel: Descriptor,
  create: ChannelWebhookDefinition<Descriptor>["create"],
): ChannelWebhookDefinition<Descriptor> {
  return { channel, create };
}
