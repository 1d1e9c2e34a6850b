import type { APIGatewayProxyStructuredResultV2 } from "aws-lambda";
import { HttpError } from "./http-errors.ts";

/**
 * The webhook of a channel the deployment does not enable: every request is answered 404 CHANNEL_DISABLED
 * and nothing else happens — no secret is read, nothing is parsed or stored.
 */
export function channelDisabled(channel: string): () => Promise<APIGatewayProxyStructuredResultV2> {
  return async () => {
    throw new HttpError(404, "CHANNEL_DISABLED", `The ${channel} channel is not enabled in this deployment.`);
  };
}
