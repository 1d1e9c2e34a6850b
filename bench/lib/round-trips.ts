/**
 * Counts the round trips a request makes before its response: every HTTP request a handler sends while the
 * local HTTP gateway runs it (infra/local/invocation-context.ts tells whose a request is), seen through
 * Node's diagnostics channels — `http.client.*` for the AWS SDK clients, `undici:request:*` for `fetch`
 * (the chat APIs). A count does not move with machine noise, unlike a latency.
 *
 * Sequential calls are the longest chain of calls in which each starts after the one before it answered:
 * two calls sent side by side (Promise.all) are one step.
 */
import dc from "node:diagnostics_channel";
import { type Invocation, invocationContext } from "#infra/local/invocation-context.ts";

export interface RoundTrip {
  kind: "aws" | "chat";
  /** `DynamoDB PutItem`, `SFN SendTaskSuccess`, `chat answerCallbackQuery`, … */
  label: string;
  /** `performance.now()` when the request was created, and when its response's headers arrived. */
  startedAt: number;
  answeredAt: number;
}

export interface PathRoundTrips {
  /** Calls started before the handler returned, in the order they started. */
  calls: RoundTrip[];
  /** The longest chain of AWS calls each waiting for the one before. */
  sequentialAws: number;
  /** The same for chat-API calls. */
  sequentialChat: number;
  /** The calls as steps: `A ∥ B → C` (∥: side by side; →: after the previous step answered). */
  shape: string;
}

interface Tracked {
  invocation: Invocation;
  trip: RoundTrip;
}

const SERVICE_PREFIXES: [string, string][] = [
  ["DynamoDB_20120810.", "DynamoDB "],
  ["AWSStepFunctions.", "SFN "],
  ["AWSEvents.", "EventBridge "],
  ["AmazonSQS.", "SQS "],
  ["AmazonSSM.", "SSM "],
];

function awsLabel(target: string | undefined, path: string): string {
  if (!target) return `AWS ${path}`;
  for (const [prefix, name] of SERVICE_PREFIXES)
    if (target.startsWith(prefix)) return name + target.slice(prefix.length);
  return target;
}

/** Records every request of every gateway invocation until `stop`. */
export function startRoundTripTracker(options: { chatOrigins: string[] }) {
  const byInvocation = new Map<Invocation, RoundTrip[]>();
  const open = new WeakMap<object, Tracked>();
  const isChat = (origin: string) => options.chatOrigins.some((chat) => origin.startsWith(chat));

  const begin = (request: object, kind: RoundTrip["kind"], label: string) => {
    const invocation = invocationContext.getStore();
    if (!invocation) return;
    const trip: RoundTrip = { kind, label, startedAt: performance.now(), answeredAt: Number.NaN };
    const list = byInvocation.get(invocation) ?? [];
    list.push(trip);
    byInvocation.set(invocation, list);
    open.set(request, { invocation, trip });
  };
  const answered = (request: object) => {
    const tracked = open.get(request);
    if (tracked && Number.isNaN(tracked.trip.answeredAt)) tracked.trip.answeredAt = performance.now();
  };

  const onHttpStart = (message: unknown) => {
    const { request } = message as {
      request: { getHeader(name: string): unknown; path: string; host?: string };
    };
    const host = String(request.getHeader("host") ?? request.host ?? "");
    const origin = `http://${host}`;
    const target = request.getHeader("x-amz-target");
    if (isChat(origin)) begin(request, "chat", `chat ${request.path.split("/").pop()}`);
    else begin(request, "aws", awsLabel(typeof target === "string" ? target : undefined, request.path));
  };
  const onHttpAnswered = (message: unknown) => answered((message as { request: object }).request);
  const onFetchStart = (message: unknown) => {
    const { request } = message as { request: { origin: string; path: string; headers: unknown } };
    const headers = request.headers as string[] | string;
    let target: string | undefined;
    if (Array.isArray(headers)) {
      const at = headers.findIndex((h, i) => i % 2 === 0 && String(h).toLowerCase() === "x-amz-target");
      if (at >= 0) target = String(headers[at + 1]);
    }
    if (isChat(String(request.origin)))
      begin(request, "chat", `chat ${request.path.split("?")[0]?.split("/").pop()}`);
    else begin(request, "aws", awsLabel(target, request.path));
  };
  const onFetchAnswered = (message: unknown) => answered((message as { request: object }).request);

  const subscriptions: [string, (message: unknown) => void][] = [
    ["http.client.request.start", onHttpStart],
    ["http.client.response.finish", onHttpAnswered],
    ["undici:request:create", onFetchStart],
    ["undici:request:headers", onFetchAnswered],
  ];
  for (const [name, listener] of subscriptions) dc.subscribe(name, listener);

  return {
    /** Forgets everything recorded so far. */
    clear(): void {
      byInvocation.clear();
    },
    /** The round trips of the one finished invocation of `functionName` recorded since the last clear. */
    of(functionName: string): PathRoundTrips {
      const invocations = [...byInvocation.keys()].filter(
        (invocation) => invocation.functionName === functionName && invocation.endedAt !== undefined,
      );
      if (invocations.length !== 1) {
        throw new Error(`expected one finished invocation of ${functionName}, found ${invocations.length}`);
      }
      const invocation = invocations[0] as Invocation;
      const ended = invocation.endedAt ?? Number.POSITIVE_INFINITY;
      const calls = (byInvocation.get(invocation) ?? [])
        .filter((trip) => trip.startedAt < ended)
        .map((trip) => (Number.isNaN(trip.answeredAt) ? { ...trip, answeredAt: ended } : trip))
        .sort((a, b) => a.startedAt - b.startedAt);
      return {
        calls,
        sequentialAws: longestChain(calls.filter((c) => c.kind === "aws")),
        sequentialChat: longestChain(calls.filter((c) => c.kind === "chat")),
        shape: shapeOf(calls),
      };
    },
    stop(): void {
      for (const [name, listener] of subscriptions) dc.unsubscribe(name, listener);
    },
  };
}

export type RoundTripTracker = ReturnType<typeof startRoundTripTracker>;

/** The longest chain in which each call started after the previous one answered (calls sorted by start). */
export function longestChain(calls: readonly RoundTrip[]): number {
  const chain: number[] = [];
  let longest = 0;
  calls.forEach((call, i) => {
    let before = 0;
    for (let j = 0; j < i; j++) {
      const earlier = calls[j] as RoundTrip;
      if (earlier.answeredAt <= call.startedAt) before = Math.max(before, chain[j] ?? 0);
    }
    chain[i] = before + 1;
    longest = Math.max(longest, before + 1);
  });
  return longest;
}

/** `DynamoDB PutItem ∥ DynamoDB GetItem → DynamoDB UpdateItem → SFN SendTaskSuccess`. */
export function shapeOf(calls: readonly RoundTrip[]): string {
  const steps: RoundTrip[][] = [];
  for (const call of calls) {
    const last = steps.at(-1);
    if (last?.some((earlier) => earlier.answeredAt > call.startedAt)) last.push(call);
    else steps.push([call]);
  }
  return steps.map((step) => step.map((c) => c.label).join(" ∥ ")).join(" → ") || "(none)";
}
