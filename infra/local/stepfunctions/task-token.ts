import { createHash, createHmac, randomBytes, timingSafeEqual } from "node:crypto";

// A local task token is base64 of: version byte | 16-byte task id | random filler | HMAC-SHA256 of the rest.
// - The random id makes it unguessable and single-use (the registry retires ids, never reuses them).
// - The filler makes it as long as AWS's (~600 characters, with + / = in it), so code that would squeeze a
//   token into a 64-byte chat payload or an unescaped URL fails locally the way it would on AWS.
// - The MAC makes a mangled or invented token detectable (InvalidToken) apart from a well-formed one that
//   was never issued (TaskDoesNotExist). Its key is fixed and public: it is a checksum, not a secret,
//   which also lets tests build a well-formed token that was never issued.
const VERSION = 1;
const ID_BYTES = 16;
const FILLER_BYTES = 400;
const MAC_BYTES = 32;
const TOKEN_BYTES = 1 + ID_BYTES + FILLER_BYTES + MAC_BYTES;
const MAC_KEY = createHash("sha256").update("handraise/local-stepfunctions/task-token/v1").digest();
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

/** AWS's documented maximum; longer input is a ValidationException, not an InvalidToken. */
export const MAX_TASK_TOKEN_LENGTH = 2048;

function mac(body: Buffer): Buffer {
  return createHmac("sha256", MAC_KEY).update(body).digest();
}

/** The token for task id `taskId` (32 hex characters). Each call gives a different string. */
export function encodeTaskToken(taskId: string): string {
  const id = Buffer.from(taskId, "hex");
  if (id.length !== ID_BYTES) throw new Error("A task id is 16 bytes of hex");
  const body = Buffer.concat([Buffer.from([VERSION]), id, randomBytes(FILLER_BYTES)]);
  return Buffer.concat([body, mac(body)]).toString("base64");
}

export function mintTaskToken(): { taskId: string; token: string } {
  const taskId = randomBytes(ID_BYTES).toString("hex");
  return { taskId, token: encodeTaskToken(taskId) };
}

/** The task id inside a well-formed token, or undefined when the token is malformed. */
export function decodeTaskToken(token: string): string | undefined {
  if (!BASE64.test(token)) return undefined;
  const bytes = Buffer.from(token, "base64");
  // Buffer's base64 decoder skips junk silently; re-encoding catches anything that was not canonical.
  if (bytes.length !== TOKEN_BYTES || bytes.toString("base64") !== token) return undefined;
  if (bytes[0] !== VERSION) return undefined;
  const body = bytes.subarray(0, TOKEN_BYTES - MAC_BYTES);
  if (!timingSafeEqual(mac(body), bytes.subarray(TOKEN_BYTES - MAC_BYTES))) return undefined;
  return body.subarray(1, 1 + ID_BYTES).toString("hex");
}
