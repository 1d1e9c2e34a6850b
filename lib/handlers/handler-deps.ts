/**
 * What a function's handler factory (`lib/handlers/*.ts`) is given besides its configuration: its
 * observability and, for a function that delivers, the channels' descriptors (lib/channels/channel-list.ts).
 * `functions/*.ts` call a factory with `loadConfig()` and these; a process that runs handlers in-process can
 * call it with a configuration object of its own, and its own AWS services (`aws`; the local stack does,
 * infra/local/handler-factories.ts).
 */
import type { AwsClientSettings } from "../aws-client-settings.ts";
import type { AnyChannel } from "../channels/channel-descriptor.ts";
import type { Observability } from "../telemetry/observability.ts";

export interface HandlerDeps {
  observability: Observability;
  /** The AWS clients' Region, credentials and endpoints; absent, the SDK's defaults (Lambda's environment). */
  aws?: AwsClientSettings | undefined;
}

export interface DeliveringHandlerDeps extends HandlerDeps {
  channels: readonly AnyChannel[];
}
