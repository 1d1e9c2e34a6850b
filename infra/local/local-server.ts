import { createServer as createNodeServer, type RequestListener, type Server } from "node:http";

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
