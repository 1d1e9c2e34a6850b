import {
  createServer as createNodeServer,
  type RequestListener,
  type Server,
  type ServerResponse,
} from "node:http";

/**
 * An HTTP server of the local stack. The AWS SDK's and fetch's agents keep idle sockets and reuse them; a
 * server that closes an idle socket after Node's default 5 s can do so just as a request is written to it,
 * and the client reads ECONNRESET. AWS's endpoints keep connections far longer, so the local ones do too.
 */
export function createServer(listener: RequestListener): Server {
  const server = createNodeServer(listener);
  server.keepAliveTimeout = 120_000;
  server.headersTimeout = 121_000;
  return server;
}

/**
 * A reply of an AWS REST JSON API (SES v2, Scheduler, Lambda's durable callbacks): the JSON body and, for an
 * error, its code in `x-amzn-errortype`, where the SDK reads it. Nothing once a reply was sent.
 */
export function replyRestJson(res: ServerResponse, status: number, body: unknown, errorType?: string): void {
  if (res.headersSent) return;
  res.writeHead(status, {
    "content-type": "application/json",
    ...(errorType !== undefined && { "x-amzn-errortype": errorType }),
  });
  res.end(JSON.stringify(body));
}
