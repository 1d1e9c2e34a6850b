/**
 * QuestionStore on one DynamoDB table (infra/table.json), composed of one module per item kind over the keys
 * of lib/store/keys.ts: the question item (dynamodb-questions.ts) and its listing over the pending indexes
 * (dynamodb-pending-listing.ts), the session slot (dynamodb-session-slots.ts), the message index
 * (dynamodb-message-index.ts), the dedupe claim (dynamodb-event-claims.ts) and the link token
 * (dynamodb-link-tokens.ts). No transactions: each step is
 * a single conditional write, and a crash between two steps heals itself (a stale session slot is taken over
 * once its question has ended or expired).
 */
import type { ConsumedCapacity, DynamoDBClient } from "@aws-sdk/client-dynamodb";
import type { Delivery } from "../questions/question-record.ts";
import { copiesRoom } from "../questions/record-budget.ts";
import { createDynamoDbEventClaims } from "./dynamodb-event-claims.ts";
import { createDynamoDbLinkTokens } from "./dynamodb-link-tokens.ts";
import { createDynamoDbMessageIndex } from "./dynamodb-message-index.ts";
import { createDynamoDbPendingListing } from "./dynamodb-pending-listing.ts";
import { createDynamoDbQuestions } from "./dynamodb-questions.ts";
import { createDynamoDbSessionSlots } from "./dynamodb-session-slots.ts";
import { createDynamoDbTable } from "./dynamodb-table.ts";
import { sameCopy, takingOver, toRecord } from "./question-item.ts";
import { type QuestionStore, takenIdResult } from "./question-store.ts";

export interface DynamoDbQuestionStoreOptions {
  client: DynamoDBClient;
  tableName: string;
  /** How long a record stays after its deadline before TTL removes it. */
  retentionSeconds: number;
  /** Called with the capacity each request consumed (the benchmark counts cost with it). */
  onConsumedCapacity?: (capacity: ConsumedCapacity) => void;
}

/** Appends of further copies tried at most, each after a race lost to other copies. */
const APPEND_ATTEMPTS = 3;

export function createDynamoDbQuestionStore(options: DynamoDbQuestionStoreOptions): QuestionStore {
  const table = createDynamoDbTable(options);
  const questions = createDynamoDbQuestions(table, options.retentionSeconds);
  const listing = createDynamoDbPendingListing(table);
  const slots = createDynamoDbSessionSlots(table, options.retentionSeconds, questions.item);
  const messages = createDynamoDbMessageIndex(table);
  const events = createDynamoDbEventClaims(table);
  const linkTokens = createDynamoDbLinkTokens(table);

  /** Indexes the posted messages of a question that exists; its item, or undefined when there is none. */
  async function indexMessages(id: string, deliveries: Delivery[]) {
    const question = await questions.item(id);
    if (question) {
      await messages.index(id, question.expiresAt, deliveries);
      await messages.indexPrivate(id, question.owner, question.expiresAt, deliveries);
    }
    return question;
  }

  const addDeliveries: QuestionStore["addDeliveries"] = async (id, deliveries, nowMs, by = "other") => {
    let question = await indexMessages(id, deliveries);
    for (let attempt = 1; question; attempt++) {
      const recorded = question.deliveries ?? [];
      const room = copiesRoom({ ...question, deliveries: recorded }, by);
      const kept = deliveries.slice(0, room);
      if (kept.length === 0) return toRecord(question, nowMs);
      const appended = await questions.appendDeliveries(id, kept, recorded.length + room, nowMs);
      if (appended) return appended;
      // Copies written meanwhile took some of the room: fitted to what is left, on a fresh read. Past the
      // attempts, the question as it now is (the caller retires what it posted if it has ended).
      question = await questions.item(id);
      if (attempt === APPEND_ATTEMPTS) return question && toRecord(question, nowMs);
    }
    return undefined;
  };

  return {
    async create(question, nowMs) {
      const written = await questions.put(question);
      if (written.kind === "id_taken") {
        const record = await questions.replaceToken(question, nowMs);
        if (record) return { kind: "token_replaced", record };
        // Read only on this refusal: a retried task whose question was answered meanwhile.
        return question.taskToken === undefined
          ? { kind: "id_in_use" }
          : takenIdResult(question, await questions.get(question.id, nowMs));
      }
      if (question.sessionKey !== undefined) {
        const slot = await slots.claim(question.sessionKey, question.id, written.item.expiresAtMs, nowMs);
        if (!slot.claimed) {
          // Undo our own write: the question was never delivered and nothing waits on its id yet.
          await questions.remove(question.id);
          return { kind: "session_busy", pendingId: slot.pendingId, pendingTaskToken: slot.pendingTaskToken };
        }
      }
      // The record is what was just written: no read back.
      return { kind: "created", record: toRecord(written.item, nowMs) };
    },
    get: questions.get,
    listPending: listing.listPending,
    listPendingPage: listing.listPendingPage,
    close: questions.close,
    saveDraft: questions.saveDraft,
    vote: questions.vote,
    release: questions.release,
    expire: questions.expire,

    async recordDeliveries(id, posted, nowMs) {
      const question = await indexMessages(
        id,
        posted.map((p) => p.delivery),
      );
      return question && questions.replaceDeliveries(id, posted, nowMs);
    },

    addDeliveries,

    async replaceCopy(id, previous, next, nowMs) {
      const question = await indexMessages(id, [next]);
      if (!question) return undefined;
      const recorded = question.deliveries ?? [];
      const index = recorded.findIndex((d) => sameCopy(d, previous));
      const replaced =
        index >= 0 && previous.messageId !== undefined
          ? await questions.replaceDeliveryAt(
              id,
              index,
              { ...previous, messageId: previous.messageId },
              takingOver(recorded[index] ?? previous, next),
              nowMs,
            )
          : undefined;
      return replaced ?? addDeliveries(id, [next], nowMs);
    },

    findByMessage: messages.find,
    findPrivateQuestions: messages.findPrivate,
    claimEvent: events.claim,
    releaseEvent: events.release,
    saveLinkToken: linkTokens.save,
    takeLinkToken: linkTokens.take,
    recordResumeFailure: questions.recordResumeFailure,
    markStreamResume: questions.markStreamResume,
    streamResumeStarted: questions.streamResumeStarted,
  };
}
