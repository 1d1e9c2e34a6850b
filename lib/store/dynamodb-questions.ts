/**
 * The question item (`Q#<id>`, lib/store/question-item.ts): its every write is one conditional request, so
 * the first answer wins, a draft or a late delivery never revives an ended question, and a retried task
 * cannot take over another run's question. A put, vote or close carries its own `writeId`, so the SDK's
 * retry of one whose response was lost holds over its own earlier attempt instead of reading as beaten.
 */
import { marshall, unmarshall } from "@aws-sdk/util-dynamodb";
import { type Delivery, MAX_COPIES, type QuestionRecord } from "../questions/question-record.ts";
import {
  CONDITION_FAILED,
  conditionally,
  type DynamoDbTable,
  newWriteId,
  OWN_WRITE,
} from "./dynamodb-table.ts";
import { INDEX, keys } from "./keys.ts";
import {
  closedResult,
  newQuestionItem,
  pendingIndexKeys,
  type QuestionItem,
  toRecord,
} from "./question-item.ts";
import type { NewQuestion, Outcome, QuestionStore } from "./question-store.ts";

export type PutQuestionResult = { kind: "written"; item: QuestionItem } | { kind: "id_taken" };

/** The question store's calls that touch the question item alone, as the port describes them, and the store's own. */
export interface DynamoDbQuestions
  extends Pick<
    QuestionStore,
    | "get"
    | "close"
    | "saveDraft"
    | "vote"
    | "release"
    | "expire"
    | "recordResumeFailure"
    | "markStreamResume"
    | "streamResumeStarted"
  > {
  /** Writes a new pending question; `id_taken` when an item with its id exists. */
  put(question: NewQuestion): Promise<PutQuestionResult>;
  /**
   * A retried Step Functions task registers the same question again with a new token: the record, with
   * the token taken, while it is the same run's and pending; undefined otherwise.
   */
  replaceToken(question: NewQuestion, nowMs: number): Promise<QuestionRecord | undefined>;
  /** Deletes a question this process has just written and not yet delivered (its create is undone). */
  remove(id: string): Promise<void>;
  /** The stored item, task token included: for the store's own use, never returned to a caller. */
  item(id: string): Promise<QuestionItem | undefined>;
  /**
   * `recordDeliveries`' write: each posted copy in place of its target, by position (the messages are
   * indexed apart). Undefined when there is no such question.
   */
  replaceDeliveries: QuestionStore["recordDeliveries"];
  /**
   * `addDeliveries`' write: further copies appended while the list stays within `limit` (at most
   * MAX_COPIES). Undefined when there is no such question, or no room for them.
   */
  /**
   * `replaceCopy`'s write: `next` at `index`, while the copy there is still `previous` (its channel, chat and
   * message id: a platform may number messages per chat, as Telegram does). Undefined when there is no such
   * question, or that copy is no longer there.
   */
  replaceDeliveryAt(
    id: string,
    index: number,
    previous: Delivery & { messageId: string },
    next: Delivery,
    nowMs: number,
  ): Promise<QuestionRecord | undefined>;
  appendDeliveries(
    id: string,
    deliveries: Delivery[],
    limit: number,
    nowMs: number,
  ): Promise<QuestionRecord | undefined>;
}

export function createDynamoDbQuestions(table: DynamoDbTable, retentionSeconds: number): DynamoDbQuestions {
  const itemOf = (attributes: Parameters<typeof unmarshall>[0] | undefined) =>
    attributes ? (unmarshall(attributes) as QuestionItem) : undefined;

  async function item(id: string): Promise<QuestionItem | undefined> {
    const found = await table.get<QuestionItem>(keys.question(id));
    return found?.entity === "question" ? found : undefined;
  }

  async function get(id: string, nowMs: number): Promise<QuestionRecord | undefined> {
    const found = await item(id);
    return found ? toRecord(found, nowMs) : undefined;
  }

  /** What a conditional write on a question that was not pending learns: how it is now, if it exists. */
  async function notPending(id: string, nowMs: number) {
    const current = await get(id, nowMs);
    return current ? ({ kind: "not_pending", record: current } as const) : ({ kind: "not_found" } as const);
  }

  /**
   * The closing write: the outcome set, on `condition` (at least STILL_PENDING) or over its own earlier
   * attempt (OWN_WRITE). The item before the write, or undefined when the condition failed.
   */
  async function closeWhere(
    id: string,
    outcome: Outcome,
    nowMs: number,
    writeId: string,
    condition: string,
    more: Record<string, unknown> = {},
  ): Promise<QuestionItem | undefined> {
    const { set, values } = closingUpdate(outcome, nowMs, writeId);
    const out = await conditionally(() =>
      table.update(keys.question(id), {
        // Leaving the sparse indexes is what makes the question stop being listed as pending; the
        // token leaves the item here (the stream's old image still has it for the durable resume).
        // The stepper's draft goes too: once closed, only `answers` says what was answered.
        UpdateExpression: `SET ${set.join(", ")} REMOVE ${LEAVE_PENDING_INDEXES}, taskToken, draft, #step, drafts`,
        ConditionExpression: `(${condition}) OR ${OWN_WRITE}`,
        ExpressionAttributeNames: { "#status": "status", "#step": "step" },
        ExpressionAttributeValues: marshall({ ...values, ...more }, { removeUndefinedValues: true }),
        // The item before the write: its token is what resumes the run.
        ReturnValues: "ALL_OLD",
      }),
    );
    return out === CONDITION_FAILED ? undefined : itemOf(out.Attributes);
  }

  /** Why a vote's write did not hold: the question ended, is gone, or another vote landed first. */
  async function notCounted(id: string, nowMs: number) {
    const current = await get(id, nowMs);
    if (!current) return { kind: "not_found" } as const;
    if (current.status !== "pending") return { kind: "not_pending", record: current } as const;
    return { kind: "stale", record: current } as const;
  }

  /** Updates the question only if it exists: the item after the write, or undefined when there is none. */
  async function updateExisting(
    id: string,
    update: string,
    values: Record<string, unknown>,
    nowMs: number,
    condition?: string,
  ) {
    const out = await conditionally(() =>
      table.update(keys.question(id), {
        UpdateExpression: update,
        ConditionExpression:
          condition === undefined ? "attribute_exists(pk)" : `attribute_exists(pk) AND ${condition}`,
        ExpressionAttributeValues: marshall(values, { removeUndefinedValues: true }),
        ReturnValues: "ALL_NEW",
      }),
    );
    const after = out === CONDITION_FAILED ? undefined : itemOf(out.Attributes);
    return after && toRecord(after, nowMs);
  }

  return {
    async put(question) {
      const writeId = newWriteId();
      const written = { ...newQuestionItem(question, retentionSeconds), writeId };
      const out = await conditionally(() =>
        table.put({
          Item: marshall({ ...written, ...pendingIndexKeys(question) }, { removeUndefinedValues: true }),
          ConditionExpression: `attribute_not_exists(pk) OR ${OWN_WRITE}`,
          ExpressionAttributeValues: marshall({ ":writeId": writeId }),
        }),
      );
      return out === CONDITION_FAILED ? { kind: "id_taken" } : { kind: "written", item: written };
    },

    async replaceToken(question, nowMs) {
      if (question.runId === undefined || question.taskToken === undefined) return undefined;
      // A fresh writeId: the first invocation's put, if the SDK retries it after this, is no longer its own
      // write and cannot put its item (and token) back over this one.
      const out = await conditionally(() =>
        table.update(keys.question(question.id), {
          UpdateExpression: "SET taskToken = :token, writeId = :writeId",
          ConditionExpression: "#status = :pending AND runId = :runId AND expiresAtMs > :now",
          ExpressionAttributeNames: { "#status": "status" },
          ExpressionAttributeValues: marshall({
            ":token": question.taskToken,
            ":writeId": newWriteId(),
            ":pending": "pending",
            ":runId": question.runId,
            ":now": nowMs,
          }),
          ReturnValues: "ALL_NEW",
        }),
      );
      const replaced = out === CONDITION_FAILED ? undefined : itemOf(out.Attributes);
      return replaced && toRecord(replaced, nowMs);
    },

    remove: (id) => table.delete(keys.question(id)),
    item,
    get,

    async close(id, outcome, nowMs) {
      const writeId = newWriteId();
      const before = await closeWhere(id, outcome, nowMs, writeId, STILL_PENDING);
      return before ? closedResult(before, outcome, nowMs, writeId) : notPending(id, nowMs);
    },

    async saveDraft(id, draft, step, nowMs, person) {
      const out = await conditionally(() =>
        table.update(
          keys.question(id),
          person === undefined
            ? {
                UpdateExpression: "SET draft = :draft, #step = :step",
                ConditionExpression: STILL_PENDING,
                ExpressionAttributeNames: { "#status": "status", "#step": "step" },
                ExpressionAttributeValues: marshall({
                  ":draft": draft,
                  ":step": step,
                  ":pending": "pending",
                  ":now": nowMs,
                }),
                ReturnValues: "ALL_NEW",
              }
            : {
                // One person's entry alone: another's stepper, written at the same moment, is left as it is.
                UpdateExpression: "SET drafts.#person = :own",
                ConditionExpression: `${STILL_PENDING} AND attribute_exists(drafts)`,
                ExpressionAttributeNames: { "#status": "status", "#person": person },
                ExpressionAttributeValues: marshall({
                  ":own": { answers: draft, step },
                  ":pending": "pending",
                  ":now": nowMs,
                }),
                ReturnValues: "ALL_NEW",
              },
        ),
      );
      const after = out === CONDITION_FAILED ? undefined : itemOf(out.Attributes);
      return after ? { kind: "saved", record: toRecord(after, nowMs) } : notPending(id, nowMs);
    },

    async vote(id, votes, seen, nowMs, outcome) {
      // Counted from `seen` votes: the write holds only while there are still that many, so two votes
      // counted from the same read cannot both land (the second counts again), and only one can close.
      // A question whose first answer closes keeps no votes until an answerer's Skip: the first one counts from none.
      const counted =
        seen === 0 ? "(attribute_not_exists(votes) OR size(votes) = :seen)" : "size(votes) = :seen";
      const condition = `${STILL_PENDING} AND ${counted}`;
      const writeId = newWriteId();
      if (outcome === undefined) {
        const out = await conditionally(() =>
          table.update(keys.question(id), {
            // votedAtMs: what lets the table's stream pass this change to its consumer (question-item.ts).
            UpdateExpression: "SET votes = :votes, votedAtMs = :now, writeId = :writeId",
            ConditionExpression: `(${condition}) OR ${OWN_WRITE}`,
            ExpressionAttributeNames: { "#status": "status" },
            ExpressionAttributeValues: marshall(
              { ":votes": votes, ":seen": seen, ":pending": "pending", ":now": nowMs, ":writeId": writeId },
              { removeUndefinedValues: true },
            ),
            ReturnValues: "ALL_NEW",
          }),
        );
        const after = out === CONDITION_FAILED ? undefined : itemOf(out.Attributes);
        return after ? { kind: "recorded", record: toRecord(after, nowMs) } : notCounted(id, nowMs);
      }
      const closing = { ...outcome, votes };
      const before = await closeWhere(id, closing, nowMs, writeId, condition, { ":seen": seen });
      return before ? closedResult(before, closing, nowMs, writeId) : notCounted(id, nowMs);
    },

    async release(id, outcome, nowMs, options = {}) {
      const { set, values } = closingUpdate(outcome, nowMs, newWriteId());
      if (options.taskToken !== undefined) values[":token"] = options.taskToken;
      const out = await conditionally(() =>
        table.update(keys.question(id), {
          // No ReturnValues and the token untouched: the model step's role may write these attributes of
          // question items (writeId among them) and read none (serverless.yml, ModelStepRole). The dead
          // token stays on the item until TTL removes it; nothing can use it.
          UpdateExpression: `SET ${set.join(", ")} REMOVE ${LEAVE_PENDING_INDEXES}`,
          ConditionExpression: `(${
            options.taskToken === undefined ? STILL_PENDING : `${STILL_PENDING} AND taskToken = :token`
          }) OR ${OWN_WRITE}`,
          ExpressionAttributeNames: { "#status": "status" },
          ExpressionAttributeValues: marshall(values, { removeUndefinedValues: true }),
        }),
      );
      return out !== CONDITION_FAILED;
    },

    async expire(id, nowMs) {
      const out = await conditionally(() =>
        table.update(keys.question(id), {
          // Like `release`: nothing returned and the token untouched, so the model step's role (which
          // may write only these attributes and read none) can close the question of a timed-out task.
          UpdateExpression: `SET #status = :expired, resolvedAtMs = :now, writeId = :writeId REMOVE ${LEAVE_PENDING_INDEXES}`,
          // The mirror of STILL_PENDING: exactly one of an answer and the expiry can win.
          ConditionExpression: `(#status = :pending AND expiresAtMs <= :now) OR ${OWN_WRITE}`,
          ExpressionAttributeNames: { "#status": "status" },
          ExpressionAttributeValues: marshall({
            ":expired": "expired",
            ":pending": "pending",
            ":now": nowMs,
            ":writeId": newWriteId(),
          }),
        }),
      );
      return out !== CONDITION_FAILED;
    },

    replaceDeliveries(id, posted, nowMs) {
      // Each posted copy replaces its own target, by position: a copy appended meanwhile (a `/question`
      // re-post) stays, and a target that refused keeps its entry without a message id.
      const set = posted.map((p, i) => `deliveries[${p.index}] = :d${i}`);
      const values = Object.fromEntries(posted.map((p, i) => [`:d${i}`, p.delivery]));
      return updateExisting(id, `SET ${set.join(", ")}`, values, nowMs);
    },

    replaceDeliveryAt(id, index, previous, next, nowMs) {
      const at = `deliveries[${index}]`;
      return updateExisting(
        id,
        `SET ${at} = :next`,
        {
          ":next": next,
          ":channel": previous.channel,
          ":chat": previous.chatId,
          ":previous": previous.messageId,
        },
        nowMs,
        `${at}.channel = :channel AND ${at}.chatId = :chat AND ${at}.messageId = :previous`,
      );
    },

    appendDeliveries(id, deliveries, limit, nowMs) {
      // The item as it is after the append: a question that ended meanwhile has these copies to retire. The
      // list never grows past the limit (nor MAX_COPIES), however many appends race.
      return updateExisting(
        id,
        "SET deliveries = list_append(deliveries, :deliveries)",
        { ":deliveries": deliveries, ":most": Math.min(limit, MAX_COPIES) - deliveries.length },
        nowMs,
        "size(deliveries) <= :most",
      );
    },

    async recordResumeFailure(id, failure) {
      // Only a question that exists and has ended: this never creates an item or touches a pending one,
      // and a question in neither state is left as it is.
      await conditionally(() =>
        table.update(keys.question(id), {
          UpdateExpression: "SET resumeFailure = :failure",
          ConditionExpression: "attribute_exists(pk) AND #status <> :pending",
          ExpressionAttributeNames: { "#status": "status" },
          ExpressionAttributeValues: marshall({ ":failure": failure, ":pending": "pending" }),
        }),
      );
    },

    async markStreamResume(id, atMs) {
      // As recordResumeFailure: only a question that exists and has ended.
      await conditionally(() =>
        table.update(keys.question(id), {
          UpdateExpression: "SET streamResumeAtMs = :at",
          ConditionExpression: "attribute_exists(pk) AND #status <> :pending",
          ExpressionAttributeNames: { "#status": "status" },
          ExpressionAttributeValues: marshall({ ":at": atMs, ":pending": "pending" }),
        }),
      );
    },

    async streamResumeStarted(id) {
      return (await item(id))?.streamResumeAtMs !== undefined;
    },
  };
}

/** Leaving the sparse pending indexes is what makes a question stop being listed as pending. */
const LEAVE_PENDING_INDEXES = [
  INDEX.pendingByOwner.partitionKey,
  INDEX.pendingBySession.partitionKey,
  INDEX.pendingByAgent.partitionKey,
  INDEX.pendingByAsker.partitionKey,
].join(", ");

/** First answer wins: only a pending question whose deadline has not passed can be closed (`expire` mirrors it). */
const STILL_PENDING = "#status = :pending AND expiresAtMs > :now";

/** The SET clauses and values that record an outcome, by the write `writeId`. */
function closingUpdate(outcome: Outcome, nowMs: number, writeId: string) {
  const set = ["#status = :status", "resolvedAtMs = :now", "writeId = :writeId"];
  const values: Record<string, unknown> = {
    ":status": outcome.status,
    ":pending": "pending",
    ":now": nowMs,
    ":writeId": writeId,
  };
  if (outcome.status === "answered") {
    set.push("answers = :answers");
    values[":answers"] = outcome.answers;
  }
  if (outcome.status === "cancelled") {
    set.push("reason = :reason");
    values[":reason"] = outcome.reason;
  }
  if ((outcome.status === "answered" || outcome.status === "no_quorum") && outcome.votes !== undefined) {
    set.push("votes = :votes");
    values[":votes"] = outcome.votes;
  }
  if (outcome.status !== "delivery_failed" && outcome.resolvedBy !== undefined) {
    set.push("resolvedBy = :resolvedBy");
    values[":resolvedBy"] = outcome.resolvedBy;
  }
  if (outcome.status !== "delivery_failed" && outcome.resolvedByKey !== undefined) {
    set.push("resolvedByKey = :resolvedByKey");
    values[":resolvedByKey"] = outcome.resolvedByKey;
  }
  return { set, values };
}
