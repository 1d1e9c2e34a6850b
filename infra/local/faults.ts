/**
 * Fault injection for the local stack: a switch that makes a local AWS API (the DynamoDB proxy, the Step
 * Functions server) answer the next N matching calls with one of AWS's own errors, so tests see the exact
 * protocol behaviour a throttled or failing service shows — and the SDK's own retries on top of it.
 */

/** Error codes AWS JSON services answer with when throttled or failing. */
export type FaultCode =
  | "ThrottlingException"
  | "ProvisionedThroughputExceededException"
  | "InternalServerError"
  | "ServiceUnavailable"
  /** A permanent refusal (a role without the permission): retrying cannot help. */
  | "AccessDeniedException";

export interface FaultSpec {
  code: FaultCode;
  /** HTTP status: AWS throttles with 400 (the code says it is retryable), fails with 500 or 503. */
  status: 400 | 500 | 503;
  /** X-Amz-Target operation names (e.g. `UpdateItem`, `SendTaskSuccess`); every operation when absent. */
  operations?: string[];
  message?: string;
  /**
   * The call is served first (a write is applied) and only its response is the error: a response lost after
   * the service acted (AWS says a 500 may have succeeded). Both servers support it (DynamoDB, Step Functions).
   */
  applied?: boolean;
}

export interface InjectedFault {
  code: FaultCode;
  status: number;
  message: string;
  applied: boolean;
}

export interface FaultSwitch {
  /** The next `count` calls that match fail with `spec` (added after any failures still pending). */
  failNext(count: number, spec: FaultSpec): void;
  /** Drops every pending failure; returns how many were left unused. */
  clear(): number;
  /** How many injected failures have been answered since the stack started. */
  readonly injected: number;
}

const DEFAULT_MESSAGES: Record<FaultCode, string> = {
  ThrottlingException: "Rate exceeded",
  ProvisionedThroughputExceededException:
    "The level of configured provisioned throughput for the table was exceeded. Consider increasing your provisioning level with the UpdateTable API.",
  InternalServerError: "Internal server error",
  ServiceUnavailable: "Service Unavailable",
  AccessDeniedException: "User is not authorized to perform this action",
};

/** A fault switch plus `take`, which the server calls once per request to learn whether it must fail. */
export function createFaultSwitch(): FaultSwitch & { take(operation: string): InjectedFault | undefined } {
  const pending: { remaining: number; spec: FaultSpec }[] = [];
  let injected = 0;
  return {
    failNext(count, spec) {
      if (!Number.isInteger(count) || count < 1) throw new Error("failNext needs a positive integer count");
      pending.push({ remaining: count, spec });
    },
    clear() {
      const left = pending.reduce((sum, entry) => sum + entry.remaining, 0);
      pending.length = 0;
      return left;
    },
    get injected() {
      return injected;
    },
    take(operation) {
      const entry = pending.find((e) => !e.spec.operations || e.spec.operations.includes(operation));
      if (!entry) return undefined;
      entry.remaining -= 1;
      if (entry.remaining === 0) pending.splice(pending.indexOf(entry), 1);
      injected += 1;
      const { code, status, message, applied = false } = entry.spec;
      return { code, status, message: message ?? DEFAULT_MESSAGES[code], applied };
    },
  };
}
