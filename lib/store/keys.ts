/**
 * Every DynamoDB key string Handraise writes, in one place. One table holds several entities, each item
 * carrying its `entity` name; the pending-question indexes are sparse (their key attributes are removed when
 * a question closes), so a Query on them returns only open questions — no Scan anywhere.
 */

export const INDEX = {
  pendingByOwner: { name: "pendingByOwner", partitionKey: "ownerKey" },
  pendingBySession: { name: "pendingBySession", partitionKey: "sessionIndexKey" },
  pendingByAgent: { name: "pendingByAgent", partitionKey: "agentKey" },
} as const;

/** The sort key of the pending indexes: creation time (zero-padded, so it sorts as text) then id. */
export const CREATED_ORDER = "createdOrder";

export type Entity = "question" | "sessionSlot" | "transcript";

export const keys = {
  question: (id: string) => `Q#${id}`,
  /** The one-pending-question-per-session slot: a conditional write on it is the lock. */
  sessionSlot: (sessionKey: string) => `SESSION#${sessionKey}`,
  transcript: (runId: string) => `RUN#${runId}`,
  ownerIndex: (owner: string) => `OWNER#${owner}`,
  sessionIndex: (sessionKey: string) => `SESSION#${sessionKey}`,
  agentIndex: (agentId: string) => `AGENT#${agentId}`,
  createdOrder: (createdAtMs: number, id: string) => `${String(createdAtMs).padStart(15, "0")}#${id}`,
};
