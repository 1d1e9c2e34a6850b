import { request as httpRequest } from "node:http";
import { request as httpsRequest } from "node:https";
import type { WebhookSender } from "./notification-ports.ts";
import { guardedLookup, type NotifyUrlPolicy, notifyUrlProblem } from "./notify-url.ts";

/** One attempt's limit: a receiver that takes longer is retried later. */
const ATTEMPT_TIMEOUT_MS = 10_000;

/**
 * POSTs with node:http(s): the URL is checked again, every address its host resolves to is checked on the
 * connection (lib/notify/notify-url.ts), redirects are not followed (a 3xx is a failed attempt) and the
 * receiver's body is drained unread.
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
            timeout: ATTEMPT_TIMEOUT_MS,
          },
          (res) => {
            res.resume();
            res.on("end", () => resolve(res.statusCode ?? 0));
            res.on("error", reject);
          },
        );
        req.on("timeout", () => req.destroy(new Error("the receiver did not answer in time")));
        req.on("error", reject);
        req.end(body);
      });
    },
  };
}
