/**
 * The `cursor` of GET /questions: the position of the last question of a page, opaque to callers
 * (base64url of JSON `{createdAtMs, id}`). It only says where in creation order the next page starts: the
 * store builds the DynamoDB start key from it and from the listing's own filter, so a cursor cannot choose an
 * index or a partition, and whatever a caller sends, it is either a position or a 400.
 */
import { RECORD_ID_PATTERN } from "../questions/question-record.ts";
import type { PagePosition } from "../store/question-store.ts";
import * as z from "../zod.ts";

const CURSOR_ERROR = "cursor must be the nextCursor of an earlier page";

/** The pending indexes sort on the creation time written as 15 digits (keys.createdOrder). */
const MAX_CREATED_AT_MS = 999_999_999_999_999;

const positionSchema = z.strictObject({
  createdAtMs: z.int().check(z.gte(0), z.lte(MAX_CREATED_AT_MS)),
  id: z.string().check(z.regex(RECORD_ID_PATTERN)),
});

export function encodePageCursor(position: PagePosition): string {
  return Buffer.from(JSON.stringify({ createdAtMs: position.createdAtMs, id: position.id })).toString(
    "base64url",
  );
}

/** A cursor → its position; anything else is an issue at the cursor, reported by the one error mapper. */
export const pageCursorSchema = z.pipe(
  // Unpadded base64url of a small JSON object.
  z.string().check(z.regex(/^[A-Za-z0-9_-]{1,256}$/, { error: CURSOR_ERROR })),
  z.transform((cursor: string, context): PagePosition => {
    const position = positionSchema.safeParse(parseJson(Buffer.from(cursor, "base64url").toString("utf8")));
    if (position.success) return position.data;
    context.issues.push({ code: "custom", message: CURSOR_ERROR, input: cursor });
    return z.NEVER;
  }),
);

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
