/**
 * Every DynamoDB key string Handraise writes, in one place. One table holds several entities, each item
 * carrying its `entity` name; the pending-question indexes are sparse (their key attributes are removed when
 * a question closes), so a Query on them returns only open questions — no Scan anywhere.
 */

export const INDEX = {
  pendingByOwner: { name: "pendingByOwner", partitionKey: "ownerKey" },
  pendingBySession: { name: "pendingBySession", partitionKey: "sessionIndexKey" },
  pendingByAgent: { name: "pendingByAgent", partitionKey: "agentKey" },
  /** The questions of one `ask` API key (lib/store/dynamodb-pending-listing.ts says why it has its own). */
  pendingByAsker: { name: "pendingByAsker", partitionKey: "askerKey" },
} as const;

/**
 * The attributes besides the keys that every pending index projects (infra/table.json): only what a listing
 * shows, never the task token, and a smaller copy costs fewer write units per question.
 */
export const PENDING_INDEX_PROJECTION = [
  "id",
  "status",
  "questions",
  "owner",
  "sessionKey",
  "agentId",
  "runId",
  "deliveries",
  "createdAtMs",
  "expiresAtMs",
] as const;

/** The sort key of the pending indexes: creation time (zero-padded, so it sorts as text) then id. */
export const CREATED_ORDER = "createdOrder";

export type Entity =
  | "question"
  | "sessionSlot"
  | "transcript"
  | "messageIndex"
  | "privateChatIndex"
  | "inboundEvent"
  | "notification"
  | "linkToken";

export const keys = {
  question: (id: string) => `Q#${id}`,
  /** The one-pending-question-per-session slot: a conditional write on it is the lock. */
  sessionSlot: (sessionKey: string) => `SESSION#${sessionKey}`,
  transcript: (runId: string) => `RUN#${runId}`,
  /** A posted chat message → its question, so replies, threads and taps route by key. */
  message: (channel: string, chatId: string, messageId: string) => `MSG#${channel}#${chatId}#${messageId}`,
  /**
   * A person's one-to-one chat with the bot → the questions posted there to them as an answerer other than
   * the owner, so a line they type there finds its question by key (the owner's are found by the owner index).
   */
  privateChat: (channel: string, chatId: string, person: string) => `PRIVATE#${channel}#${chatId}#${person}`,
  /** A platform delivery already handled (Telegram update_id, Slack event_id, Discord interaction id). */
  inboundEvent: (dedupeKey: string) => `EVENT#${dedupeKey}`,
  /** A question's notification the receiver accepted (lib/notify): a repeat is not sent again. */
  notification: (questionId: string) => `NOTIFY#${questionId}`,
  /** A one-time token that hands a person their own answer link in a private chat (dynamodb-link-tokens.ts). */
  linkToken: (token: string) => `LINK#${token}`,
  ownerIndex: (owner: string) => `OWNER#${owner}`,
  sessionIndex: (sessionKey: string) => `SESSION#${sessionKey}`,
  agentIndex: (agentId: string) => `AGENT#${agentId}`,
  askerIndex: (askedBy: string) => `ASKER#${askedBy}`,
  createdOrder: (createdAtMs: number, id: string) => `${String(createdAtMs).padStart(15, "0")}#${id}`,
};
