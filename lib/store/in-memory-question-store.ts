/**
 * QuestionStore in memory, for running the handlers in one process: it holds the very items the DynamoDB
 * table holds (lib/store/question-item.ts, keys.ts), checks each write's condition as the DynamoDB adapter's
 * request does, and stores each value as the table would (marshalled and back, so `undefined` is dropped and
 * no caller shares an object with the store). Each request completes in a later turn, like a round trip, and
 * a call made of several requests can interleave with others as it does against the table. Through the port
 * a test cannot tell the two apart: test/support/question-store-contract.ts runs the same assertions on both.
 * TTL is not modelled: an item stays until it is deleted (DynamoDB's TTL deletes at some time after it).
 */
import { isDeepStrictEqual } from "node:util";
import {
  type AttributeValue,
  ConditionalCheckFailedException,
  DynamoDBServiceException,
} from "@aws-sdk/client-dynamodb";
import { marshall, unmarshall } from "@aws-sdk/util-dynamodb";
import { type Delivery, statusAt } from "../questions/question-record.ts";
import { copiesRoom } from "../questions/record-budget.ts";
import { FILTER_ATTRIBUTES, pendingIndexFor } from "./dynamodb-pending-listing.ts";
import { newWriteId, ttlAfter } from "./dynamodb-table.ts";
import { CREATED_ORDER, INDEX, keys, PENDING_INDEX_PROJECTION } from "./keys.ts";
import {
  closedItem,
  closedResult,
  newQuestionItem,
  outcomeAttributes,
  pendingIndexKeys,
  type QuestionItem,
  sameCopy,
  takingOver,
  toListedRecord,
  toRecord,
} from "./question-item.ts";
import {
  indexedMessageIds,
  type LinkToken,
  newestIds,
  type PendingFilter,
  type PendingFilters,
  PRIVATE_CHAT_KEPT,
  privateChatEntries,
  type QuestionStore,
  takenIdResult,
} from "./question-store.ts";

/** DynamoDB's largest item, in bytes. */
const MAX_ITEM_BYTES = 400 * 1024;

/** An item as the table holds it, keyed by `pk`. */
export type StoredItem = Record<string, unknown> & { pk: string };

export interface InMemoryQuestionStore extends QuestionStore {
  /** The table's items by `pk`: for a test that looks past the port, as one may look into the table. */
  readonly items: Map<string, StoredItem>;
}

export interface InMemoryQuestionStoreOptions {
  /** How long a record is kept after its deadline (its `expiresAt`, as the DynamoDB store writes it). */
  retentionSeconds: number;
  /**
   * Called after each write that changed an item, with its images as the table's stream carries them
   * (NEW_AND_OLD_IMAGES; lib/store/question-stream.ts reads them): what feeds the stream consumer in process.
   */
  onChange?: (change: ItemImages) => void;
  /**
   * Asked after each request has been applied: true loses its response, and the request is sent again, as
   * the SDK retries a DynamoDB request answered with a 500 or a reset connection (a test's fault injection;
   * the DynamoDB store's tests do the same with a client middleware).
   */
  loseResponse?: () => boolean;
}

/** An item before and after a write, marshalled (undefined: there was none, or there is none now). */
export interface ItemImages {
  oldImage: Record<string, AttributeValue> | undefined;
  newImage: Record<string, AttributeValue> | undefined;
}

/** How many times a stale session slot is taken over before giving up, as the DynamoDB store does. */
const SLOT_ATTEMPTS = 3;

/** The partition keys a question leaves when it ends, which is what stops it being listed as pending. */
const PENDING_PARTITIONS = Object.values(INDEX).map((index) => index.partitionKey);

export function createInMemoryQuestionStore(options: InMemoryQuestionStoreOptions): InMemoryQuestionStore {
  const items = new Map<string, StoredItem>();

  /**
   * One request: never answered in the caller's own turn, as a round trip to the table never is. A lost
   * response (`loseResponse`) runs the same request again, as the SDK's retry sends the same one.
   */
  async function request<T>(operation: () => T): Promise<T> {
    await Promise.resolve();
    const answer = operation();
    if (!options.loseResponse?.()) return answer;
    await Promise.resolve();
    return operation();
  }
  const copy = <T>(value: T): T => unmarshall(marshall(value, { removeUndefinedValues: true })) as T;
  const read = <T>(pk: string): T | undefined => {
    const item = items.get(pk);
    return item && copy(item as T);
  };
  /** Sets or deletes the item under `pk`, and reports the change, as the table's stream would. */
  const replace = (pk: string, item: StoredItem | undefined) => {
    const before = items.get(pk);
    if (item) items.set(pk, item);
    else items.delete(pk);
    const image = (value: StoredItem | undefined) =>
      value && marshall(value, { removeUndefinedValues: true });
    // DynamoDB writes no stream record for a write that changed nothing.
    if (options.onChange && !isDeepStrictEqual(before, item)) {
      options.onChange({ oldImage: image(before), newImage: image(item) });
    }
  };
  const write = (item: { pk: string; [attribute: string]: unknown } | QuestionItem) => {
    // DynamoDB refuses an item over 400 KB (names and values, UTF-8): its JSON's bytes are a close measure.
    if (Buffer.byteLength(JSON.stringify(item)) > MAX_ITEM_BYTES) {
      throw new DynamoDBServiceException({
        name: "ValidationException",
        $fault: "client",
        message: "Item size has exceeded the maximum allowed size",
        $metadata: {},
      });
    }
    replace(item.pk, copy(item) as StoredItem);
  };
  const remove = (pk: string) => replace(pk, undefined);
  /** Puts the item if there is none under its key, or only its own earlier attempt (the same `writeId`). */
  const putIfAbsent = (item: { pk: string; writeId?: string; [attribute: string]: unknown }) => {
    const held = items.get(item.pk);
    if (held && (item.writeId === undefined || held.writeId !== item.writeId)) return false;
    write(item);
    return true;
  };
  const questionItem = (id: string) => {
    const found = read<QuestionItem>(keys.question(id));
    return found?.entity === "question" ? found : undefined;
  };
  const stillPending = (item: QuestionItem, nowMs: number) =>
    item.status === "pending" && item.expiresAtMs > nowMs;
  const withoutPendingPartitions = (item: QuestionItem): QuestionItem => {
    const rest: Record<string, unknown> = { ...item };
    for (const key of PENDING_PARTITIONS) delete rest[key];
    return rest as unknown as QuestionItem;
  };
  /**
   * Writes `change(item)` over the question when `condition(item)` holds, or, with `writeId`, over its own
   * earlier attempt (the item already carries it; the change then sets it again); the item before, or
   * undefined.
   */
  const updateQuestion = (
    id: string,
    condition: (item: QuestionItem) => boolean,
    change: (item: QuestionItem) => QuestionItem,
    writeId?: string,
  ) => {
    const before = questionItem(id);
    const own = writeId !== undefined && before?.writeId === writeId;
    if (!before || !(own || condition(before))) return undefined;
    write(writeId === undefined ? change(before) : { ...change(before), writeId });
    return before;
  };
  const get = (id: string, nowMs: number) =>
    request(() => {
      const found = questionItem(id);
      return found && toRecord(found, nowMs);
    });
  async function notPending(id: string, nowMs: number) {
    const current = await get(id, nowMs);
    return current ? ({ kind: "not_pending", record: current } as const) : ({ kind: "not_found" } as const);
  }
  const updated = (id: string, nowMs: number) => {
    const after = questionItem(id);
    return after && toRecord(after, nowMs);
  };

  async function claimSlot(sessionKey: string, questionId: string, expiresAtMs: number, nowMs: number) {
    const slot = {
      pk: keys.sessionSlot(sessionKey),
      entity: "sessionSlot",
      questionId,
      expiresAtMs,
      expiresAt: ttlAfter(expiresAtMs, options.retentionSeconds),
    };
    type Slot = typeof slot;
    let free = (held: Slot | undefined) =>
      !held || held.expiresAtMs <= nowMs || held.questionId === questionId;
    for (let attempt = 0; attempt < SLOT_ATTEMPTS; attempt++) {
      const claimed = await request(() => {
        if (!free(read<Slot>(slot.pk))) return false;
        write(slot);
        return true;
      });
      if (claimed) return { claimed: true } as const;
      const holder = await request(() => read<Slot>(slot.pk));
      if (!holder) {
        free = (held) => !held || held.questionId === questionId;
        continue;
      }
      const held = await request(() => questionItem(holder.questionId));
      if (held && statusAt(held.status, held.expiresAtMs, nowMs) === "pending") {
        return { claimed: false, pendingId: holder.questionId, pendingTaskToken: held.taskToken } as const;
      }
      // The holder has ended but its slot was not released: take it over, unless someone else does first.
      free = (current) => current?.questionId === holder.questionId || current?.questionId === questionId;
    }
    return { claimed: false } as const;
  }

  /** Indexes the posted messages of a question that exists; its item, or undefined when there is none. */
  async function indexMessages(id: string, deliveries: Delivery[]) {
    const question = await request(() => questionItem(id));
    if (question && deliveries.some((d) => d.messageId !== undefined)) {
      await request(() => {
        for (const delivery of deliveries) {
          for (const messageId of indexedMessageIds(delivery)) {
            write({
              pk: keys.message(delivery.channel, delivery.chatId, messageId),
              entity: "messageIndex",
              questionId: id,
              expiresAt: question.expiresAt,
            });
          }
        }
      });
    }
    if (question) {
      for (const { channel, chatId, person } of privateChatEntries(question.owner, deliveries)) {
        await request(() => {
          const pk = keys.privateChat(channel, chatId, person);
          const noted = read<{ questionIds: string[]; expiresAt: number }>(pk);
          write({
            pk,
            entity: "privateChatIndex",
            questionIds: [...(noted?.questionIds ?? []), id].slice(-PRIVATE_CHAT_KEPT),
            // As long as the longest-lived question noted in it (the DynamoDB store's conditional extend).
            expiresAt: Math.max(noted?.expiresAt ?? 0, question.expiresAt),
          });
        });
      }
    }
    return question;
  }

  /** The open questions of a pending index's partition, in its order (creation time, then id). */
  function openInIndex(filters: PendingFilter | PendingFilters, nowMs: number) {
    const { index, value, covers } = pendingIndexFor(filters);
    const partition = [...items.values()].filter((item) => item[index.partitionKey] === value);
    partition.sort((a, b) =>
      Buffer.compare(Buffer.from(String(a[CREATED_ORDER])), Buffer.from(String(b[CREATED_ORDER]))),
    );
    const projected = partition.map((item) => {
      const listed: Record<string, unknown> = {};
      for (const name of [...PENDING_INDEX_PROJECTION, "pk", index.partitionKey, CREATED_ORDER]) {
        if (item[name] !== undefined) listed[name] = item[name];
      }
      return copy(listed) as unknown as QuestionItem & Record<string, unknown>;
    });
    return {
      covers,
      open: projected.filter((item) => item.status === "pending" && item.expiresAtMs > nowMs),
    };
  }

  const addDeliveries: QuestionStore["addDeliveries"] = async (id, deliveries, nowMs, by = "other") => {
    const question = await indexMessages(id, deliveries);
    if (!question) return undefined;
    // Read, fitted to the room and appended in one step: copies written meanwhile are counted.
    return request(() => {
      const item = questionItem(id);
      if (item) {
        const recorded = item.deliveries ?? [];
        const kept = deliveries.slice(0, copiesRoom({ ...item, deliveries: recorded }, by));
        if (kept.length > 0) write({ ...item, deliveries: [...recorded, ...kept] });
      }
      return updated(id, nowMs);
    });
  };

  return {
    items,

    async create(question, nowMs) {
      const item = { ...newQuestionItem(question, options.retentionSeconds), writeId: newWriteId() };
      const written = await request(() => putIfAbsent({ ...item, ...pendingIndexKeys(question) }));
      if (!written) {
        const { runId, taskToken } = question;
        if (runId === undefined || taskToken === undefined) return { kind: "id_in_use" };
        const replaced = await request(() => {
          const before = updateQuestion(
            question.id,
            (current) =>
              current.status === "pending" && current.runId === runId && current.expiresAtMs > nowMs,
            // A fresh writeId, as the table's: the first put's retry no longer finds its own write.
            (current) => ({ ...current, taskToken, writeId: newWriteId() }),
          );
          return before && updated(question.id, nowMs);
        });
        if (replaced) return { kind: "token_replaced", record: replaced };
        return takenIdResult(question, await get(question.id, nowMs));
      }
      if (question.sessionKey !== undefined) {
        const slot = await claimSlot(question.sessionKey, question.id, item.expiresAtMs, nowMs);
        if (!slot.claimed) {
          // Undo our own write: the question was never delivered and nothing waits on its id yet.
          await request(() => remove(item.pk));
          return { kind: "session_busy", pendingId: slot.pendingId, pendingTaskToken: slot.pendingTaskToken };
        }
      }
      return { kind: "created", record: toRecord(copy(item), nowMs) };
    },

    get,

    listPending: (filter, nowMs) =>
      request(() => openInIndex(filter, nowMs).open.map((item) => toListedRecord(item, nowMs))),

    listPendingPage: ({ filters, limit, after }, nowMs) =>
      request(() => {
        const { covers, open } = openInIndex(filters, nowMs);
        const start = after && keys.createdOrder(after.createdAtMs, after.id);
        const found: QuestionItem[] = [];
        for (const item of open) {
          if (found.length > limit) break;
          if (
            start !== undefined &&
            Buffer.compare(Buffer.from(String(item[CREATED_ORDER])), Buffer.from(start)) <= 0
          ) {
            continue;
          }
          const matches = FILTER_ATTRIBUTES.every(
            (attribute) =>
              attribute === covers ||
              filters[attribute] === undefined ||
              item[attribute] === filters[attribute],
          );
          if (matches) found.push(item);
        }
        const questions = found.slice(0, limit).map((item) => toListedRecord(item, nowMs));
        const last = questions.at(-1);
        return found.length > limit && last
          ? { questions, next: { createdAtMs: last.createdAtMs, id: last.id } }
          : { questions };
      }),

    async close(id, outcome, nowMs) {
      const writeId = newWriteId();
      const before = await request(() =>
        updateQuestion(
          id,
          (item) => stillPending(item, nowMs),
          (item) => closedItem(withoutPendingPartitions(item), outcome, nowMs),
          writeId,
        ),
      );
      if (!before) return notPending(id, nowMs);
      return closedResult(before, outcome, nowMs, writeId);
    },

    async saveDraft(id, draft, step, nowMs, person) {
      const after = await request(() => {
        const before = updateQuestion(
          id,
          (item) => stillPending(item, nowMs) && (person === undefined || item.drafts !== undefined),
          (item) =>
            person === undefined
              ? { ...item, draft, step }
              : { ...item, drafts: { ...item.drafts, [person]: { answers: draft, step } } },
        );
        return before && updated(id, nowMs);
      });
      return after ? { kind: "saved", record: after } : notPending(id, nowMs);
    },

    async vote(id, votes, seen, nowMs, outcome) {
      const closing = outcome && { ...outcome, votes };
      const writeId = newWriteId();
      const before = await request(() =>
        updateQuestion(
          id,
          (item) => stillPending(item, nowMs) && (item.votes?.length ?? 0) === seen,
          (item) =>
            closing
              ? closedItem(withoutPendingPartitions(item), closing, nowMs)
              : { ...item, votes, votedAtMs: nowMs },
          writeId,
        ),
      );
      if (before && closing) return closedResult(before, closing, nowMs, writeId);
      if (before) return { kind: "recorded", record: updated(id, nowMs) ?? toRecord(before, nowMs) };
      const current = await get(id, nowMs);
      if (!current) return { kind: "not_found" };
      if (current.status !== "pending") return { kind: "not_pending", record: current };
      return { kind: "stale", record: current };
    },

    release(id, outcome, nowMs, releaseOptions = {}) {
      const writeId = newWriteId();
      return request(() => {
        const { taskToken } = releaseOptions;
        const before = updateQuestion(
          id,
          (item) => stillPending(item, nowMs) && (taskToken === undefined || item.taskToken === taskToken),
          // The token and the draft stay, as the DynamoDB store's `release` leaves them.
          (item) => ({ ...withoutPendingPartitions(item), ...outcomeAttributes(outcome, nowMs) }),
          writeId,
        );
        return before !== undefined;
      });
    },

    expire(id, nowMs) {
      const writeId = newWriteId();
      return request(() => {
        const before = updateQuestion(
          id,
          (item) => item.status === "pending" && item.expiresAtMs <= nowMs,
          (item) => ({ ...withoutPendingPartitions(item), status: "expired", resolvedAtMs: nowMs }),
          writeId,
        );
        return before !== undefined;
      });
    },

    async recordDeliveries(id, posted, nowMs) {
      const question = await indexMessages(
        id,
        posted.map((p) => p.delivery),
      );
      if (!question) return undefined;
      return request(() => {
        // Each posted copy replaces its own target, by position; past the list's end it is appended (as a
        // DynamoDB `SET list[i]` does).
        updateQuestion(
          id,
          () => true,
          (item) => {
            const deliveries = [...(item.deliveries ?? [])];
            for (const p of posted) {
              if (p.index < deliveries.length) deliveries[p.index] = p.delivery;
              else deliveries.push(p.delivery);
            }
            return { ...item, deliveries };
          },
        );
        return updated(id, nowMs);
      });
    },

    addDeliveries,

    async replaceCopy(id, previous, next, nowMs) {
      const question = await indexMessages(id, [next]);
      if (!question) return undefined;
      const replaced = await request(() => {
        const item = questionItem(id);
        const recorded = item?.deliveries ?? [];
        const index = recorded.findIndex((d) => sameCopy(d, previous));
        if (!item || index < 0) return undefined;
        write({
          ...item,
          deliveries: recorded.map((d, i) =>
            i === index ? takingOver(recorded[index] as Delivery, next) : d,
          ),
        });
        return updated(id, nowMs);
      });
      return replaced ?? addDeliveries(id, [next], nowMs);
    },

    findByMessage: (channel, chatId, messageId) =>
      request(() => read<{ questionId: string }>(keys.message(channel, chatId, messageId))?.questionId),

    findPrivateQuestions: (channel, chatId, person) =>
      request(() =>
        newestIds(
          read<{ questionIds: string[] }>(keys.privateChat(channel, chatId, person))?.questionIds ?? [],
        ),
      ),

    claimEvent(dedupeKey, ttlSeconds, nowMs) {
      const writeId = newWriteId();
      return request(() =>
        putIfAbsent({
          pk: keys.inboundEvent(dedupeKey),
          entity: "inboundEvent",
          expiresAt: ttlAfter(nowMs, ttlSeconds),
          writeId,
        }),
      );
    },

    releaseEvent: (dedupeKey) =>
      request(() => {
        remove(keys.inboundEvent(dedupeKey));
      }),

    saveLinkToken(token) {
      const writeId = newWriteId();
      return request(() => {
        const saved = putIfAbsent({
          pk: keys.linkToken(token.token),
          entity: "linkToken",
          questionId: token.questionId,
          answerer: token.answerer,
          expiresAtMs: token.expiresAtMs,
          expiresAt: ttlAfter(token.expiresAtMs, 0),
          writeId,
        });
        // A token is random: one already there is a clash, failed on as the table fails the conditional put.
        if (!saved) {
          throw new ConditionalCheckFailedException({
            message: "The conditional request failed",
            $metadata: {},
          });
        }
      });
    },

    takeLinkToken: (token, answerer, nowMs) =>
      request((): LinkToken | undefined => {
        const pk = keys.linkToken(token);
        const item = read<LinkToken>(pk);
        if (!item || item.answerer !== answerer || !(item.expiresAtMs > nowMs)) return undefined;
        remove(pk);
        return { token, questionId: item.questionId, answerer: item.answerer, expiresAtMs: item.expiresAtMs };
      }),

    recordResumeFailure: (id, failure) =>
      request(() => {
        updateQuestion(
          id,
          (item) => item.status !== "pending",
          (item) => ({ ...item, resumeFailure: failure }),
        );
      }),

    markStreamResume: (id, atMs) =>
      request(() => {
        updateQuestion(
          id,
          (item) => item.status !== "pending",
          (item) => ({ ...item, streamResumeAtMs: atMs }),
        );
      }),

    streamResumeStarted: (id) =>
      request(() => {
        const item = items.get(keys.question(id)) as { streamResumeAtMs?: number } | undefined;
        return item?.streamResumeAtMs !== undefined;
      }),
  };
}
