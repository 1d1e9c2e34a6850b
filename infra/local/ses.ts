/**
 * Amazon SES API v2's `SendEmail` for the local stack, over its REST JSON protocol (`POST
 * /v2/email/outbound-emails`), so the e-mail channel's own SES client sends to it through
 * `AWS_ENDPOINT_URL_SESV2`. Nothing leaves the machine: each mail is kept for tests and, when asked, its
 * plain-text part is printed — the demo shows the mail it would have sent, links and all (the terminal is
 * the person's own). `refuseNext` answers the next sends with one of SES's own errors. And
 * `GetEmailIdentity` (`GET /v2/email/identities/{identity}`), which `npm run doctor` asks whether the sender
 * is verified: every identity is a verified one unless `setIdentity` says otherwise, as every send is taken.
 */
import { randomUUID } from "node:crypto";
import type { AddressInfo } from "node:net";
import { createServer, replyRestJson } from "./local-server.ts";

export interface SentMail {
  messageId: string;
  from: string;
  to: string[];
  subject: string;
  text: string;
  html: string;
}

/** An error SES answers a send with: `TooManyRequestsException` (429, retried by the SDK), `MessageRejected` (400). */
export interface SesRefusal {
  status: number;
  code: string;
  message: string;
}

/** An identity's `VerificationStatus` as SES reports it, or `absent`: SES has no such identity (404). */
export type SesIdentityState =
  | "SUCCESS"
  | "PENDING"
  | "FAILED"
  | "TEMPORARY_FAILURE"
  | "NOT_STARTED"
  | "absent";

export interface LocalSes {
  url: string;
  /** Every mail accepted since the start, in order. */
  mails: SentMail[];
  /** The next `count` sends are refused with `refusal`. */
  refuseNext(count: number, refusal: SesRefusal): void;
  /** What GetEmailIdentity says of `identity` (an address or a domain); undefined: verified again. */
  setIdentity(identity: string, state: SesIdentityState | undefined): void;
  stop(): Promise<void>;
}

const IDENTITY_PATH = /^\/v2\/email\/identities\/([^/]+)$/;

/**
 * The key an identity is kept under: a domain's case does not matter, and neither does an address's domain
 * part, but SES keeps an address's local part as written (User@ is not user@).
 */
function identityKey(identity: string): string {
  const at = identity.lastIndexOf("@");
  return at < 0 ? identity.toLowerCase() : `${identity.slice(0, at)}@${identity.slice(at + 1).toLowerCase()}`;
}

/** GetEmailIdentity's answer for an identity SES has, in the documented shape (the fields the doctor reads and a few more). */
function emailIdentity(identity: string, status: Exclude<SesIdentityState, "absent">) {
  return {
    IdentityType: identity.includes("@") ? "EMAIL_ADDRESS" : "DOMAIN",
    FeedbackForwardingStatus: true,
    VerifiedForSendingStatus: status === "SUCCESS",
    VerificationStatus: status,
    DkimAttributes: { SigningEnabled: !identity.includes("@"), Status: status },
    Policies: {},
    Tags: [],
  };
}

interface SendEmailBody {
  FromEmailAddress?: string;
  Destination?: { ToAddresses?: string[] };
  Content?: {
    Simple?: {
      Subject?: { Data?: string };
      Body?: { Text?: { Data?: string }; Html?: { Data?: string } };
    };
  };
}

export async function startLocalSes(options: {
  host: string;
  /** Where a mail's plain text goes; absent: mails are only kept. */
  print?: (text: string) => void;
}): Promise<LocalSes> {
  const mails: SentMail[] = [];
  const refusals: SesRefusal[] = [];
  const identities = new Map<string, SesIdentityState>();
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const reply = (status: number, body: unknown, code?: string) => replyRestJson(res, status, body, code);
    const identityPath = IDENTITY_PATH.exec(req.url?.split("?")[0] ?? "");
    if (req.method === "GET" && identityPath?.[1]) {
      const identity = decodeURIComponent(identityPath[1]);
      const state = identities.get(identityKey(identity)) ?? "SUCCESS";
      if (state === "absent") {
        return reply(404, { message: `Email identity ${identity} does not exist.` }, "NotFoundException");
      }
      return reply(200, emailIdentity(identity, state));
    }
    if (req.method !== "POST" || req.url?.split("?")[0] !== "/v2/email/outbound-emails") {
      return reply(404, { message: `${req.method} ${req.url} is not served locally` }, "NotFoundException");
    }
    const refusal = refusals.shift();
    if (refusal) return reply(refusal.status, { message: refusal.message }, refusal.code);
    let body: SendEmailBody;
    try {
      body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as SendEmailBody;
    } catch {
      return reply(400, { message: "The body is not JSON." }, "BadRequestException");
    }
    const simple = body.Content?.Simple;
    const to = body.Destination?.ToAddresses ?? [];
    if (!body.FromEmailAddress || to.length === 0 || !simple?.Subject?.Data) {
      return reply(
        400,
        { message: "FromEmailAddress, Destination and a subject are required." },
        "BadRequestException",
      );
    }
    const mail: SentMail = {
      messageId: randomUUID(),
      from: body.FromEmailAddress,
      to,
      subject: simple.Subject.Data,
      text: simple.Body?.Text?.Data ?? "",
      html: simple.Body?.Html?.Data ?? "",
    };
    mails.push(mail);
    options.print?.(`\n[mail to ${to.join(", ")}] ${mail.subject}\n${mail.text}\n`);
    reply(200, { MessageId: mail.messageId });
  });
  await new Promise<void>((resolve) => server.listen(0, options.host, () => resolve()));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${options.host}:${port}`,
    mails,
    refuseNext: (count, refusal) => {
      for (let i = 0; i < count; i++) refusals.push(refusal);
    },
    setIdentity: (identity, state) => {
      if (state === undefined) identities.delete(identityKey(identity));
      else identities.set(identityKey(identity), state);
    },
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
