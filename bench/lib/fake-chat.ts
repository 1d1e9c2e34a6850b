/**
 * The chat platforms' HTTP APIs as the benchmark needs them: one local server answering the Telegram Bot
 * API under `/telegram` and the Slack Web API under `/slack` the way the platforms answer success, keeping
 * the posts (their keyboards and blocks carry the controls a tap sends back).
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";

export interface ChatPost {
  platform: "telegram" | "slack";
  method: string;
  body: Record<string, unknown>;
}

export interface FakeChat {
  /** The origin (`http://127.0.0.1:<port>`): every request to it is a chat-API call. */
  origin: string;
  telegramApiBase: string;
  slackApiBase: string;
  posts: ChatPost[];
  stop(): Promise<void>;
}

export async function startFakeChat(): Promise<FakeChat> {
  const posts: ChatPost[] = [];
  let next = 1000;
  const server = createServer(async (request, response) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    let body: Record<string, unknown> = {};
    try {
      body = JSON.parse(Buffer.concat(chunks).toString("utf8") || "{}");
    } catch {
      body = {};
    }
    const path = new URL(request.url ?? "/", "http://x").pathname;
    const platform = path.startsWith("/telegram/") ? "telegram" : "slack";
    const method = path.split("/").pop() ?? "";
    posts.push({ platform, method, body });
    let reply: unknown;
    if (platform === "telegram") {
      reply =
        method === "sendMessage"
          ? { ok: true, result: { message_id: ++next, chat: { id: body.chat_id } } }
          : method === "getMe"
            ? { ok: true, result: { id: 123456, is_bot: true, username: "BenchBot" } }
            : { ok: true, result: true };
    } else {
      const ts = `1700000000.${String(++next).padStart(6, "0")}`;
      reply =
        method === "chat.postMessage"
          ? { ok: true, channel: body.channel, ts, message: {} }
          : method === "chat.postEphemeral"
            ? { ok: true, message_ts: ts }
            : { ok: true, channel: body.channel, ts: body.ts };
    }
    const text = JSON.stringify(reply);
    response.writeHead(200, {
      "content-type": "application/json",
      "content-length": Buffer.byteLength(text),
    });
    response.end(text);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  const origin = `http://127.0.0.1:${port}`;
  return {
    origin,
    telegramApiBase: `${origin}/telegram`,
    slackApiBase: `${origin}/slack`,
    posts,
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
