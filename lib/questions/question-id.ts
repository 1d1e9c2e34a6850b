import { createHash } from "node:crypto";

export interface QuestionIdInput {
  runId?: string | undefined;
  sessionKey?: string | undefined;
  agentId?: string | undefined;
  toolCallId: string;
}

/**
 * The deterministic id of the question asked by one tool call: `ask_` + 32 lowercase hex characters.
 * The same run (or, without one, agent + session) and tool call always give the same id, so a retried
 * registration is idempotent. Fields are hashed as a JSON array, which cannot make two inputs collide
 * by shifting text from one field into the next.
 *
 * @example
 * questionIdFor({ runId: "arn:aws:states:…:execution:agent:run-1", toolCallId: "call_1" }) // → "ask_3f…"
 */
export function questionIdFor({ runId, sessionKey, agentId, toolCallId }: QuestionIdInput): string {
  const scope = runId ? ["run", runId] : sessionKey ? ["session", agentId ?? null, sessionKey] : undefined;
  if (!scope) throw new TypeError("questionIdFor needs a runId or a sessionKey");
  if (!toolCallId) throw new TypeError("questionIdFor needs a toolCallId");
  const digest = createHash("sha256")
    .update(JSON.stringify([...scope, toolCallId]))
    .digest("hex");
  return `ask_${digest.slice(0, 32)}`;
}
