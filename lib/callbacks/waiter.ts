/**
 * Who waits on a question: a Step Functions run (its task token) or a Lambda durable execution (a callback
 * id of `context.waitForCallback`). Both are kept in the one `taskToken` attribute of the question item, the
 * durable kind under a `durable:` prefix: the store, the table's stream and the closing path carry one opaque
 * string as before, and only the callbacks adapter (lib/callbacks/waiter-callbacks.ts) looks at its kind.
 *
 * Unambiguous: task tokens and callback ids are base64 (`[A-Za-z0-9+/=]`), which has no `:`.
 */

/**
 * What a waiter may be made of where it enters (the AskUser task's input, a durable callback's
 * registration): base64, its URL-safe form (`-`, `_`) and the `durable:` prefix's `:`. Anything else (a
 * lone surrogate, a space) is no token either service hands out, and could not be sent back in a request.
 */
export const WAITER_PATTERN = /^[A-Za-z0-9+/=_:-]+$/;

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
