import type { APIGatewayProxyStructuredResultV2 } from "aws-lambda";
import type { ErrorBody, ToolInputIssue } from "../questions/errors.ts";

export function json(statusCode: number, body: unknown): APIGatewayProxyStructuredResultV2 {
  return {
    statusCode,
    headers: { "content-type": "application/json", "cache-control": "no-store" },
    body: JSON.stringify(body),
  };
}

export function errorResponse(
  statusCode: number,
  code: string,
  message: string,
  extra: { issues?: ToolInputIssue[]; status?: string; pendingQuestionId?: string } = {},
): APIGatewayProxyStructuredResultV2 {
  const body: ErrorBody & { status?: string } = {
    error: {
      code,
      message,
      ...(extra.issues && { issues: extra.issues }),
      ...(extra.pendingQuestionId !== undefined && { pendingQuestionId: extra.pendingQuestionId }),
    },
  };
  if (extra.status !== undefined) body.status = extra.status;
  return json(statusCode, body);
}
