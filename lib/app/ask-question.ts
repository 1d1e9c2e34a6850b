import { randomUUID } from "node:crypto";
import type { TaskCallbacks } from "../callbacks/task-callbacks.ts";
import { WAITER_PATTERN, waiterOf } from "../callbacks/waiter.ts";
import { hasGroupChats } from "../channels/channel-specs.ts";
import type { ChannelRegistry } from "../channels/chat-channel.ts";
import { normalizeAskUserArgs, questionIdFor, type TimeoutLimits } from "../questions/index.ts";
import {
  type AnswererEntry,
  answerersOf,
  contextSchema,
  type Delivery,
  type DeliveryTarget,
  type Escalation,
  MAX_COPIES,
  onlyRequesterAnswers,
  type QuestionRecord,
  votersOf,
} from "../questions/question-record.ts";
import type { CreateResult, NewQuestion, QuestionStore } from "../store/question-store.ts";
import { closedOf, idsOf, refOf, type Telemetry } from "../telemetry/telemetry.ts";
import { IdInUseError, InvalidArgumentError, SessionBusyError } from "./errors.ts";
import { retireDeliveries } from "./retire-deliveries.ts";
import { resumeRun, runHasEnded } from "./run-outcome.ts";
import { RUN_STOPPED, WAIT_ENDED } from "./wait-ended.ts";

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
  /** Present when a run waits on this question: a task token, or a durable callback (lib/callbacks/waiter.ts). */
  taskToken?: string | undefined;
  /**
   * When to remind the owner, in seconds after asking, each before the deadline (else InvalidArgumentError);
   * absent or null: the deployment's default reminders that fall before the deadline; `[]`: none.
   */
  remindAfterSeconds?: number[] | null | undefined;
  /** Who else may answer from `afterSeconds` (before the deadline) on, and where they are sent it then. */
  escalate?: Escalation | null | undefined;
  /** Where the result is POSTed, signed, when the question ends (checked by the caller: lib/notify). */
  notify?: { url: string } | undefined;
  /** Who asks: `api:<key name>` (the question API, /mcp) or `run` (an AskUser task, a durable run). */
  askedBy: string;
  /** Also list it under its asker (an `ask` key, whose listings hold only its own questions). */
  listUnderAsker?: boolean | undefined;
  /**
   * The person the agent acts for (owner form), who may never answer it: refused when no one else could
   * (InvalidArgumentError at `requestedBy`).
   */
  requestedBy?: string | null | undefined;
  /**
   * Who is asking and why, in the caller's words (never the model's): shown above the questions. Checked and
   * made canonical here, whichever way it came (InvalidArgumentError at `context`).
   */
  context?: string | null | undefined;
  /**
   * Who else may answer from the start (the caller's, never the model's): people, each reached at their own
   * `deliverTo`, and groups, posted one shared copy in their chat. Owners distinct (InvalidArgumentError at
   * `answerers.<i>.owner`).
   */
  answerers?: AnswererEntry[] | null | undefined;
  /**
   * How many agreeing answers close the question (default 1: the first); without a group, at most the number
   * of people who may answer (InvalidArgumentError at `quorum`).
   */
  quorum?: number | null | undefined;
  /**
   * Whether the caller may be told which question holds a busy session (SessionBusyError's `pendingId`): an
   * `ask` key may not learn of another key's question. Absent: it may.
   */
  mayName?: ((pending: QuestionRecord) => boolean) | undefined;
}

export interface AskQuestionDeps {
  store: QuestionStore;
  /** The channels this function delivers to: every enabled one. */
  channels: ChannelRegistry;
  /**
   * Asks Step Functions whether a run still waits (SendTaskHeartbeat): the run holding a session's slot, and
   * the run that asked, once its question is stored — and then whether that run has ended (DescribeExecution).
   */
  callbacks: TaskCallbacks;
  limits: TimeoutLimits;
  /** The deployment's default reminders (HANDRAISE_REMIND_AFTER_SECONDS), for requests that name none. */
  defaultRemindAfterSeconds?: readonly number[];
  now: () => number;
  /** Reports the question asked, each copy delivered or refused, a close (delivery_failed), and failures. */
  telemetry: Telemetry;
}

/**
 * Registers a question and delivers it to every target. The record carries its targets from the first
 * write, so a reply that arrives while a post is still in flight routes to it by chat.
 *
 * The outcome is the record: `pending` once at least one target has the question; `delivery_failed` (closed,
 * so the session is free and nothing can answer it) when no target took it, or when the posted copies could
 * not be recorded — those copies are then retired here, since nothing else knows where they are;
 * `cancelled` (`resolvedBy: "run-abort"`) when the Step Functions run that asked has ended.
 *
 * @example
 * const ask = createAskQuestion({ store, channels, callbacks, limits, now: Date.now });
 * const record = await ask({ args, owner: "telegram:42", deliverTo: [{ channel: "telegram", chatId: "42" }] });
 * @throws ToolInputError (bad arguments), InvalidArgumentError (a target channel that is not enabled, a
 *   reminder or escalation not before the deadline, a requester who would be the only one to answer, a
 *   context that breaks its rules: nothing stored), SessionBusyError, IdInUseError.
 */
export function createAskQuestion(deps: AskQuestionDeps) {
  const { store, channels, limits, now, telemetry } = deps;

  /** Posts to every target at once; the copies that were posted, each with its target's position. */
  async function deliverEverywhere(record: QuestionRecord, targets: Addressed[]): Promise<Posted[]> {
    const attempts = await Promise.allSettled(
      targets.map(({ target, answerer }) => {
        // Checked before anything was stored: every target's channel is in the registry.
        const channel = channels.get(target.channel);
        if (!channel) throw new Error(`channel "${target.channel}" is not enabled`);
        return channel.deliver(record, target, answerer);
      }),
    );
    const delivered: Posted[] = [];
    attempts.forEach((attempt, index) => {
      const target = targets[index]?.target;
      if (attempt.status === "fulfilled") {
        delivered.push({ index, delivery: attempt.value });
        telemetry.delivered(record, attempt.value);
      } else if (target) telemetry.deliveryRefused(record, target, attempt.reason);
    });
    return delivered;
  }

  /**
   * Creates the record. When the session's slot is held by a question nothing waits for any more — its
   * durable callback has ended, or its Step Functions token is dead and its run has ended — that question is
   * closed and the slot taken: a session is never blocked by a question nothing waits for. (A run that moved
   * on past a wait ended outside Handraise releases that question at its next model step.)
   */
  async function create(question: NewQuestion): Promise<CreateResult> {
    const created = await store.create(question, now());
    if (created.kind !== "session_busy" || created.pendingTaskToken === undefined) return created;
    if (created.pendingId === undefined) return created;
    const taskToken = created.pendingTaskToken;
    const alive = await deps.callbacks.heartbeat(taskToken).catch(() => "unknown" as const);
    if (alive !== "not_waiting") return created;
    // A dead token is not an ended run: a retried AskUser task's earlier token is dead while its retry is
    // about to take the question over. (A run that moved on releases its question at its next model step.)
    if (waiterOf(taskToken).kind === "task") {
      const holder = await store.get(created.pendingId, now());
      if (holder !== undefined && !(await runHasEnded(deps.callbacks, holder, telemetry))) return created;
    }
    // Only if it still waits on the token probed: a retried task may have just given it a live one.
    if (await store.release(created.pendingId, WAIT_ENDED, now(), { taskToken })) {
      telemetry.closed({ id: created.pendingId, ...WAIT_ENDED, status: "cancelled" });
    }
    return store.create(question, now());
  }

  /**
   * A run stopped while its AskUser task was in flight may have been handled before this question was
   * stored: the run-status consumer found nothing to cancel. So, once the record is durable (and posted), the
   * run is asked whether it still waits on the token (SendTaskHeartbeat), and if not, whether the run itself
   * ended (DescribeExecution): a retried task's earlier token is dead while its run goes on, and that run's
   * question must stay. Only an ended run's is cancelled as a stopped run's is, and the stream consumer
   * retires its copies. Between the two paths one sees it. Only Step Functions tokens: a durable execution
   * bounds its question itself (lib/durable/ask-user.ts).
   */
  async function closeIfRunStopped(record: QuestionRecord, taskToken: string): Promise<QuestionRecord> {
    if (record.status !== "pending" || waiterOf(taskToken).kind !== "task") return record;
    // Either call failing keeps the question: the run-status consumer still cancels a stopped run's question
    // it finds, and the deadline ends the rest.
    const alive = await deps.callbacks.heartbeat(taskToken).catch((error: unknown) => {
      telemetry.failed("asking whether the run still waits", error, idsOf(record));
      return "unknown" as const;
    });
    if (alive !== "not_waiting" || !(await runHasEnded(deps.callbacks, record, telemetry))) return record;
    // Only while it waits on the token probed: answered meanwhile, or a retried task's live token, it stays.
    const resolvedAtMs = now();
    if (!(await store.release(record.id, RUN_STOPPED, resolvedAtMs, { taskToken }))) return record;
    const closed = { ...record, ...RUN_STOPPED, resolvedAtMs };
    telemetry.closed(closedOf(closed));
    return closed;
  }

  return async function askQuestion(input: AskQuestionInput): Promise<QuestionRecord> {
    const record = await registerAndDeliver(input);
    return input.taskToken === undefined ? record : closeIfRunStopped(record, input.taskToken);
  };

  async function registerAndDeliver(input: AskQuestionInput): Promise<QuestionRecord> {
    const request = normalizeAskUserArgs(input.args, limits);
    if (input.taskToken !== undefined && !WAITER_PATTERN.test(input.taskToken)) {
      // Stored, it would fail every call that resumes the run, long after the asking.
      throw new InvalidArgumentError("taskToken", "taskToken must be a task token or a durable callback id.");
    }
    checkChannels(input.deliverTo, "deliverTo");
    const remindAfterSeconds = remindersOf(input, request.timeoutSeconds);
    const escalate = input.escalate ?? undefined;
    if (escalate) {
      checkBeforeDeadline(
        escalate.afterSeconds,
        request.timeoutSeconds,
        "escalate.afterSeconds",
        "afterSeconds",
      );
      checkChannels(escalate.deliverTo, "escalate.deliverTo");
    }
    const requestedBy = input.requestedBy ?? undefined;
    const askedAnswerers = input.answerers ?? [];
    checkAnswerers(input.owner, askedAnswerers);
    const asked = { owner: input.owner, createdAtMs: 0, ...(escalate && { escalate }), askedAnswerers };
    if (onlyRequesterAnswers({ ...asked, ...(requestedBy !== undefined && { requestedBy }) })) {
      throw new InvalidArgumentError(
        "requestedBy",
        "requestedBy is the only person who could answer, and the person a question is asked for may not answer it: ask someone else (owner), or escalate to someone else.",
      );
    }
    const quorum = input.quorum ?? 1;
    checkQuorum({ ...asked, ...(requestedBy !== undefined && { requestedBy }) }, quorum);
    const context = contextOf(input.context);
    const id = input.id ?? defaultId(input);
    const targets = addressed(input.owner, input.deliverTo, askedAnswerers);
    checkCopies(targets.length + (escalate?.deliverTo.length ?? 0));
    const created = await create({
      ...request,
      id,
      owner: input.owner,
      sessionKey: input.sessionKey,
      agentId: input.agentId,
      runId: input.runId,
      taskToken: input.taskToken,
      deliverTo: targets.map((t) => t.target),
      notify: input.notify,
      createdAtMs: now(),
      remindAfterSeconds,
      escalate,
      askedBy: input.askedBy,
      listUnderAsker: input.listUnderAsker,
      requestedBy,
      context,
      askedAnswerers,
      quorum,
    });
    if (created.kind === "id_in_use") throw new IdInUseError(id);
    if (created.kind === "closed_for_run") return resumeRetriedTask(created.record, input.taskToken);
    if (created.kind === "session_busy") throw new SessionBusyError(await nameable(created.pendingId, input));
    const record = created.record;
    if (created.kind === "created") telemetry.asked(record);
    // A retried registration of the same run keeps the copies already posted.
    if (created.kind === "token_replaced" && record.deliveries.some((d) => d.messageId !== undefined)) {
      return record;
    }
    if (targets.length === 0) return record;

    const posted = await deliverEverywhere(record, targets);
    const delivered = posted.map((p) => p.delivery);
    if (posted.length === 0) return closeUndelivered(record, []);
    let current: QuestionRecord | undefined;
    try {
      current = await store.recordDeliveries(id, posted, now());
    } catch (error) {
      telemetry.failed("recording the posted copies", error, idsOf(record));
      return closeUndelivered(record, delivered);
    }
    if (current && current.status !== "pending") {
      // Answered (or cancelled) while the posts were in flight: the stream consumer retired the copies it
      // knew of, which did not include these yet.
      await retireDeliveries(channels, { ...current, deliveries: delivered }, retireFailed(record));
    }
    return current ?? { ...record, deliveries: delivered };
  }

  /**
   * A retried AskUser task (same run, new token) whose question was answered (or cancelled) within the
   * retry's back-off: the earlier token no longer waits, so the new one is sent the stored outcome — else the
   * run would wait for an answer already given. The SDK's own retries cover a throttled send; one that still
   * fails throws, which ends the task through its Catch as a failed delivery although the question stays
   * answered (the AskUser state retries only Lambda's own errors). A durable execution's retried
   * registration keeps its callback, which the close (or the stream) resumes.
   */
  async function resumeRetriedTask(record: QuestionRecord, taskToken: string | undefined) {
    if (taskToken === undefined || waiterOf(taskToken).kind !== "task") return record;
    const outcome = await resumeRun(deps.callbacks, taskToken, record);
    telemetry.resumed(refOf(record), "retried_ask", outcome);
    return record;
  }

  /** The question holding a busy session, if the caller may know it (one read, on this refusal only). */
  async function nameable(
    pendingId: string | undefined,
    input: AskQuestionInput,
  ): Promise<string | undefined> {
    if (pendingId === undefined || input.mayName === undefined) return pendingId;
    const pending = await store.get(pendingId, now());
    return pending && input.mayName(pending) ? pendingId : undefined;
  }

  /** Every target's channel must be enabled here: nothing is stored otherwise. */
  function checkChannels(
    targets: { channel: string }[],
    path: string,
    at = (index: number) => `${path}.${index}.channel`,
  ): void {
    const unknown = targets.findIndex((target) => !channels.has(target.channel));
    if (unknown === -1) return;
    throw new InvalidArgumentError(
      at(unknown),
      `The channel "${targets[unknown]?.channel}" is not enabled in this deployment (enabled: ${[...channels.keys()].join(", ") || "none"}).`,
    );
  }

  /**
   * Each answerer once: a person is neither the owner nor listed twice, a group not listed twice; every
   * person's and group's channel enabled here, a group's one whose chats can be shared.
   */
  function checkAnswerers(owner: string, entries: AnswererEntry[]): void {
    const seen = new Set([owner]);
    const groups = new Set<string>();
    entries.forEach((entry, index) => {
      if (entry.group) {
        const chat = `${entry.group.channel}\n${entry.group.chatId}`;
        if (groups.has(chat)) {
          throw new InvalidArgumentError(
            `answerers.${index}.group`,
            `answerers lists the group ${entry.group.channel}:${entry.group.chatId} twice: list each group once.`,
          );
        }
        groups.add(chat);
        checkChannels([entry.group], "", () => `answerers.${index}.group.channel`);
        if (!hasGroupChats(entry.group.channel)) {
          throw new InvalidArgumentError(
            `answerers.${index}.group.channel`,
            `The channel "${entry.group.channel}" has no group chats (a chat there is one person's): name its people as answerers instead.`,
          );
        }
        return;
      }
      if (entry.owner === undefined) return;
      if (seen.has(entry.owner)) {
        throw new InvalidArgumentError(
          `answerers.${index}.owner`,
          entry.owner === owner
            ? `${entry.owner} is the question's owner, who may answer already: list only other people in answerers.`
            : `answerers lists ${entry.owner} twice: list each person once.`,
        );
      }
      seen.add(entry.owner);
      checkChannels(entry.deliverTo ?? [], `answerers.${index}.deliverTo`);
    });
  }

  /**
   * Without a group, a quorum can be reached only by as many people as may answer (the person the question is
   * asked for never counts): more would wait for nobody.
   */
  function checkQuorum(record: Parameters<typeof answerersOf>[0] & { requestedBy?: string }, quorum: number) {
    const voters = votersOf({ ...record, answerers: answerersOf(record) });
    if (voters === undefined || quorum <= voters.length) return;
    const aside = record.requestedBy === undefined ? "" : ", not counting the person it is asked for";
    throw new InvalidArgumentError(
      "quorum",
      `quorum must be at most the number of people who may answer (${voters.length}${aside}) when no group is among the answerers.`,
    );
  }

  /**
   * The question's reminders, in order: the request's own, each before the deadline; or the deployment's
   * defaults that fall before it (a default must not make a short question fail).
   */
  function remindersOf(input: AskQuestionInput, timeoutSeconds: number): number[] {
    const given = input.remindAfterSeconds;
    if (given === undefined || given === null) {
      return (deps.defaultRemindAfterSeconds ?? []).filter((seconds) => seconds < timeoutSeconds);
    }
    given.forEach((seconds, index) => {
      checkBeforeDeadline(
        seconds,
        timeoutSeconds,
        `remindAfterSeconds.${index}`,
        "each reminder in remindAfterSeconds",
      );
    });
    return [...new Set(given)].sort((a, b) => a - b);
  }

  /**
   * Closes a question no target took, or whose posted copies could not be recorded, as delivery_failed, and
   * retires those copies. If even the close fails, the error stands: the run's Catch reports
   * delivery_failed, and the question is released when the run moves on (or by its deadline).
   */
  async function closeUndelivered(record: QuestionRecord, posted: Delivery[]): Promise<QuestionRecord> {
    const closed = await store.close(record.id, { status: "delivery_failed" }, now());
    if (closed.kind === "closed") telemetry.closed(closedOf(closed.record));
    const final =
      closed.kind === "not_found" ? { ...record, status: "delivery_failed" as const } : closed.record;
    if (posted.length > 0) {
      await retireDeliveries(channels, { ...final, deliveries: posted }, retireFailed(record));
    }
    return final;
  }

  function retireFailed(record: QuestionRecord) {
    return (error: unknown, channel: string) =>
      telemetry.failed("retiring a posted copy", error, { ...idsOf(refOf(record)), channel });
  }
}

export type AskQuestion = ReturnType<typeof createAskQuestion>;

/** Where a copy goes, and the answerer it is posted for (whose link a private copy shows). */
interface Addressed {
  target: DeliveryTarget;
  answerer: string;
}

/**
 * A question goes to at most MAX_COPIES chats in all, so its copies (these, and those posted later, up to the
 * same cap) keep the record and its events within their limits.
 */
function checkCopies(targets: number): void {
  if (targets <= MAX_COPIES) return;
  throw new InvalidArgumentError(
    "deliverTo",
    `a question goes to at most ${MAX_COPIES} chats in all (deliverTo, the answerers' deliverTo and groups, and escalate.deliverTo): this one names ${targets}.`,
  );
}

/**
 * Every copy of a new question: the owner's targets, each person answerer's own (as an escalation owner's
 * copies are posted to them), and one shared copy in each group's chat (which shows no one's link) unless
 * the owner's targets already post it there.
 */
function addressed(owner: string, deliverTo: DeliveryTarget[], answerers: AnswererEntry[]): Addressed[] {
  const posted = (group: { channel: string; chatId: string }) =>
    deliverTo.some((target) => target.channel === group.channel && target.chatId === group.chatId);
  return [
    ...deliverTo.map((target) => ({ target, answerer: owner })),
    ...answerers.flatMap((entry) => {
      if (entry.group) return posted(entry.group) ? [] : [{ target: { ...entry.group }, answerer: owner }];
      const person = entry.owner;
      return person === undefined
        ? []
        : (entry.deliverTo ?? []).map((target) => ({ target, answerer: person }));
    }),
  ];
}

/** A copy that was posted, and the position in `deliverTo` of the target it was posted to. */
interface Posted {
  index: number;
  delivery: Delivery;
}

/** A reminder or escalation at or past the deadline could never happen while the question waits. */
function checkBeforeDeadline(seconds: number, timeoutSeconds: number, path: string, field: string): void {
  if (seconds < timeoutSeconds) return;
  throw new InvalidArgumentError(
    path,
    `${field} must be before the question's deadline: ${seconds} s is not (it times out after ${timeoutSeconds} s).`,
  );
}

/** The context, canonical (trimmed, `\n` line breaks); undefined when none was given. */
function contextOf(given: string | null | undefined): string | undefined {
  if (given === undefined || given === null) return undefined;
  const parsed = contextSchema.safeParse(given);
  if (parsed.success) return parsed.data;
  throw new InvalidArgumentError("context", `${parsed.error.issues[0]?.message ?? "context is not valid"}.`);
}

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
