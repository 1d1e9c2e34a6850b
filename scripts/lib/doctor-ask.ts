/**
 * `npm run doctor -- --ask <owner>`: one real question end to end, over the HTTP API as any client asks — it
 * is stored, posted to the owner's chats, answered there (or on its page) and the answer comes back through
 * `GET /questions/{id}/wait`. Any answer (or a Skip) proves the round trip; a question nobody answers in time
 * ends `expired`. Interrupted, the question is cancelled first.
 */
import { randomBytes } from "node:crypto";
import type { DeliveryTarget } from "../../lib/questions/question-record.ts";
import { type Check, fail, pass } from "./doctor-checks.ts";
import { type StackClient, type StackReply, statusOf, unreachable } from "./doctor-stack.ts";

export interface AskSettings {
  owner: string;
  deliverTo: DeliveryTarget[];
  timeoutSeconds: number;
}

export interface AskIo {
  print(check: Check): void;
  /** Progress for the person watching (stderr). */
  say(text: string): void;
  interrupt: AbortSignal;
  sleep(ms: number, signal: AbortSignal): Promise<void>;
  now(): number;
}

/** The question itself: what it is for, and that any answer will do. */
const QUESTION = {
  id: "works",
  header: "Doctor check",
  question: "npm run doctor is checking that questions reach you and answers come back. Any answer will do.",
  options: [{ label: "It reached me" }, { label: "Something looks wrong" }],
};

/** One wait request (the route's own ceiling, under API Gateway's 30 s), and the slack for its response. */
const WAIT_MS = 25_000;
const WAIT_SLACK_MS = 15_000;
/** How long past the deadline passing problems (a 429, a 502, a lost connection) are tried again. */
const RETRY_PAST_DEADLINE_MS = 60_000;

/** Whether the round trip worked; `interrupted` when the process was asked to stop (the question is cancelled). */
export async function askEndToEnd(
  client: StackClient,
  settings: AskSettings,
  io: AskIo,
): Promise<{ ok: boolean; interrupted?: boolean }> {
  const { owner } = settings;
  // Chosen here, so an interrupt while the question is being created can still cancel it.
  const id = `doctor_${randomBytes(12).toString("hex")}`;
  const startedMs = io.now();
  let created: StackReply;
  try {
    created = await client.call("POST", "/questions", {
      body: {
        id,
        owner,
        questions: [QUESTION],
        timeoutSeconds: settings.timeoutSeconds,
        ...(settings.deliverTo.length > 0 && { deliverTo: settings.deliverTo }),
      },
      signal: io.interrupt,
    });
  } catch (error) {
    if (io.interrupt.aborted) return cancel(client, id, io);
    io.print(fail(`the question to ${owner} could not be asked (${unreachable(error)})`, "run it again"));
    return { ok: false };
  }
  if (created.status !== 201) {
    io.print(
      fail(
        `the API refused the question to ${owner}: ${statusOf(created)}: ${created.body.error?.message ?? ""}`.trim(),
        "fix --ask <owner> or --deliver-to <channel>:<chat id> (docs/channels.md names each platform's ids)",
      ),
    );
    return { ok: false };
  }
  if (io.interrupt.aborted) return cancel(client, id, io);
  const expiresAtMs = created.body.expiresAtMs ?? startedMs + settings.timeoutSeconds * 1000;
  const link = created.body.answerUrl ? `; answer link ${created.body.answerUrl}` : "";
  const deliveries = (await read(client, id))?.deliveries ?? [];
  if (created.body.status === "delivery_failed") {
    io.print(
      fail(
        `the question to ${owner} (${id}) reached no chat: ${deliveries.map((d) => `${d.channel}:${d.chatId}`).join(", ") || "no target"} refused it`,
        "see the channel lines above, and check the owner's chat ids (--deliver-to <channel>:<chat id>; docs/channels.md)",
      ),
    );
    return { ok: false };
  }
  const posted = deliveries.map((d) =>
    d.messageId === undefined
      ? `${d.channel}:${d.chatId} (not posted)`
      : `${d.channel}:${d.chatId} (message ${d.messageId})`,
  );
  io.print(
    pass(
      `asked ${owner} question ${id}: ${posted.length > 0 ? `posted to ${posted.join(", ")}` : "in no chat (answer it by its link)"}${link}`,
    ),
  );
  io.say(
    `Waiting until ${new Date(expiresAtMs).toISOString()} for ${owner} to answer (Ctrl-C cancels the question)…`,
  );

  let failures = 0;
  for (;;) {
    if (io.interrupt.aborted) return cancel(client, id, io);
    let reply: StackReply | undefined;
    let problem: string;
    try {
      reply = await client.call("GET", `/questions/${id}/wait?timeoutMs=${WAIT_MS}`, {
        timeoutMs: WAIT_MS + WAIT_SLACK_MS,
        signal: io.interrupt,
      });
      problem = statusOf(reply);
    } catch (error) {
      if (io.interrupt.aborted) return cancel(client, id, io);
      problem = unreachable(error);
    }
    if (reply?.status === 200) {
      failures = 0;
      const status = reply.body.status ?? "unknown";
      if (status === "pending") continue;
      const seconds = Math.round((io.now() - startedMs) / 1000);
      const by = (await read(client, id))?.resolvedBy;
      // A Skip is a reply too: the person saw the question, and what they did came back.
      const outcome =
        status === "answered" ? "answered" : reply.body.reason === "skipped" ? "skipped" : undefined;
      if (outcome !== undefined) {
        io.print(pass(`${outcome}${by ? ` by ${by}` : ""} after ${seconds} s`));
        return { ok: true };
      }
      io.print(
        status === "expired"
          ? fail(
              `no answer from ${owner} within ${settings.timeoutSeconds} s: question ${id} expired`,
              posted.length > 0
                ? `check that ${owner} gets the bot's messages where it was posted (the lines above), or allow more time with --timeout <seconds>`
                : "answer it by its link within the time, post it to a chat with --deliver-to <channel>:<chat id>, or allow more time with --timeout <seconds>",
            )
          : fail(
              `question ${id} ended ${status}${by ? ` by ${by}` : ""} without an answer`,
              "run it again and answer it",
            ),
      );
      return { ok: false };
    }
    const passing = reply === undefined || reply.status === 429 || reply.status >= 500;
    if (!passing || io.now() > expiresAtMs + RETRY_PAST_DEADLINE_MS) {
      io.print(fail(`how question ${id} ended could not be read (${problem})`, "run it again"));
      return { ok: false };
    }
    failures += 1;
    await io.sleep(reply?.retryAfterMs ?? Math.min(15_000, 1000 * 2 ** (failures - 1)), io.interrupt);
  }
}

async function read(
  client: StackClient,
  id: string,
): Promise<NonNullable<StackReply["body"]["question"]> | undefined> {
  try {
    const reply = await client.call("GET", `/questions/${id}`);
    return reply.status === 200 ? reply.body.question : undefined;
  } catch {
    return undefined;
  }
}

/** Cancels the doctor's question (it may not be stored yet), so that nobody is left with it. */
async function cancel(client: StackClient, id: string, io: AskIo): Promise<{ ok: false; interrupted: true }> {
  try {
    const reply = await client.call("POST", `/questions/${id}/cancel`, {
      body: { reason: "cancelled", resolvedBy: "doctor-interrupted" },
    });
    io.say(
      reply.status === 200
        ? `Interrupted: question ${id} is cancelled.`
        : reply.status === 404
          ? `Interrupted before question ${id} was stored: nothing to cancel.`
          : `Interrupted; question ${id} was not cancelled (${statusOf(reply)}).`,
    );
  } catch (error) {
    io.say(`Interrupted; cancelling question ${id} failed (${unreachable(error)}).`);
  }
  return { ok: false, interrupted: true };
}
