/**
 * Who an MCP tool call asks, and where: the request headers `X-Handraise-Owner` and
 * `X-Handraise-Deliver-To` (`telegram:42,slack:C123`: comma-separated `<channel>:<chatId>`, each split at
 * its first `:`), else the deployment's HANDRAISE_MCP_OWNER / HANDRAISE_MCP_DELIVER_TO. No target is
 * allowed, as in the question API: the question is then answered on its answer page or over the API.
 *
 * What the person is told of who asks and why (the question's `context`) comes the same way — the header
 * `X-Handraise-Context`, else HANDRAISE_MCP_CONTEXT — and never from the model: it is not an ask_user
 * argument. The header is percent-encoded UTF-8 (as `encodeURIComponent` writes it), since a header can
 * carry neither a line break nor, in most clients, anything beyond Latin-1; plain ASCII without `%` reads
 * as it is.
 */
import {
  contextSchema,
  type DeliveryTarget,
  deliveryTargetSchema,
  ownerSchema,
} from "../questions/question-record.ts";
import * as z from "../zod.ts";

export interface Asker {
  owner: string;
  deliverTo: DeliveryTarget[];
  /** Who is asking and why, canonical; absent when neither the request nor the deployment says. */
  context?: string;
}

/**
 * Neither the request nor the deployment says whom to ask. Only whoever configures the MCP client or the
 * deployment can fix that, so the sentence says how, and tells the model that asking again will not help.
 */
export const NO_ASKER_MESSAGE =
  "No one to ask: this MCP client sends no X-Handraise-Owner header and the deployment sets no default owner. " +
  "To fix it, add the header X-Handraise-Owner: <channel>:<id> (e.g. telegram:42) to this MCP server's entry " +
  "in the client's configuration, or set HANDRAISE_MCP_OWNER (the mcpOwner parameter when deployed). " +
  "Asking again will not help until then.";

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

/** The context's problem, if any (the rules of every question's context). */
export function contextProblem(context: string): string | undefined {
  const parsed = contextSchema.safeParse(context);
  return parsed.success ? undefined : parsed.error.issues[0]?.message;
}

/** The context an `X-Handraise-Context` header carries (percent-encoded), or what is wrong with it. */
function headerContext(header: string): { context: string } | { problem: string } {
  let decoded: string;
  try {
    decoded = decodeURIComponent(header);
  } catch {
    return { problem: "X-Handraise-Context: not valid percent-encoding (write a % sign as %25)." };
  }
  const parsed = contextSchema.safeParse(decoded);
  return parsed.success
    ? { context: parsed.data }
    : { problem: `X-Handraise-Context: ${parsed.error.issues[0]?.message ?? "not valid"}.` };
}

/** The asker of a request; a sentence saying what is missing or malformed otherwise. */
export function askerOf(
  headers: Record<string, string | undefined>,
  defaults: { owner: string | undefined; deliverTo: string | undefined; context?: string | undefined },
): Asker | { problem: string } {
  const owner = headers["x-handraise-owner"] ?? defaults.owner;
  if (owner === undefined) {
    return { problem: NO_ASKER_MESSAGE };
  }
  const badOwner = ownerProblem(owner, "X-Handraise-Owner");
  if (badOwner) return { problem: `${badOwner}.` };
  const deliverTo = parseDeliverTo(headers["x-handraise-deliver-to"] ?? defaults.deliverTo ?? "");
  if ("problem" in deliverTo) return { problem: `X-Handraise-Deliver-To: ${deliverTo.problem}.` };
  const header = headers["x-handraise-context"];
  if (header === undefined) {
    // The deployment's default was checked when the configuration was loaded.
    const context = defaults.context === undefined ? undefined : contextSchema.parse(defaults.context);
    return { owner, deliverTo: deliverTo.targets, ...(context !== undefined && { context }) };
  }
  const context = headerContext(header);
  if ("problem" in context) return context;
  return { owner, deliverTo: deliverTo.targets, context: context.context };
}
