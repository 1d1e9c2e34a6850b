/**
 * `GET /openapi.json`: the API's description (lib/http/openapi.ts), public and cacheable. The body is
 * serialised once per cold start; its ETag is a hash of it, so it changes exactly when the document does.
 */
import { createHash } from "node:crypto";
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from "aws-lambda";

/** A cache may keep it five minutes, then check it with If-None-Match (a deploy can change it). */
const CACHE_CONTROL = "public, max-age=300";

export function createOpenApiRoute(document: unknown) {
  const body = JSON.stringify(document);
  const etag = `"${createHash("sha256").update(body).digest("base64url")}"`;
  const headers = {
    etag,
    "cache-control": CACHE_CONTROL,
    // A description holds no secret: API tools and documentation pages in a browser may fetch it.
    "access-control-allow-origin": "*",
  };
  return async function openApi(event: APIGatewayProxyEventV2): Promise<APIGatewayProxyStructuredResultV2> {
    if (matches(event.headers?.["if-none-match"], etag)) return { statusCode: 304, headers, body: "" };
    return { statusCode: 200, headers: { ...headers, "content-type": "application/json" }, body };
  };
}

/** If-None-Match as RFC 9110 compares it: `*`, or any listed tag equal to ours, weak or strong. */
function matches(ifNoneMatch: string | undefined, etag: string): boolean {
  if (ifNoneMatch === undefined) return false;
  return ifNoneMatch
    .split(",")
    .map((tag) => tag.trim().replace(/^W\//, ""))
    .some((tag) => tag === "*" || tag === etag);
}
