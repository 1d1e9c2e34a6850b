import { randomUUID } from "node:crypto";
import type { ChannelRegistry } from "../channels/chat-channel.ts";
import { normalizeAskUserArgs, questionIdFor, type TimeoutLimits } from "../questions/index.ts";
import type { Delivery, DeliveryTarget, QuestionRecord } from "../store/question-record.ts";
import type { QuestionStore } from "../store/question-store.ts";
import { DeliveryFailedError, IdInUseError, SessionBusyError } from "./errors.ts";

export interface AskQuestionInput {
  /** The raw ask_user arguments (`questions`, `timeoutSeconds?`), normalized here. */
  args: unknown;
  /** Explicit id (HTTP API); otherwise derived from run/session + tool call, or random. */
  id?: string | undefined;
  owner: string;
  sessionKey?: string | undefined;
  agentId?: string | undefined;
  runId?: string | undefined;
  toolCallId?: string | undefined;
  deliverTo: DeliveryTarget[];
  /** Present when a Step Functions run waits on this question. */
  taskToken?: string | undefined;
}

export interface AskQuestionDeps {
  store: QuestionStore;
  channels: ChannelRegistry;
  limits: TimeoutLimits;
  now: () => number;
  /** Reports a target that refused delivery (never with the token). */
  onDeliveryError?: (target: DeliveryTarget, error: unknown) => void;
}

/**
 * Registers a question and delivers it to every target.
 *
 * @example
 * const ask = createAskQuestion({ store, channels, limits, now: Date.now });
 * const record = await ask({ args, owner: "telegram:42", deliverTo: [{ channel: "telegram", chatId: "42" }] });
 * @throws ToolInputError (bad arguments), SessionBusyError, IdInUseError, DeliveryFailedError (every target
 *   refused; the record is closed as delivery_failed).
 */
export function createAskQuestion(deps: AskQuestionDeps) {
  const { store, channels, limits, now } = deps;

  async function deliverEverywhere(record: QuestionRecord, targets: DeliveryTarget[]): Promise<Delivery[]> {
    const attempts = await Promise.allSettled(
      targets.map(async (target) => {
        const channel = channels.get(target.channel);
        if (!channel) throw new Error(`channel "${target.channel}" is not configured`);
        return channel.deliver(record, target);
      }),
    );
    const delivered: Delivery[] = [];
    attempts.forEach((attempt, index) => {
      const target = targets[index];
      if (attempt.status === "fulfilled") delivered.push(attempt.value);
      else if (target) deps.onDeliveryError?.(target, attempt.reason);
    });
    return delivered;
  }

  return async function askQuestion(input: AskQuestionInput): Promise<QuestionRecord> {
    const request = normalizeAskUserArgs(input.args, limits);
    const id = input.id ?? defaultId(input);
    const createdAtMs = now();
    const created = await store.create(
      {
        ...request,
        id,
        owner: input.owner,
        sessionKey: input.sessionKey,
        agentId: input.agentId,
        runId: input.runId,
        taskToken: input.taskToken,
        createdAtMs,
      },
      createdAtMs,
    );
    if (created.kind === "id_in_use") throw new IdInUseError(id);
    if (created.kind === "session_busy") throw new SessionBusyError(created.pendingId);
    // A retried registration of the same run keeps the copies already posted.
    if (created.kind === "token_replaced" && created.record.deliveries.length > 0) return created.record;

    const record = created.record;
    if (input.deliverTo.length === 0) return record;
    const delivered = await deliverEverywhere(record, input.deliverTo);
    if (delivered.length === 0) {
      await store.close(id, { status: "delivery_failed" }, now());
      if (input.sessionKey !== undefined) await store.releaseSession(input.sessionKey, id);
      throw new DeliveryFailedError(id);
    }
    await store.addDeliveries(id, delivered);
    return { ...record, deliveries: [...record.deliveries, ...delivered] };
  };
}

export type AskQuestion = ReturnType<typeof createAskQuestion>;

function defaultId(input: AskQuestionInput): string {
  if (input.toolCallId && (input.runId || input.sessionKey)) {
    return questionIdFor({
      runId: input.runId,
      sessionKey: input.sessionKey,
      agentId: input.agentId,
      toolCallId: input.toolCallId,
    });
  }
  return `ask_${randomUUID().replaceAll("-", "")}`;
}
