/**
 * Who waits on a question: a Step Functions run (its task token) or a Lambda durable execution (a callback
 * id of `context.waitForCallback`). Both are kept in the one `taskToken` attribute of the question item, the
 * durable kind under a `durable:` prefix: the store, the table's stream and the closing path carry one opaque
 * string as before, and only the callbacks adapter (lib/callbacks/waiter-callbacks.ts) looks at its kind.
 *
 * Unambiguous: task tokens and callback ids are base64 (`[A-Za-z0-9+/=]`), which has no `:`.
 */

export type Waiter = { kind: "task"; taskToken: string } | { kind: "durable"; callbackId: string };

const DURABLE_PREFIX = "durable:";

/** The stored waiter of a durable execution's callback. */
export function durableWaiter(callbackId: string): string {
  return `${DURABLE_PREFIX}${callbackId}`;
}

/** The kind of waiter a stored token names. */
export function waiterOf(token: string): Waiter {
  return token.startsWith(DURABLE_PREFIX)
    ? { kind: "durable", callbackId: token.slice(DURABLE_PREFIX.length) }
    : { kind: "task", taskToken: token };
}
