import {
  type AttributeValue,
  BatchWriteItemCommand,
  ConditionalCheckFailedException,
  type ConsumedCapacity,
  DeleteItemCommand,
  type DynamoDBClient,
  GetItemCommand,
  PutItemCommand,
  QueryCommand,
  UpdateItemCommand,
} from "@aws-sdk/client-dynamodb";
import { marshall, unmarshall } from "@aws-sdk/util-dynamodb";
import { type Delivery, type QuestionRecord, statusAt } from "../questions/question-record.ts";
import { CREATED_ORDER, INDEX, keys } from "./keys.ts";
import { type QuestionItem, toListedRecord, toRecord } from "./question-item.ts";
import type {
  CloseResult,
  CreateResult,
  NewQuestion,
  Outcome,
  PendingFilter,
  PendingFilters,
  PendingPage,
  QuestionStore,
  SaveDraftResult,
} from "./question-store.ts";

export interface DynamoDbQuestionStoreOptions {
  client: DynamoDBClient;
  tableName: string;
  /** How long a record stays after its deadline before TTL removes it. */
  retentionSeconds: number;
  /** Called with the capacity each request consumed (the benchmark counts cost with it). */
  onConsumedCapacity?: (capacity: ConsumedCapacity) => void;
}

interface SessionSlotItem {
  pk: string;
  entity: "sessionSlot";
  questionId: string;
  expiresAtMs: number;
  expiresAt: number;
}

/** How many times a stale session slot is taken over before giving up (another writer keeps winning). */
const SLOT_ATTEMPTS = 3;

/** The most items one Query of a paged listing asks for. */
const MAX_QUERY_LIMIT = 400;

/** The record attributes a paged listing filters on, each projected into every pending index. */
const FILTER_ATTRIBUTES = ["owner", "sessionKey", "agentId"] as const;

/**
 * The pending index a paged listing reads, with the partition it reads and the filter that partition
 * already satisfies: the session's when given (it holds at most one pending question), then the agent's,
 * then the owner's. The other filters become a FilterExpression.
 */
function pendingIndexFor(filters: PendingFilters) {
  if (filters.sessionKey !== undefined) {
    return {
      index: INDEX.pendingBySession,
      value: keys.sessionIndex(filters.sessionKey),
      covers: "sessionKey" as const,
    };
  }
  if (filters.agentId !== undefined) {
    return {
      index: INDEX.pendingByAgent,
      value: keys.agentIndex(filters.agentId),
      covers: "agentId" as const,
    };
  }
  if (filters.owner !== undefined) {
    return { index: INDEX.pendingByOwner, value: keys.ownerIndex(filters.owner), covers: "owner" as const };
  }
  throw new RangeError("a pending listing needs at least one of owner, sessionKey or agentId");
}

/**
 * QuestionStore on one DynamoDB table (infra/table.json), without transactions: each step is a single
 * conditional write, and a crash between two steps heals itself (a stale session slot is taken over once
 * its question has ended or expired).
 */
export function createDynamoDbQuestionStore(options: DynamoDbQuestionStoreOptions): QuestionStore {
  const { client, tableName: TableName, retentionSeconds } = options;
  const capacity = { ReturnConsumedCapacity: options.onConsumedCapacity ? ("TOTAL" as const) : undefined };
  const track = <T extends { ConsumedCapacity?: ConsumedCapacity | ConsumedCapacity[] | undefined }>(
    out: T,
  ): T => {
    const consumed = out.ConsumedCapacity;
    if (consumed && options.onConsumedCapacity) {
      for (const c of Array.isArray(consumed) ? consumed : [consumed]) options.onConsumedCapacity(c);
    }
    return out;
  };
  const ttlFor = (expiresAtMs: number) => Math.ceil(expiresAtMs / 1000) + retentionSeconds;

  async function getItem<T>(pk: string): Promise<T | undefined> {
    const out = track(
      await client.send(
        new GetItemCommand({ TableName, Key: { pk: { S: pk } }, ConsistentRead: true, ...capacity }),
      ),
    );
    return out.Item ? (unmarshall(out.Item) as T) : undefined;
  }

  /** Runs a conditional write; false when its condition failed, every other error rethrown. */
  async function conditionally(write: () => Promise<unknown>): Promise<boolean> {
    try {
      await write();
      return true;
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) return false;
      throw error;
    }
  }

  /** Writes a new question; the item as written, or undefined when the id is taken. */
  async function putQuestion(question: NewQuestion): Promise<QuestionItem | undefined> {
    const expiresAtMs = question.createdAtMs + question.timeoutSeconds * 1000;
    const item: QuestionItem = {
      pk: keys.question(question.id),
      entity: "question",
      id: question.id,
      status: "pending",
      questions: question.questions,
      owner: question.owner,
      ...(question.sessionKey !== undefined && { sessionKey: question.sessionKey }),
      ...(question.agentId !== undefined && { agentId: question.agentId }),
      ...(question.runId !== undefined && { runId: question.runId }),
      ...(question.taskToken !== undefined && { taskToken: question.taskToken }),
      ...(question.notify !== undefined && { notify: question.notify }),
      deliveries: question.deliverTo,
      createdAtMs: question.createdAtMs,
      expiresAtMs,
      expiresAt: ttlFor(expiresAtMs),
      ...(question.remindAfterSeconds !== undefined &&
        question.remindAfterSeconds.length > 0 && { remindAfterSeconds: question.remindAfterSeconds }),
      ...(question.escalate !== undefined && { escalate: question.escalate }),
    };
    const indexKeys = {
      [INDEX.pendingByOwner.partitionKey]: keys.ownerIndex(question.owner),
      ...(question.sessionKey !== undefined && {
        [INDEX.pendingBySession.partitionKey]: keys.sessionIndex(question.sessionKey),
      }),
      ...(question.agentId !== undefined && {
        [INDEX.pendingByAgent.partitionKey]: keys.agentIndex(question.agentId),
      }),
      [CREATED_ORDER]: keys.createdOrder(question.createdAtMs, question.id),
    };
    const written = await conditionally(async () =>
      track(
        await client.send(
          new PutItemCommand({
            TableName,
            Item: marshall({ ...item, ...indexKeys }, { removeUndefinedValues: true }),
            ConditionExpression: "attribute_not_exists(pk)",
            ...capacity,
          }),
        ),
      ),
    );
    return written ? item : undefined;
  }

  /** A retried Step Functions task registers the same question again with a new token: keep the record, take the token. */
  async function replaceToken(question: NewQuestion, nowMs: number): Promise<QuestionRecord | undefined> {
    if (question.runId === undefined || question.taskToken === undefined) return undefined;
    let replaced: QuestionItem | undefined;
    const ok = await conditionally(async () => {
      const out = track(
        await client.send(
          new UpdateItemCommand({
            TableName,
            Key: { pk: { S: keys.question(question.id) } },
            UpdateExpression: "SET taskToken = :token",
            ConditionExpression: "#status = :pending AND runId = :runId AND expiresAtMs > :now",
            ExpressionAttributeNames: { "#status": "status" },
            ExpressionAttributeValues: marshall({
              ":token": question.taskToken,
              ":pending": "pending",
              ":runId": question.runId,
              ":now": nowMs,
            }),
            ReturnValues: "ALL_NEW",
            ...capacity,
          }),
        ),
      );
      replaced = out.Attributes ? (unmarshall(out.Attributes) as QuestionItem) : undefined;
    });
    return ok && replaced ? toRecord(replaced, nowMs) : undefined;
  }

  /** Takes the session's slot for this question; a slot whose question has ended is taken over. */
  async function claimSessionSlot(
    sessionKey: string,
    questionId: string,
    expiresAtMs: number,
    nowMs: number,
  ): Promise<
    { claimed: true } | { claimed: false; pendingId: string; pendingTaskToken?: string | undefined }
  > {
    const slot: SessionSlotItem = {
      pk: keys.sessionSlot(sessionKey),
      entity: "sessionSlot",
      questionId,
      expiresAtMs,
      expiresAt: ttlFor(expiresAtMs),
    };
    let condition = "attribute_not_exists(pk) OR expiresAtMs <= :now OR questionId = :id";
    let values: Record<string, unknown> = { ":now": nowMs, ":id": questionId };
    for (let attempt = 0; attempt < SLOT_ATTEMPTS; attempt++) {
      const put = await conditionally(async () =>
        track(
          await client.send(
            new PutItemCommand({
              TableName,
              Item: marshall(slot),
              ConditionExpression: condition,
              ExpressionAttributeValues: marshall(values),
              ...capacity,
            }),
          ),
        ),
      );
      if (put) return { claimed: true };
      const holder = await getItem<SessionSlotItem>(slot.pk);
      if (!holder) {
        condition = "attribute_not_exists(pk)";
        values = {};
        continue;
      }
      const held = await getItem<QuestionItem>(keys.question(holder.questionId));
      if (held && statusAt(held.status, held.expiresAtMs, nowMs) === "pending") {
        return { claimed: false, pendingId: holder.questionId, pendingTaskToken: held.taskToken };
      }
      // The holder has ended but its slot was not released (a crash between two writes): take it over,
      // unless someone else does first.
      condition = "questionId = :holder";
      values = { ":holder": holder.questionId };
    }
    return { claimed: false, pendingId: "unknown" };
  }

  /**
   * Indexes each posted message (its chat and message id → the question), so replies, threads and taps
   * route by key. Returns the question item, or undefined when the question does not exist.
   */
  async function indexMessages(id: string, deliveries: Delivery[]): Promise<QuestionItem | undefined> {
    const question = await getItem<QuestionItem>(keys.question(id));
    if (question?.entity !== "question") return undefined;
    let requests = deliveries.flatMap((delivery) =>
      delivery.messageId === undefined
        ? []
        : [
            {
              PutRequest: {
                Item: marshall({
                  pk: keys.message(delivery.channel, delivery.chatId, delivery.messageId),
                  entity: "messageIndex",
                  questionId: id,
                  expiresAt: question.expiresAt,
                }),
              },
            },
          ],
    );
    // At most 10 targets per question, under BatchWriteItem's 25; unprocessed items are retried.
    for (let attempt = 0; requests.length > 0; attempt++) {
      if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, 20 * 2 ** attempt));
      const out = track(
        await client.send(
          new BatchWriteItemCommand({ RequestItems: { [TableName]: requests }, ...capacity }),
        ),
      );
      requests = (out.UnprocessedItems?.[TableName] ?? []) as typeof requests;
      if (attempt > 5 && requests.length > 0) throw new Error("could not index delivered messages");
    }
    return question;
  }

  return {
    async create(question, nowMs): Promise<CreateResult> {
      const written = await putQuestion(question);
      if (!written) {
        const record = await replaceToken(question, nowMs);
        return record ? { kind: "token_replaced", record } : { kind: "id_in_use" };
      }
      if (question.sessionKey !== undefined) {
        const expiresAtMs = question.createdAtMs + question.timeoutSeconds * 1000;
        const slot = await claimSessionSlot(question.sessionKey, question.id, expiresAtMs, nowMs);
        if (!slot.claimed) {
          // Undo our own write: the question was never delivered and nothing waits on its id yet.
          track(
            await client.send(
              new DeleteItemCommand({
                TableName,
                Key: { pk: { S: keys.question(question.id) } },
                ...capacity,
              }),
            ),
          );
          return { kind: "session_busy", pendingId: slot.pendingId, pendingTaskToken: slot.pendingTaskToken };
        }
      }
      // The record is what was just written: no read back.
      return { kind: "created", record: toRecord(written, nowMs) };
    },

    async get(id, nowMs) {
      const item = await getItem<QuestionItem>(keys.question(id));
      return item?.entity === "question" ? toRecord(item, nowMs) : undefined;
    },

    async listPending(filter: PendingFilter, nowMs) {
      const [index, value] =
        "owner" in filter
          ? [INDEX.pendingByOwner, keys.ownerIndex(filter.owner)]
          : "sessionKey" in filter
            ? [INDEX.pendingBySession, keys.sessionIndex(filter.sessionKey)]
            : [INDEX.pendingByAgent, keys.agentIndex(filter.agentId)];
      const records: QuestionRecord[] = [];
      let startKey: Record<string, AttributeValue> | undefined;
      do {
        const out = track(
          await client.send(
            new QueryCommand({
              TableName,
              IndexName: index.name,
              KeyConditionExpression: "#pk = :value",
              // Expired questions keep their index keys until TTL deletes them; a read must not show them.
              FilterExpression: "expiresAtMs > :now AND #status = :pending",
              ExpressionAttributeNames: { "#pk": index.partitionKey, "#status": "status" },
              ExpressionAttributeValues: marshall({ ":value": value, ":now": nowMs, ":pending": "pending" }),
              ExclusiveStartKey: startKey,
              ...capacity,
            }),
          ),
        );
        for (const item of out.Items ?? []) {
          records.push(toListedRecord(unmarshall(item) as QuestionItem, nowMs));
        }
        startKey = out.LastEvaluatedKey;
      } while (startKey);
      return records;
    },

    async listPendingPage({ filters, limit, after }, nowMs): Promise<PendingPage> {
      const { index, value, covers } = pendingIndexFor(filters);
      // Expired questions keep their index keys until TTL deletes them; a read must not show them.
      const conditions = ["expiresAtMs > :now", "#status = :pending"];
      const names: Record<string, string> = { "#pk": index.partitionKey, "#status": "status" };
      const values: Record<string, unknown> = { ":value": value, ":now": nowMs, ":pending": "pending" };
      for (const attribute of FILTER_ATTRIBUTES) {
        const wanted = filters[attribute];
        if (wanted === undefined || attribute === covers) continue;
        conditions.push(`#${attribute} = :${attribute}`);
        names[`#${attribute}`] = attribute;
        values[`:${attribute}`] = wanted;
      }
      // The start key is rebuilt from the position and this listing's own partition, so a position can only
      // say where in creation order to go on, never which index or partition to read.
      let startKey: Record<string, AttributeValue> | undefined = after && {
        pk: { S: keys.question(after.id) },
        [index.partitionKey]: { S: value },
        [CREATED_ORDER]: { S: keys.createdOrder(after.createdAtMs, after.id) },
      };
      // One question past the page says whether another page follows. DynamoDB applies Limit before the
      // filter, so a read can come back short: read on (asking for more each time, so a filter that drops
      // most questions costs few round trips) until the page and that one are found or the index ends.
      const items: QuestionItem[] = [];
      for (let reads = 0; items.length <= limit; reads++) {
        const out = track(
          await client.send(
            new QueryCommand({
              TableName,
              IndexName: index.name,
              KeyConditionExpression: "#pk = :value",
              FilterExpression: conditions.join(" AND "),
              ExpressionAttributeNames: names,
              ExpressionAttributeValues: marshall(values),
              ExclusiveStartKey: startKey,
              Limit: Math.min(MAX_QUERY_LIMIT, (limit + 1 - items.length) * 2 ** reads),
              ...capacity,
            }),
          ),
        );
        for (const item of out.Items ?? []) {
          if (items.length > limit) break;
          items.push(unmarshall(item) as QuestionItem);
        }
        startKey = out.LastEvaluatedKey;
        if (!startKey) break;
      }
      const questions = items.slice(0, limit).map((item) => toListedRecord(item, nowMs));
      const last = questions.at(-1);
      // The next page starts after the last question returned, not at DynamoDB's LastEvaluatedKey, which
      // may lie past questions read but not returned.
      return items.length > limit && last
        ? { questions, next: { createdAtMs: last.createdAtMs, id: last.id } }
        : { questions };
    },

    async close(id, outcome: Outcome, nowMs): Promise<CloseResult> {
      const { set, values } = closingUpdate(outcome, nowMs);
      let before: QuestionItem | undefined;
      const won = await conditionally(async () => {
        const out = track(
          await client.send(
            new UpdateItemCommand({
              TableName,
              Key: { pk: { S: keys.question(id) } },
              // Leaving the sparse indexes is what makes the question stop being listed as pending; the
              // token leaves the item here (the stream's old image still has it for the durable resume).
              UpdateExpression: `SET ${set.join(", ")} REMOVE ${LEAVE_PENDING_INDEXES}, taskToken, draft`,
              ConditionExpression: STILL_PENDING,
              ExpressionAttributeNames: { "#status": "status" },
              ExpressionAttributeValues: marshall(values, { removeUndefinedValues: true }),
              // The item before the write: its token is what resumes the run.
              ReturnValues: "ALL_OLD",
              ...capacity,
            }),
          ),
        );
        before = out.Attributes ? (unmarshall(out.Attributes) as QuestionItem) : undefined;
      });
      if (won && before) {
        return {
          kind: "closed",
          record: toRecord(closedItem(before, outcome, nowMs), nowMs),
          taskToken: before.taskToken,
        };
      }
      const current = await this.get(id, nowMs);
      return current ? { kind: "not_pending", record: current } : { kind: "not_found" };
    },

    async saveDraft(id, draft, nowMs): Promise<SaveDraftResult> {
      let after: QuestionItem | undefined;
      const saved = await conditionally(async () => {
        const out = track(
          await client.send(
            new UpdateItemCommand({
              TableName,
              Key: { pk: { S: keys.question(id) } },
              UpdateExpression: "SET draft = :draft",
              ConditionExpression: STILL_PENDING,
              ExpressionAttributeNames: { "#status": "status" },
              ExpressionAttributeValues: marshall({ ":draft": draft, ":pending": "pending", ":now": nowMs }),
              ReturnValues: "ALL_NEW",
              ...capacity,
            }),
          ),
        );
        after = out.Attributes ? (unmarshall(out.Attributes) as QuestionItem) : undefined;
      });
      if (saved && after) return { kind: "saved", record: toRecord(after, nowMs) };
      const current = await this.get(id, nowMs);
      return current ? { kind: "not_pending", record: current } : { kind: "not_found" };
    },

    async release(id, outcome: Outcome, nowMs, options = {}) {
      const { set, values } = closingUpdate(outcome, nowMs);
      if (options.taskToken !== undefined) values[":token"] = options.taskToken;
      return conditionally(async () =>
        track(
          await client.send(
            new UpdateItemCommand({
              TableName,
              Key: { pk: { S: keys.question(id) } },
              // No ReturnValues and the token untouched: the model step's role may write these attributes of
              // question items and read none (serverless.yml, ModelStepRole). The dead token stays on the
              // item until TTL removes it; nothing can use it.
              UpdateExpression: `SET ${set.join(", ")} REMOVE ${LEAVE_PENDING_INDEXES}`,
              ConditionExpression:
                options.taskToken === undefined ? STILL_PENDING : `${STILL_PENDING} AND taskToken = :token`,
              ExpressionAttributeNames: { "#status": "status" },
              ExpressionAttributeValues: marshall(values, { removeUndefinedValues: true }),
              ...capacity,
            }),
          ),
        ),
      );
    },

    async expire(id, nowMs) {
      return conditionally(async () =>
        track(
          await client.send(
            new UpdateItemCommand({
              TableName,
              Key: { pk: { S: keys.question(id) } },
              // Like `release`: nothing returned and the token untouched, so the model step's role (which
              // may write only these attributes and read none) can close the question of a timed-out task.
              UpdateExpression: `SET #status = :expired, resolvedAtMs = :now REMOVE ${LEAVE_PENDING_INDEXES}`,
              // The mirror of STILL_PENDING: exactly one of an answer and the expiry can win.
              ConditionExpression: "#status = :pending AND expiresAtMs <= :now",
              ExpressionAttributeNames: { "#status": "status" },
              ExpressionAttributeValues: marshall({
                ":expired": "expired",
                ":pending": "pending",
                ":now": nowMs,
              }),
              ...capacity,
            }),
          ),
        ),
      );
    },

    async recordDeliveries(id, posted, nowMs) {
      const question = await indexMessages(
        id,
        posted.map((p) => p.delivery),
      );
      if (!question) return undefined;
      // Each posted copy replaces its own target, by position: a copy appended meanwhile (a `/question`
      // re-post) stays, and a target that refused keeps its entry without a message id.
      const values = Object.fromEntries(posted.map((p, i) => [`:d${i}`, p.delivery]));
      const set = posted.map((p, i) => `deliveries[${p.index}] = :d${i}`);
      let after: QuestionItem | undefined;
      const exists = await conditionally(async () => {
        const out = track(
          await client.send(
            new UpdateItemCommand({
              TableName,
              Key: { pk: { S: keys.question(id) } },
              UpdateExpression: `SET ${set.join(", ")}`,
              ConditionExpression: "attribute_exists(pk)",
              ExpressionAttributeValues: marshall(values, { removeUndefinedValues: true }),
              ReturnValues: "ALL_NEW",
              ...capacity,
            }),
          ),
        );
        after = out.Attributes ? (unmarshall(out.Attributes) as QuestionItem) : undefined;
      });
      return exists && after ? toRecord(after, nowMs) : undefined;
    },

    async addDeliveries(id, deliveries, nowMs) {
      const question = await indexMessages(id, deliveries);
      if (!question) return undefined;
      if (deliveries.length === 0) return toRecord(question, nowMs);
      const out = track(
        await client.send(
          new UpdateItemCommand({
            TableName,
            Key: { pk: { S: keys.question(id) } },
            UpdateExpression: "SET deliveries = list_append(deliveries, :deliveries)",
            ConditionExpression: "attribute_exists(pk)",
            ExpressionAttributeValues: marshall(
              { ":deliveries": deliveries },
              { removeUndefinedValues: true },
            ),
            // The item as it is after the append: a question that ended meanwhile has these copies to retire.
            ReturnValues: "ALL_NEW",
            ...capacity,
          }),
        ),
      );
      return out.Attributes ? toRecord(unmarshall(out.Attributes) as QuestionItem, nowMs) : undefined;
    },

    async findByMessage(channel, chatId, messageId) {
      const item = await getItem<{ questionId: string }>(keys.message(channel, chatId, messageId));
      return item?.questionId;
    },

    async claimEvent(dedupeKey, ttlSeconds, nowMs) {
      return conditionally(async () =>
        track(
          await client.send(
            new PutItemCommand({
              TableName,
              Item: marshall({
                pk: keys.inboundEvent(dedupeKey),
                entity: "inboundEvent",
                expiresAt: Math.ceil(nowMs / 1000) + ttlSeconds,
              }),
              ConditionExpression: "attribute_not_exists(pk)",
              ...capacity,
            }),
          ),
        ),
      );
    },

    async releaseEvent(dedupeKey) {
      track(
        await client.send(
          new DeleteItemCommand({ TableName, Key: { pk: { S: keys.inboundEvent(dedupeKey) } }, ...capacity }),
        ),
      );
    },

    async recordResumeFailure(id, failure) {
      await conditionally(async () =>
        track(
          await client.send(
            new UpdateItemCommand({
              TableName,
              Key: { pk: { S: keys.question(id) } },
              UpdateExpression: "SET resumeFailure = :failure",
              // Only a question that exists and has ended: this never creates an item or touches a pending one.
              ConditionExpression: "attribute_exists(pk) AND #status <> :pending",
              ExpressionAttributeNames: { "#status": "status" },
              ExpressionAttributeValues: marshall({ ":failure": failure, ":pending": "pending" }),
              ...capacity,
            }),
          ),
        ),
      );
    },
  };
}

/** Leaving the sparse pending indexes is what makes a question stop being listed as pending. */
const LEAVE_PENDING_INDEXES = [
  INDEX.pendingByOwner.partitionKey,
  INDEX.pendingBySession.partitionKey,
  INDEX.pendingByAgent.partitionKey,
].join(", ");

/** First answer wins: only a pending question whose deadline has not passed can be closed (`expire` mirrors it). */
const STILL_PENDING = "#status = :pending AND expiresAtMs > :now";

/** The SET clauses and values that record an outcome. */
function closingUpdate(outcome: Outcome, nowMs: number) {
  const set = ["#status = :status", "resolvedAtMs = :now"];
  const values: Record<string, unknown> = { ":status": outcome.status, ":pending": "pending", ":now": nowMs };
  if (outcome.status === "answered") {
    set.push("answers = :answers");
    values[":answers"] = outcome.answers;
  }
  if (outcome.status === "cancelled") {
    set.push("reason = :reason");
    values[":reason"] = outcome.reason;
  }
  if (outcome.status !== "delivery_failed" && outcome.resolvedBy !== undefined) {
    set.push("resolvedBy = :resolvedBy");
    values[":resolvedBy"] = outcome.resolvedBy;
  }
  return { set, values };
}

/** The item as the closing write left it, from the item before it (the write returns the old image). */
function closedItem(before: QuestionItem, outcome: Outcome, nowMs: number): QuestionItem {
  const { taskToken: _token, draft: _draft, ...rest } = before;
  return {
    ...rest,
    status: outcome.status,
    resolvedAtMs: nowMs,
    ...(outcome.status === "answered" && { answers: outcome.answers }),
    ...(outcome.status === "cancelled" && { reason: outcome.reason }),
    ...(outcome.status !== "delivery_failed" &&
      outcome.resolvedBy !== undefined && { resolvedBy: outcome.resolvedBy }),
  };
}
