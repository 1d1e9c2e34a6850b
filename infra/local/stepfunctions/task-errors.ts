// Errors handed to the interpreter when a Task fails. It matches `ErrorEquals` against `error.name`, puts
// `error.message` in the Catch output's `Cause`, and reads the duck-typed `isRetryable` / `isCatchable`
// getters (default true) to decide whether Retry and Catch may see the error at all.

/** A task failure as Step Functions reports it: Error name and Cause string, both catchable. */
export class TaskFailureError extends Error {
  constructor(error: string, cause: string) {
    super(cause);
    this.name = error;
  }
}

/** `States.Runtime`: a broken definition or input at run time; never retried or caught, as on AWS. */
export class StatesRuntimeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "States.Runtime";
  }
  get isRetryable(): boolean {
    return false;
  }
  get isCatchable(): boolean {
    return false;
  }
}

/**
 * Ends a Task whose execution was stopped or has finished, so the interpreter's own timeout timer for it is
 * cleared. Nothing records it: the execution's event log is closed by then.
 */
export class ExecutionClosedError extends Error {
  constructor() {
    super("The execution is no longer running");
    this.name = "ExecutionClosedError";
  }
  get isRetryable(): boolean {
    return false;
  }
  get isCatchable(): boolean {
    return false;
  }
}

/** The Cause AWS Lambda's Node.js runtime reports for a handler that threw. */
export function lambdaErrorCause(errorType: string, errorMessage: string): string {
  return JSON.stringify({ errorType, errorMessage, trace: [] });
}

/** The thrown value as Lambda's Node.js runtime names it (`errorType`, `errorMessage`). */
export function describeThrown(thrown: unknown): { errorType: string; errorMessage: string } {
  if (thrown instanceof Error) return { errorType: thrown.name, errorMessage: thrown.message };
  return { errorType: "Error", errorMessage: String(thrown) };
}

/** A rejected promise that is already observed, for values the interpreter may never await. */
export function quietRejection<T>(error: Error): Promise<T> {
  const rejected = Promise.reject(error);
  rejected.catch(() => {});
  return rejected;
}
