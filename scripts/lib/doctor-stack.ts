/**
 * `npm run doctor`'s view of a stack from outside, through its HTTP API alone: whether it answers, whether
 * it takes the key (and what the key may do), which chat channels it has on, and whether its answer page is
 * on. Nothing here changes anything: the reads are a listing, requests no verified webhook accepts, and an
 * answer to a question id nobody uses.
 */
import { randomBytes } from "node:crypto";
import type { ApiKey, ApiKeyScope } from "../../lib/auth/api-keys.ts";
import { CHANNEL_SPECS } from "../../lib/channels/channel-specs.ts";
import { networkCode, parseJsonOrUndefined } from "../../lib/http/outbound.ts";
import { type ChannelName, parseChannelList } from "../../lib/secrets/secret-catalog.ts";
import { type Check, fail, pass } from "./doctor-checks.ts";

/** The parts of the API's bodies the doctor reads (docs/api.md); any may be missing. */
export interface StackBody {
  id?: string;
  status?: string;
  reason?: string;
  expiresAtMs?: number;
  answerUrl?: string;
  answers?: Record<string, string[]>;
  question?: {
    status?: string;
    resolvedBy?: string;
    deliveries?: { channel: string; chatId: string; messageId?: string }[];
  };
  error?: { code?: string; message?: string };
}

export interface StackReply {
  status: number;
  /** `{}` when the body is not a JSON object. */
  body: StackBody;
  retryAfterMs?: number;
}

export interface StackClient {
  url: string;
  /** One request; `auth: false` sends no key. Throws on a network failure or time-out. */
  call(
    method: string,
    path: string,
    options?: { body?: unknown; timeoutMs?: number; signal?: AbortSignal; auth?: boolean },
  ): Promise<StackReply>;
}

const REQUEST_TIMEOUT_MS = 15_000;

export function createStackClient(url: string, key: string, fetchFn: typeof fetch = fetch): StackClient {
  return {
    url,
    async call(method, path, options = {}) {
      const timeout = AbortSignal.timeout(options.timeoutMs ?? REQUEST_TIMEOUT_MS);
      const response = await fetchFn(`${url}${path}`, {
        method,
        headers: {
          ...(options.auth !== false && { authorization: `Bearer ${key}` }),
          ...(options.body !== undefined && { "content-type": "application/json" }),
        },
        ...(options.body !== undefined && { body: JSON.stringify(options.body) }),
        signal: options.signal ? AbortSignal.any([options.signal, timeout]) : timeout,
      });
      const parsed = parseJsonOrUndefined(await response.text());
      const retryAfter = Number(response.headers.get("retry-after"));
      return {
        status: response.status,
        body: typeof parsed === "object" && parsed !== null ? (parsed as StackBody) : {},
        ...(Number.isFinite(retryAfter) && retryAfter > 0 && { retryAfterMs: retryAfter * 1000 }),
      };
    },
  };
}

/** `HTTP 500 INTERNAL`: a reply's status and error code, for a line. */
export function statusOf(reply: StackReply): string {
  const code = reply.body.error?.code;
  return `HTTP ${reply.status}${typeof code === "string" ? ` ${code}` : ""}`;
}

/** A network failure in a word (ECONNREFUSED, ENOTFOUND, "no answer in time"). */
export function unreachable(error: unknown): string {
  const code = networkCode(error);
  return code === "TimeoutError" || code === "AbortError" ? "no answer in time" : code;
}

/** An id no question has: what the probes below ask about, so that nothing is found and nothing changes. */
const probeId = () => `doctor_probe_${randomBytes(12).toString("hex")}`;

export interface ApiFindings {
  checks: Check[];
  /** Whether the API answered as Handraise's does: the other checks need it. */
  reached: boolean;
  keyAccepted: boolean;
}

/**
 * A listing nobody's question is in (`GET /questions?owner=…`), which every key may make: a 200 says the API
 * answers and takes the key, a 401 that it answers and refuses it.
 */
export async function checkApi(client: StackClient, keyFix: string): Promise<ApiFindings> {
  const where = `the API at ${client.url}`;
  let reply: StackReply;
  try {
    reply = await client.call("GET", "/questions?owner=web%3Ahandraise-doctor&limit=1");
  } catch (error) {
    return {
      checks: [
        fail(
          `${where} cannot be reached (${unreachable(error)})`,
          "check --url: the stack output HttpApiUrl (locally, the URL npm run local prints)",
        ),
      ],
      reached: false,
      keyAccepted: false,
    };
  }
  if (reply.status === 401) {
    return {
      checks: [pass(`${where} answers`), fail("the API refused the key (401)", keyFix)],
      reached: true,
      keyAccepted: false,
    };
  }
  if (reply.status === 200 && Array.isArray((reply.body as { questions?: unknown }).questions)) {
    return { checks: [pass(`${where} answers`)], reached: true, keyAccepted: true };
  }
  if (reply.status >= 500 && reply.body.error !== undefined) {
    return {
      checks: [
        fail(
          `${where} fails: GET /questions answered ${statusOf(reply)}`,
          "see the questionsApi function's log (docs/operating.md)",
        ),
      ],
      reached: false,
      keyAccepted: false,
    };
  }
  return {
    checks: [
      fail(
        `${client.url} does not answer as Handraise's API does (GET /questions: ${statusOf(reply)})`,
        "give --url the stack output HttpApiUrl, without a path",
      ),
    ],
    reached: false,
    keyAccepted: false,
  };
}

const MAY: Record<ApiKeyScope, string> = {
  ask: "it may ask, and read, wait for and cancel its own questions; it may not answer",
  answer: "it may ask, read every question, and answer or cancel any question but its own",
  admin: "it may do anything (the operator's key: never give it to an agent)",
};

/**
 * What the key may do. The API tells an `ask` key from the others by refusing it an answer before reading
 * anything (403 INSUFFICIENT_SCOPE); another key is told the probe's question does not exist (404). The
 * deployment's own key list (`identified`, read as the stack reads it) names the key and tells `answer` from
 * `admin`; `mustBeKnown`: a key the stack takes that is not on that list means the list is another stack's.
 */
export async function checkKeyScope(
  client: StackClient,
  identified: ApiKey | undefined,
  mustBeKnown: { where: string; fix: string } | undefined,
): Promise<Check> {
  let reply: StackReply | undefined;
  try {
    reply = await client.call("POST", `/questions/${probeId()}/answer`, { body: { answers: {} } });
  } catch {
    reply = undefined;
  }
  const code = reply?.body.error?.code;
  const scope: "ask" | "answer or admin" | undefined =
    reply?.status === 403 && code === "INSUFFICIENT_SCOPE"
      ? "ask"
      : reply?.status === 404
        ? "answer or admin"
        : undefined;
  if (identified !== undefined) {
    const seen = scope === undefined || (scope === "ask") === (identified.scope === "ask");
    const what = `the key is accepted: "${identified.name}", scope ${identified.scope}: ${MAY[identified.scope]}`;
    return seen
      ? pass(what)
      : fail(
          `the key is "${identified.name}", scope ${identified.scope}, but the API treats it as scope ${scope}`,
          mustBeKnown?.fix ?? "check that this environment holds the stack's keys",
        );
  }
  if (mustBeKnown !== undefined) {
    return fail(`the key is accepted, but it is none of the keys ${mustBeKnown.where}`, mustBeKnown.fix);
  }
  if (scope === "ask") return pass(`the key is accepted, scope ask: ${MAY.ask}`);
  if (scope === "answer or admin") {
    return pass("the key is accepted, scope answer or admin: it may ask, and answer or cancel any question");
  }
  return pass("the key is accepted (what it may do could not be told)");
}

/** The channels with a webhook (a manifest's `webhook`): the ones a probe can find on or off. */
const WEBHOOK_CHANNELS: ChannelName[] = CHANNEL_SPECS.filter(
  (spec) => spec.manifest.webhook !== undefined,
).map((spec) => spec.name);

/**
 * The channels without a webhook (e-mail), which no probe can find on or off: on when the settings given to
 * the doctor say so, as lib/config.ts reads them — listed in HANDRAISE_CHANNELS, or, without that list, their
 * manifest's `onLocally` variable set (deployed: the deploy parameter's value, as the other settings).
 */
export function channelsSaidOn(env: Record<string, string | undefined>): ChannelFindings {
  const listed = env.HANDRAISE_CHANNELS?.trim()
    ? parseChannelList(env.HANDRAISE_CHANNELS).channels
    : undefined;
  const on = CHANNEL_SPECS.filter((spec) => {
    if (spec.manifest.webhook !== undefined) return false;
    if (listed) return listed.includes(spec.name);
    const variable = spec.manifest.onLocally;
    return variable !== undefined && Boolean(env[variable]);
  });
  return {
    on: on.map((spec) => spec.name),
    checks: on.map((spec) =>
      pass(
        `${spec.name} on, as this environment says (${listed ? "HANDRAISE_CHANNELS lists it" : `${spec.manifest.onLocally} is set`})`,
      ),
    ),
  };
}

export interface ChannelFindings {
  /** The channels the stack has on, failing ones included. */
  on: ChannelName[];
  checks: Check[];
}

/**
 * Which channels the stack has on, as its webhooks say: a channel that is off answers 404 CHANNEL_DISABLED to
 * anything, one that is on refuses a request its platform did not sign (401). A 5xx is a webhook that is on
 * and fails — typically its function cannot start for a missing or malformed secret.
 */
export async function probeChannels(client: StackClient): Promise<ChannelFindings> {
  const replies = await Promise.all(
    WEBHOOK_CHANNELS.map(async (channel) => {
      try {
        return await client.call("POST", `/webhooks/${channel}`, { body: {}, auth: false });
      } catch (error) {
        return error;
      }
    }),
  );
  const on: ChannelName[] = [];
  const off: ChannelName[] = [];
  const problems: Check[] = [];
  WEBHOOK_CHANNELS.forEach((channel, i) => {
    const reply = replies[i] as StackReply | Error;
    const route = `POST /webhooks/${channel}`;
    if (!("status" in reply)) {
      problems.push(
        fail(`the ${channel} webhook cannot be reached (${unreachable(reply)})`, "check --url and run again"),
      );
    } else if (reply.status === 401) on.push(channel);
    else if (reply.status === 404) off.push(channel);
    else if (reply.status >= 500) {
      on.push(channel);
      problems.push(
        fail(
          `the ${channel} webhook fails: ${route} answered ${statusOf(reply)}`,
          `its function cannot start or serve: see the ${channel} secrets below and the ${channel}Webhook function's log (docs/operating.md)`,
        ),
      );
    } else {
      problems.push(
        fail(
          `the ${channel} webhook answered an unsigned request with ${statusOf(reply)}, not 401`,
          "check that --url is a Handraise stack's HttpApiUrl",
        ),
      );
    }
  });
  const summary = pass(
    `channels on: ${on.length > 0 ? on.join(", ") : "none"}${off.length > 0 ? `; off: ${off.join(", ")}` : ""}`,
  );
  return { on, checks: [summary, ...problems] };
}

/**
 * Whether the answer page is on, as the stack says: with a link secret, a malformed link is refused (403);
 * without one, every link is answered 404 and nothing is read.
 */
export async function probeAnswerPage(client: StackClient): Promise<"on" | "off" | { failed: string }> {
  try {
    const reply = await client.call("GET", `/answer/${probeId()}?sig=doctor`, { auth: false });
    if (reply.status === 403) return "on";
    if (reply.status === 404) return "off";
    return { failed: `HTTP ${reply.status}` };
  } catch (error) {
    return { failed: unreachable(error) };
  }
}
