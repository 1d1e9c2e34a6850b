import { randomUUID } from "node:crypto";
import type { TaskCallbacks } from "../callbacks/task-callbacks.ts";
import type { ChannelRegistry } from "../channels/chat-channel.ts";
import { normalizeAskUserArgs, questionIdFor, type TimeoutLimits } from "../questions/index.ts";
import type { Delivery, DeliveryTarget, QuestionRecord } from "../store/question-record.ts";
import type { CreateResult, NewQuestion, QuestionStore } from "../store/question-store.ts";
import { IdInUseError, InvalidArgumentError, SessionBusyError } from "./errors.ts";
import { retireDeliveries } from "./retire-deliveries.ts";
import { WAIT_ENDED } from "./wait-ended.ts";

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
  /** The channels this function delivers to: every enabled one. */
  channels: ChannelRegistry;
  /** Asks Step Functions whether the run holding a session's slot still waits (SendTaskHeartbeat). */
  callbacks: TaskCallbacks;
  limits: TimeoutLimits;
  now: () => number;
  /** Reports a target that refused delivery (never with the token). */
  onDeliveryError?: (target: DeliveryTarget, error: unknown) => void;
  /** Reports what does not change the outcome: the posts could not be recorded, a copy not retired. */
  onError?: (error: unknown, context: string) => void;
}

/**
 * Registers a question and delivers it to every target. The record carries its targets from the first
 * write, so a reply that arrives while a post is still in flight routes to it by chat.
 *
 * The outcome is the record: `pending` once at least one target has the question; `delivery_failed` (closed,
 * so the session is free and nothing can answer it) when no target took it, or when the posted copies could
 * not be recorded — those copies are then retired here, since nothing else knows where they are.
 *
 * @example
 * const ask = createAskQuestion({ store, channels, callbacks, limits, now: Date.now });
 * const record = await ask({ args, owner: "telegram:42", deliverTo: [{ channel: "telegram", chatId: "42" }] });
 * @throws ToolInputError (bad arguments), InvalidArgumentError (a target channel that is not enabled: nothing
 *   stored), SessionBusyError, IdInUseError.
 */
export function createAskQuestion(deps: AskQuestionDeps) {
  const { store, channels, limits, now } = deps;
  const reportRetire = (error: unknown, channel: string) =>
    deps.onError?.(error, `retiring a ${channel} copy`);

  async function deliverEverywhere(record: QuestionRecord, targets: DeliveryTarget[]): Promise<Delivery[]> {
    const attempts = await Promise.allSettled(
      targets.map((target) => {
        // Checked before anything was stored: every target's channel is in the registry.
        const channel = channels.get(target.channel);
        if (!channel) throw new Error(`channel "${target.channel}" is not enabled`);
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

  /**
   * Creates the record. When the session's slot is held by a question whose run no longer waits on it (the
   * wait was ended outside Handraise: an operator's SendTaskFailure, a run that moved on), that question is
   * closed and the slot taken: a session is never blocked by a question nothing waits for.
   */
  async function create(question: NewQuestion): Promise<CreateResult> {
    const created = await store.create(question, now());
    if (created.kind !== "session_busy" || created.pendingTaskToken === undefined) return created;
    const alive = await deps.callbacks.heartbeat(created.pendingTaskToken).catch(() => "unknown" as const);
    if (alive !== "not_waiting") return created;
    await store.release(created.pendingId, WAIT_ENDED, now());
    return store.create(question, now());
  }

  return async function askQuestion(input: AskQuestionInput): Promise<QuestionRecord> {
    const request = normalizeAskUserArgs(input.args, limits);
    const unknown = input.deliverTo.findIndex((target) => !channels.has(target.channel));
    if (unknown !== -1) {
      const channel = input.deliverTo[unknown]?.channel;
      throw new InvalidArgumentError(
        `deliverTo.${unknown}.channel`,
        `The channel "${channel}" is not enabled in this deployment (enabled: ${[...channels.keys()].join(", ") || "none"}).`,
      );
    }
    const id = input.id ?? defaultId(input);
    const created = await create({
      ...request,
      id,
      owner: input.owner,
      sessionKey: input.sessionKey,
      agentId: input.agentId,
      runId: input.runId,
      taskToken: input.taskToken,
      deliverTo: input.deliverTo,
      createdAtMs: now(),
    });
    if (created.kind === "id_in_use") throw new IdInUseError(id);
    if (created.kind === "session_busy") throw new SessionBusyError(created.pendingId);
    const record = created.record;
    // A retried registration of the same run keeps the copies already posted.
    if (created.kind === "token_replaced" && record.deliveries.some((d) => d.messageId !== undefined)) {
      return record;
    }
    if (input.deliverTo.length === 0) return record;

    const delivered = await deliverEverywhere(record, input.deliverTo);
    if (delivered.length === 0) return closeUndelivered(record, []);
    let current: QuestionRecord | undefined;
    try {
      current = await store.recordDeliveries(id, delivered, now());
    } catch (error) {
      deps.onError?.(error, `recording the posted copies of question ${id}`);
      return closeUndelivered(record, delivered);
    }
    if (current && current.status !== "pending") {
      // Answered (or cancelled) while the posts were in flight: the stream consumer retired the copies it
      // knew of, which did not include these yet.
      await retireDeliveries(channels, { ...current, deliveries: delivered }, reportRetire);
    }
    return current ?? { ...record, deliveries: delivered };
  };

  /**
   * Closes a question no target took, or whose posted copies could not be recorded, as delivery_failed, and
   * retires those copies. If even the close fails, the error stands: the run's Catch reports
   * delivery_failed, and the question is released when the run moves on (or by its deadline).
   */
  async function closeUndelivered(record: QuestionRecord, posted: Delivery[]): Promise<QuestionRecord> {
    const closed = await store.close(record.id, { status: "delivery_failed" }, now());
    const final =
      closed.kind === "not_found" ? { ...record, status: "delivery_failed" as const } : closed.record;
    if (posted.length > 0) await retireDeliveries(channels, { ...final, deliveries: posted }, reportRetire);
    return final;
  }
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
