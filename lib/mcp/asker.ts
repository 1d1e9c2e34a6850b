/**
 * Who an MCP tool call asks, and where: the request headers `X-Handraise-Owner` and
 * `X-Handraise-Deliver-To` (`telegram:42,slack:C123`: comma-separated `<channel>:<chatId>`, each split at
 * its first `:`), else the deployment's HANDRAISE_MCP_OWNER / HANDRAISE_MCP_DELIVER_TO. No target is
 * allowed, as in the question API: the question is then answered on its answer page or over the API.
 */
import { type DeliveryTarget, deliveryTargetSchema, ownerSchema } from "../questions/question-record.ts";
import * as z from "../zod.ts";

export interface Asker {
  owner: string;
  deliverTo: DeliveryTarget[];
}

/** The most targets one question goes to (as the question API's `deliverTo`). */
const MAX_TARGETS = 10;

/** `telegram:42, slack:C1` → targets; what is wrong, when malformed. */
export function parseDeliverTo(text: string): { targets: DeliveryTarget[] } | { problem: string } {
  const targets: DeliveryTarget[] = [];
  for (const part of text
    .split(",")
    .map((p) => p.trim())
    .filter(Boolean)) {
    const colon = part.indexOf(":");
    const target = { channel: part.slice(0, colon), chatId: part.slice(colon + 1) };
    if (colon <= 0 || !deliveryTargetSchema.safeParse(target).success) {
      return { problem: `"${part}" is not <channel>:<chatId>` };
    }
    targets.push(target);
  }
  if (targets.length > MAX_TARGETS) return { problem: `at most ${MAX_TARGETS} targets` };
  return { targets };
}

/**
 * The owner value's problem, if any (platform-qualified, as everywhere), as a sentence about `field` (the
 * header, variable or flag it came in): `X-Handraise-Owner must be platform-qualified, e.g. …`.
 */
export function ownerProblem(owner: string, field: string): string | undefined {
  const parsed = z.object({ [field]: ownerSchema }).safeParse({ [field]: owner });
  return parsed.success ? undefined : parsed.error.issues[0]?.message;
}

/** The asker of a request; a sentence saying what is missing or malformed otherwise. */
export function askerOf(
  headers: Record<string, string | undefined>,
  defaults: { owner: string | undefined; deliverTo: string | undefined },
): Asker | { problem: string } {
  const owner = headers["x-handraise-owner"] ?? defaults.owner;
  if (owner === undefined) {
    return { problem: "No one to ask: send X-Handraise-Owner, or set HANDRAISE_MCP_OWNER." };
  }
  const badOwner = ownerProblem(owner, "X-Handraise-Owner");
  if (badOwner) return { problem: `${badOwner}.` };
  const deliverTo = parseDeliverTo(headers["x-handraise-deliver-to"] ?? defaults.deliverTo ?? "");
  if ("problem" in deliverTo) return { problem: `X-Handraise-Deliver-To: ${deliverTo.problem}.` };
  return { owner, deliverTo: deliverTo.targets };
}
