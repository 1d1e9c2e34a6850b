/**
 * A local fake of a chat platform's HTTP API: records every call (method path + JSON or form body) and
 * answers through a per-test responder. Handlers reach it through the `*_API_BASE` settings.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import {
  createServer as createHttp2Server,
  type Http2ServerRequest,
  type Http2ServerResponse,
} from "node:http2";
import type { AddressInfo } from "node:net";
import {
  discordMessageProblems,
  discordRefusal,
  gchatProblems,
  gchatRefusal,
  mattermostProblems,
  mattermostRefusal,
  slackProblems,
  slackRefusal,
  teamsProblems,
  teamsRefusal,
  telegramProblems,
  telegramRefusal,
  whatsappProblems,
  whatsappRefusal,
} from "../../support/platform-sizes.ts";

export interface RecordedCall {
  path: string;
  /** The last path segment: the API method (`sendMessage`, `chat.postMessage`, …). */
  method: string;
  /** The HTTP method (`POST`, `PATCH`, `PUT`, …), for REST-style APIs where the path alone is ambiguous. */
  verb: string;
  /** The query string's parameters (a `GET`'s arguments). */
  query: Record<string, string>;
  body: any;
  headers: Record<string, string | string[] | undefined>;
  /** When it arrived (epoch ms). */
  at: number;
}

/** An answer: status (200), JSON body, and any headers besides `content-type: application/json`. */
export interface FakeReply {
  status?: number;
  body: unknown;
  headers?: Record<string, string>;
}

/** May answer late (a Promise), to play a slow platform. */
export type Responder = (call: RecordedCall) => FakeReply | Promise<FakeReply>;

/** The platforms whose size limits a fake can hold calls to (lib/channels/platform-limits.ts). */
export type SizedPlatform = "telegram" | "slack" | "discord" | "mattermost" | "teams" | "whatsapp" | "gchat";

/**
 * What `platform` answers a call that breaks one of its size limits, as the platform does (Telegram's
 * `Bad Request: message is too long`, Slack's `invalid_arguments`, Discord's `Invalid Form Body`,
 * Mattermost's `model.post.is_valid.msg.app_error`, the Bot Connector's 413 `MessageSizeTooBig`, the Graph
 * API's `(#100) Invalid parameter`, the Chat API's 400 `INVALID_ARGUMENT`); undefined
 * for a call within them.
 */
export function sizeRefusal(platform: SizedPlatform, call: RecordedCall): FakeReply | undefined {
  switch (platform) {
    case "telegram": {
      const problems = telegramProblems(call.method, call.body);
      return problems.length === 0 ? undefined : telegramRefusal(problems);
    }
    case "slack": {
      const problems = slackProblems(call.method, call.body);
      return problems.length === 0 ? undefined : slackRefusal(problems);
    }
    case "discord": {
      const writes = call.verb === "POST" || call.verb === "PATCH";
      const problems =
        writes && /\/messages(\/[^/]+)?$/.test(call.path) ? discordMessageProblems(call.body) : [];
      return problems.length === 0 ? undefined : discordRefusal(problems);
    }
    case "mattermost": {
      const problems = mattermostProblems(call.path, call.body);
      return problems.length === 0 ? undefined : mattermostRefusal(call.path, problems);
    }
    case "teams": {
      const writes = call.verb === "POST" || call.verb === "PUT";
      const problems = writes && /\/activities/.test(call.path) ? teamsProblems(call.body) : [];
      return problems.length === 0 ? undefined : teamsRefusal(problems);
    }
    case "whatsapp": {
      const problems = call.verb === "POST" && call.method === "messages" ? whatsappProblems(call.body) : [];
      return problems.length === 0 ? undefined : whatsappRefusal(problems);
    }
    case "gchat": {
      const writes = call.verb === "POST" || call.verb === "PATCH";
      const problems = writes && /\/messages/.test(call.path) ? gchatProblems(call.body) : [];
      return problems.length === 0 ? undefined : gchatRefusal(problems);
    }
  }
}

export interface FakePlatform {
  url: string;
  calls: RecordedCall[];
  /** The calls refused for breaking a size limit (with `limits`), each also in `calls`. */
  refused: RecordedCall[];
  callsTo(method: string): RecordedCall[];
  respond(responder: Responder): void;
  /**
   * The first call `matches` gets `reply` (a 429 with the platform's own body and headers, say); later calls
   * go to the responder as before.
   */
  answerOnce(matches: (call: RecordedCall) => boolean, reply: FakeReply): void;
  stop(): Promise<void>;
}

/**
 * `http2`: speak HTTP/2 without TLS (prior knowledge), as the AWS SDK's Bedrock Runtime client does with an
 * `http://` endpoint (its default handler is HTTP/2). `limits`: refuse a call over one of that platform's
 * size limits as the platform does (`sizeRefusal`), before any responder sees it.
 */
export async function startFakePlatform(
  responder: Responder,
  options: { http2?: boolean; limits?: SizedPlatform } = {},
): Promise<FakePlatform> {
  let respond = responder;
  const once: { matches: (call: RecordedCall) => boolean; reply: FakeReply }[] = [];
  const calls: RecordedCall[] = [];
  const refused: RecordedCall[] = [];
  const handle = async (
    req: IncomingMessage | Http2ServerRequest,
    res: ServerResponse | Http2ServerResponse,
  ): Promise<void> => {
    const at = Date.now();
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString("utf8");
    let body: unknown = text;
    try {
      body = text ? JSON.parse(text) : {};
    } catch {
      body = Object.fromEntries(new URLSearchParams(text));
    }
    const url = new URL(req.url ?? "/", "http://x");
    const path = url.pathname;
    const call: RecordedCall = {
      path,
      method: path.split("/").pop() ?? "",
      verb: req.method ?? "GET",
      query: Object.fromEntries(url.searchParams),
      body,
      headers: req.headers,
      at,
    };
    calls.push(call);
    const tooLarge = options.limits === undefined ? undefined : sizeRefusal(options.limits, call);
    if (tooLarge) refused.push(call);
    const special = once.findIndex((entry) => entry.matches(call));
    const reply =
      tooLarge ??
      (special >= 0 ? (once.splice(special, 1)[0] as (typeof once)[0]).reply : await respond(call));
    // A client that gave up (timed out) is gone: nothing to answer.
    if (res.destroyed || (res as Http2ServerResponse).stream?.destroyed) return;
    res.writeHead(reply.status ?? 200, { "content-type": "application/json", ...reply.headers });
    res.end(JSON.stringify(reply.body));
  };
  const server = options.http2 ? createHttp2Server(handle) : createServer(handle);
  const sessions = new Set<{ destroy(): void }>();
  server.on("session", (session: { destroy(): void; on(event: "close", listener: () => void): void }) => {
    sessions.add(session);
    session.on("close", () => sessions.delete(session));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    calls,
    refused,
    callsTo: (method) => calls.filter((call) => call.method === method),
    respond: (next) => {
      respond = next;
    },
    answerOnce: (matches, reply) => {
      once.push({ matches, reply });
    },
    stop: () =>
      new Promise<void>((resolve) => {
        if ("closeAllConnections" in server) server.closeAllConnections();
        for (const session of sessions) session.destroy();
        server.close(() => resolve());
      }),
  };
}
