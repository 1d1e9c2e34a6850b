/**
 * What a function's handler factory (`lib/handlers/*.ts`) is given besides its configuration: its
 * observability and, for a function that delivers, the channels' descriptors (lib/channels/channel-list.ts).
 * `functions/*.ts` call a factory with `loadConfig()` and these; a process that runs handlers in-process can
 * call it with a configuration object of its own, and its own AWS services (`aws`; the local stack does,
 * infra/local/handler-factories.ts) or its own ports (`ports`; test/support/in-process-stack.ts does).
 */
import type { AwsClientSettings } from "../aws-client-settings.ts";
import type { AnyChannel } from "../channels/channel-descriptor.ts";
import type { Observability } from "../telemetry/observability.ts";
import type { ServicePorts } from "../wiring.ts";

export interface HandlerDeps {
  observability: Observability;
  /** The AWS clients' Region, credentials and endpoints; absent, the SDK's defaults (Lambda's environment). */
  aws?: AwsClientSettings | undefined;
  /** Ports in place of the ones the wiring builds (a test running the handlers in one process); absent, none. */
  ports?: ServicePorts | undefined;
}

export interface DeliveringHandlerDeps extends HandlerDeps {
  channels: readonly AnyChannel[];
}
