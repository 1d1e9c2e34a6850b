import { request as httpRequest } from "node:http";
import { request as httpsRequest } from "node:https";
import type { WebhookSender } from "./notification-ports.ts";
import { guardedLookup, type NotifyUrlPolicy, notifyUrlProblem } from "./notify-url.ts";

/**
 * One attempt's limit, from connecting to the status line: a receiver that takes longer is retried later.
 * A total, not an idle time-out, so a receiver that trickles bytes cannot hold the notifier (and the other
 * notifications of its batch) until the function's own time-out.
 */
const ATTEMPT_TIMEOUT_MS = 5_000;

/**
 * POSTs with node:http(s): the URL is checked again, every address its host resolves to is checked on the
 * connection (lib/notify/notify-url.ts), redirects are not followed (a 3xx is a failed attempt) and the
 * receiver's body is not read: the status code is the answer, and the connection is closed on it.
 */
export function createHttpsWebhookSender(policy: NotifyUrlPolicy): WebhookSender {
  const lookup = guardedLookup(policy);
  return {
    post(url, body, headers) {
      const problem = notifyUrlProblem(url, policy);
      if (problem) return Promise.reject(new Error(`notify URL refused: it ${problem}`));
      const target = new URL(url);
      const send = target.protocol === "https:" ? httpsRequest : httpRequest;
      return new Promise<number>((resolve, reject) => {
        const req = send(
          target,
          {
            method: "POST",
            headers: {
              ...headers,
              "content-type": "application/json",
              "content-length": String(Buffer.byteLength(body)),
              "user-agent": "Handraise-Notifier",
            },
            lookup: lookup as never,
          },
          (res) => {
            clearTimeout(deadline);
            resolve(res.statusCode ?? 0);
            res.destroy();
          },
        );
        const deadline = setTimeout(
          () => req.destroy(new Error("the receiver did not answer in time")),
          ATTEMPT_TIMEOUT_MS,
        );
        req.on("error", (error) => {
          clearTimeout(deadline);
          reject(error);
        });
        req.end(body);
      });
    },
  };
}
