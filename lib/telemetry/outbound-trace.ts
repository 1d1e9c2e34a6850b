/**
 * Outbound HTTP calls in the trace, recorded by Handraise itself rather than by the X-Ray SDK's automatic
 * capture: that capture writes each request's URL path into the trace, and the paths Handraise calls carry
 * credentials (Telegram's bot token, a durable callback's id). Each call is a subsegment named by its host,
 * with the HTTP method, the reply's status, the error / throttle / fault flags, and the call's name as its
 * caller gives it (`sendMessage`, `SendDurableExecutionCallbackSuccess`) in the `operation` annotation —
 * never its path, query, headers or body.
 *
 * The few clients every outbound call goes through (lib/channels/platform-http.ts, lib/agent/provider-http.ts,
 * lib/aws/signed-request.ts, and the key and token fetches of lib/channels/) call `traceOutbound`; it records
 * nothing until a traced function's observability (lib/telemetry/observability.ts) installs the X-Ray
 * recorder, so untraced functions and tests load no X-Ray code for it. AWS SDK clients are traced by
 * `captureAWSv3Client` instead (service, operation, Region, request id: no request data).
 */
import type { Tracer } from "@aws-lambda-powertools/tracer";
import { networkCode } from "../http/outbound.ts";

/** One outbound call, as the trace may show it. */
export interface OutboundCall {
  /** Where it goes: only its protocol and host are kept (the path may hold a token). */
  url: string;
  method: string;
  /** What the caller calls it, never a secret: `sendMessage`, `POST /channels/{id}/messages`, `GetParameter`. */
  name: string;
}

/** The end of one recorded call: answered with a status, or failed before any answer (a code, no message). */
export interface OutboundSpan {
  answered(status: number): void;
  failed(code: string): void;
}

/** Starts a span per call; undefined when there is nothing to record it in (no segment). */
export type OutboundRecorder = (call: OutboundCall) => OutboundSpan | undefined;

let recorder: OutboundRecorder | undefined;

/** Installs (or, undefined, removes) what records outbound calls in this process. */
export function recordOutboundCallsWith(next: OutboundRecorder | undefined): void {
  recorder = next;
}

/**
 * `sending`, recorded as one call: its status read by `statusOf` from the reply, or its failure's code.
 * Takes the call already under way (the promise), so that wrapping it changes nothing about how it is made.
 *
 * @example
 * const response = await traceOutbound({ url, method: "POST", name: "sendMessage" }, fetch(url, init), (r) => r.status);
 */
export async function traceOutbound<T>(
  call: OutboundCall,
  sending: Promise<T>,
  statusOf: (reply: T) => number,
): Promise<T> {
  const span = startSpan(call);
  if (span === undefined) return sending;
  let reply: T;
  try {
    reply = await sending;
  } catch (error) {
    endQuietly(() => span.failed(networkCode(error)));
    throw error;
  }
  endQuietly(() => span.answered(statusOf(reply)));
  return reply;
}

/**
 * The recorder's span for `call`, or none when recording throws (the X-Ray SDK throws outside a segment when
 * AWS_XRAY_CONTEXT_MISSING says so): a call already on the wire must not be reported failed for its trace.
 */
function startSpan(call: OutboundCall): OutboundSpan | undefined {
  try {
    return recorder?.(call);
  } catch {
    return undefined;
  }
}

/** Ends a span; if that throws, only the call's record is lost, never its reply or its own failure. */
function endQuietly(end: () => void): void {
  try {
    end();
  } catch {
    // The span is dropped.
  }
}

/** `https://api.telegram.org/bot<token>/sendMessage` → `https:` and `api.telegram.org`. */
function originOf(url: string): { protocol: string; host: string } {
  try {
    const { protocol, host } = new URL(url);
    return { protocol, host };
  } catch {
    return { protocol: "", host: "unknown" };
  }
}

/**
 * Records each call as an X-Ray subsegment of the current segment (the handler's, opened by the Tracer's
 * middleware), with the flags X-Ray's own HTTP capture sets: 429 throttle and error, 4xx error, 5xx fault, a
 * call that got no answer error and fault (its code as the cause).
 */
export function xrayOutboundRecorder(tracer: Tracer): OutboundRecorder {
  return (call) => {
    const parent = tracer.getSegment();
    if (parent === undefined) return undefined;
    const { protocol, host } = originOf(call.url);
    const subsegment = parent.addNewSubsegment(host);
    const request = { method: call.method, url: `${protocol}//${host}` };
    subsegment.addAttribute("namespace", "remote");
    subsegment.addAttribute("http", { request });
    subsegment.addAnnotation("operation", call.name);
    return {
      answered(status) {
        subsegment.addAttribute("http", { request, response: { status } });
        if (status === 429) subsegment.addThrottleFlag();
        if (status >= 400 && status < 500) subsegment.addErrorFlag();
        else if (status >= 500) subsegment.addFaultFlag();
        subsegment.close();
      },
      failed(code) {
        subsegment.addErrorFlag();
        subsegment.close(code, true);
      },
    };
  };
}
