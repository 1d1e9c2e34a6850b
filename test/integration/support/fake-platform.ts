/**
 * A local fake of a chat platform's HTTP API: records every call (method path + JSON or form body) and
 * answers through a per-test responder. Handlers reach it through the `*_API_BASE` settings.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";

export interface RecordedCall {
  path: string;
  /** The last path segment: the API method (`sendMessage`, `chat.postMessage`, …). */
  method: string;
  /** The HTTP method (`POST`, `PATCH`, `PUT`, …), for REST-style APIs where the path alone is ambiguous. */
  verb: string;
  body: any;
  headers: Record<string, string | string[] | undefined>;
}

/** May answer late (a Promise), to play a slow platform. */
export type Responder = (
  call: RecordedCall,
) => { status?: number; body: unknown } | Promise<{ status?: number; body: unknown }>;

export interface FakePlatform {
  url: string;
  calls: RecordedCall[];
  callsTo(method: string): RecordedCall[];
  respond(responder: Responder): void;
  stop(): Promise<void>;
}

export async function startFakePlatform(responder: Responder): Promise<FakePlatform> {
  let respond = responder;
  const calls: RecordedCall[] = [];
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString("utf8");
    let body: unknown = text;
    try {
      body = text ? JSON.parse(text) : {};
    } catch {
      body = Object.fromEntries(new URLSearchParams(text));
    }
    const path = new URL(req.url ?? "/", "http://x").pathname;
    const call: RecordedCall = {
      path,
      method: path.split("/").pop() ?? "",
      verb: req.method ?? "GET",
      body,
      headers: req.headers,
    };
    calls.push(call);
    const reply = await respond(call);
    res.writeHead(reply.status ?? 200, { "content-type": "application/json" });
    res.end(JSON.stringify(reply.body));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    calls,
    callsTo: (method) => calls.filter((call) => call.method === method),
    respond: (next) => {
      respond = next;
    },
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
