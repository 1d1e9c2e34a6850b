/**
 * `GET` / `POST /answer/{id}?[as=<answerer>&]sig=…`: the answer page (docs/channels.md, "The answer page").
 *
 * - The link is the capability: `sig` must be this question's signature for the link's answerer — the owner,
 *   or the identity in `as` (lib/web/answer-link.ts). An unknown id, a malformed or altered signature, an
 *   answerer the link was not made for all get the same 403 page, which says nothing about any question (not
 *   even whether it exists). A genuine link whose answerer may not answer (yet) is told so and changes
 *   nothing.
 * - `GET` never changes anything (mail scanners and link previews follow links): a waiting question shows its
 *   form, an ended one its outcome.
 * - `POST` answers (or, with Skip, cancels as `skipped`) through the same use case as every other path,
 *   as the link's answerer: the conditional write, validateAnswers, the run's resume and the retiring of
 *   every chat copy are the same. The record says `resolvedBy: "web:<name>"` for an answerer `web:<name>` and
 *   `web:<answerer>` for any other (`web:telegram:42`): a chat-qualified value always means the platform
 *   itself vouched for the person, and this one came through a link.
 * - Cross-site requests: the form posts the link's `sig` back in its body, and it must match the URL's; a
 *   browser's `Sec-Fetch-Site` other than `same-origin` or `none` is refused. Another site can neither make
 *   the signature up nor have a visitor's browser post the form for it. (`Origin` is not compared: behind a
 *   custom domain or a proxy the expected origin is not known here.)
 * - Without a link secret the page is off: every request gets a 404 page and nothing is read.
 * - The person the question was asked on behalf of (`requestedBy`) never answers it: their link gets a 403
 *   page saying so, for `GET` and `POST` alike.
 */
import type { MiddlewareObj } from "@middy/core";
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from "aws-lambda";
import {
  AlreadyAnsweredError,
  AlreadyResolvedError,
  NotFoundError,
  RequesterCannotAnswerError,
  VotesBusyError,
  VotesFullError,
} from "../app/errors.ts";
import type { Resolution, ResolveOptions, ResolveQuestion } from "../app/resolve-question.ts";
import { InvalidAnswerError } from "../questions/errors.ts";
import {
  isRequester,
  mayAnswer,
  ownerSchema,
  type QuestionRecord,
  RECORD_ID_PATTERN,
  viaOwnLink,
  votersOf,
} from "../questions/question-record.ts";
import { tally } from "../questions/votes.ts";
import type { QuestionStore } from "../store/question-store.ts";
import { type FieldProblem, type FormState, readAnswerForm } from "../web/answer-form.ts";
import { SIGNATURE_PATTERN, verifyAnswerLink } from "../web/answer-link.ts";
import { CONTENT_SECURITY_POLICY } from "../web/answer-page-assets.ts";
import {
  MESSAGE_PAGES,
  type MessagePage,
  PAGE_TEXT,
  renderFormPage,
  renderMessagePage,
  renderOutcomePage,
  voteRecordedPage,
} from "../web/answer-page-html.ts";
import { describeError, HttpError } from "./http-errors.ts";
import { MAX_BODY_BYTES, rawBody } from "./middlewares.ts";
import { safeEqual } from "./safe-equal.ts";

type Result = APIGatewayProxyStructuredResultV2;

export interface AnswerPageDeps {
  store: Pick<QuestionStore, "get">;
  resolve: ResolveQuestion;
  /** The link secret; undefined when this deployment has none (the page is off). */
  linkKey: () => Promise<string | undefined>;
  now: () => number;
}

/**
 * The page's headers: its own inline style and script only (hashes), no framing, no referrer — the
 * signature is in the URL — and never cached.
 */
const PAGE_HEADERS = {
  "content-type": "text/html; charset=utf-8",
  "cache-control": "no-store",
  "content-security-policy": CONTENT_SECURITY_POLICY,
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  "x-frame-options": "DENY",
  "cross-origin-opener-policy": "same-origin",
  "x-robots-tag": "noindex, nofollow",
} as const;

function page(statusCode: number, html: string): Result {
  return { statusCode, headers: { ...PAGE_HEADERS }, body: html };
}

const messagePage = (statusCode: number, message: MessagePage) =>
  page(statusCode, renderMessagePage(message));
const invalidLink = () => messagePage(403, MESSAGE_PAGES.invalidLink);

/** The audit value of a web answer (see above). */
export function webResolvedBy(answerer: string): string {
  return answerer.startsWith("web:") ? answerer : `web:${answerer}`;
}

/** The link's query: the answerer it names (absent: the owner) and its signature. */
interface LinkQuery {
  /** `as` as it was given: well-formed as an identity, or undefined for the owner's link. */
  as: string | undefined;
  sig: string;
}

/** `run=not_waiting`, added to the done page's link when the run that asked no longer waited for this post. */
const NOT_WAITING: Resolution["run"] = "not_waiting";

/** Whether the link's person ended the question: answered or skipped it, or cast a vote it counted. */
function endedByLink(record: QuestionRecord, answerer: string): boolean {
  if (!["answered", "cancelled", "no_quorum"].includes(record.status)) return false;
  return (
    record.resolvedBy === webResolvedBy(answerer) || (record.votes ?? []).some((vote) => vote.by === answerer)
  );
}

/** The query string the page links back to itself with (the redirect after an answer). */
function linkQueryString(link: LinkQuery): string {
  return `?${link.as === undefined ? "" : `as=${encodeURIComponent(link.as)}&`}sig=${link.sig}`;
}

/** The reason an InvalidAnswerError gives, as the page words it. */
function problemOf(error: InvalidAnswerError): FieldProblem {
  if (error.reason === "too_long") return "too_long";
  if (error.reason === "too_many_values") return "too_many";
  return "missing";
}

export function createAnswerPage(deps: AnswerPageDeps) {
  const remaining = (record: QuestionRecord) => record.expiresAtMs - deps.now();

  function formPage(
    statusCode: number,
    record: QuestionRecord,
    link: LinkQuery,
    problems?: { state: FormState; fields?: Record<string, FieldProblem>; form?: string },
  ): Result {
    return page(
      statusCode,
      renderFormPage({
        record,
        sig: link.sig,
        remainingMs: remaining(record),
        state: problems?.state,
        problems: problems?.fields,
        formProblem: problems?.form,
      }),
    );
  }

  /** This request's answer or skip lost to another one, or to the deadline: the outcome that stands. */
  async function tooLate(record: QuestionRecord): Promise<Result> {
    const current = (await deps.store.get(record.id, deps.now())) ?? record;
    return page(409, renderOutcomePage(current, { notSent: true }));
  }

  async function post(
    event: APIGatewayProxyEventV2,
    record: QuestionRecord,
    link: LinkQuery,
    answerer: string,
  ): Promise<Result> {
    const site = event.headers?.["sec-fetch-site"];
    if (site !== undefined && site !== "same-origin" && site !== "none") {
      return messagePage(403, MESSAGE_PAGES.crossSite);
    }
    const fields = formFields(event);
    if (!safeEqual(fields.get("sig") ?? "", link.sig)) return invalidLink();
    if (record.status !== "pending") return page(409, renderOutcomePage(record, { notSent: true }));

    // The record this request read to check the link: resolving reads it no second time.
    const options: ResolveOptions = {
      actor: answerer,
      actingIn: viaOwnLink(answerer),
      resolvedBy: webResolvedBy(answerer),
      loaded: record,
    };
    // After the write, the page is fetched again (303): a reload shows the outcome, it does not post again.
    // A run that said it no longer waits is carried to that page in the link (the record does not keep it);
    // the flag holds nothing secret, and only ever adds that sentence to an ended question's page.
    const done = ({ run }: Resolution): Result => ({
      statusCode: 303,
      headers: {
        ...PAGE_HEADERS,
        location: `${linkQueryString(link)}${run === NOT_WAITING ? `&run=${NOT_WAITING}` : ""}`,
      },
      body: "",
    });
    try {
      if (fields.get("action") === "skip") {
        return done(await deps.resolve.cancel(record.id, "skipped", options));
      }
      const reading = readAnswerForm(record.questions, fields);
      if (reading.kind === "problems") {
        return formPage(400, record, link, { state: reading.state, fields: reading.problems });
      }
      let resolution: Resolution;
      try {
        resolution = await deps.resolve.answer(record.id, reading.answers, options);
      } catch (error) {
        if (!(error instanceof InvalidAnswerError)) throw error;
        // Only a whole envelope over the size limit has no question id (the form makes every other shape).
        return formPage(400, record, link, {
          state: reading.state,
          ...(error.questionId === undefined
            ? { form: PAGE_TEXT.tooLongTogether }
            : { fields: { [error.questionId]: problemOf(error) } }),
        });
      }
      return done(resolution);
    } catch (error) {
      if (error instanceof AlreadyResolvedError) return tooLate(record);
      if (error instanceof NotFoundError) return invalidLink();
      if (error instanceof RequesterCannotAnswerError) return messagePage(403, MESSAGE_PAGES.requester);
      if (error instanceof AlreadyAnsweredError) return messagePage(409, MESSAGE_PAGES.alreadyAnswered);
      if (error instanceof VotesFullError) return messagePage(413, MESSAGE_PAGES.full);
      if (error instanceof VotesBusyError) {
        const busy = messagePage(503, MESSAGE_PAGES.busy);
        return { ...busy, headers: { ...busy.headers, "retry-after": String(error.retryAfterSeconds) } };
      }
      throw error;
    }
  }

  return async function answerPage(event: APIGatewayProxyEventV2): Promise<Result> {
    const key = await deps.linkKey();
    if (key === undefined) return messagePage(404, MESSAGE_PAGES.off);
    const id = event.pathParameters?.id ?? "";
    const sig = event.queryStringParameters?.sig ?? "";
    const as = event.queryStringParameters?.as;
    // Checked before anything is read: a malformed link costs no database read.
    if (!RECORD_ID_PATTERN.test(id) || !SIGNATURE_PATTERN.test(sig)) return invalidLink();
    if (as !== undefined && !ownerSchema.safeParse(as).success) return invalidLink();
    const record = await deps.store.get(id, deps.now());
    const answerer = as ?? record?.owner;
    if (!record || answerer === undefined) return invalidLink();
    if (!verifyAnswerLink(key, { id, answerer, expiresAtMs: record.expiresAtMs }, sig)) return invalidLink();
    // The link's person is the one the question was asked for (requestedBy): never theirs to answer, so
    // not even the form is shown.
    if (isRequester(record, answerer)) return messagePage(403, MESSAGE_PAGES.requester);
    // A link made for someone who may not answer (yet): genuine, so it may be told so, but it opens nothing.
    if (!mayAnswer(record, answerer, deps.now(), viaOwnLink(answerer)))
      return messagePage(403, MESSAGE_PAGES.notYours);
    const link = { as, sig };
    if (event.requestContext.http.method === "POST") return post(event, record, link, answerer);
    if (record.status !== "pending") {
      // The flag is not signed: it is honoured only on a question this link's person ended (their answer,
      // skip or vote), so a link passed on cannot make the page claim a run stopped for anyone else's outcome.
      const notWaiting = event.queryStringParameters?.run === NOT_WAITING && endedByLink(record, answerer);
      return page(200, renderOutcomePage(record, { notWaiting }));
    }
    // A person who has voted is shown their vote's standing, not the form again; one who skipped, that the
    // others can still answer.
    const own = record.votes?.find((vote) => vote.by === answerer);
    if (own?.skipped === true) return messagePage(200, MESSAGE_PAGES.abstained);
    if (own !== undefined) {
      const decided = tally(record.votes ?? [], record.quorum ?? 1, votersOf(record), record.questions);
      return messagePage(200, voteRecordedPage(decided.kind === "waiting" ? decided.more : 0));
    }
    const chosen = chosenOption(record, event.queryStringParameters?.choose);
    return formPage(200, record, link, chosen && { state: chosen });
  };
}

/**
 * `choose=<n>` (n from 1), from an e-mail's per-option link: the form opens with option n of the record's
 * one single-select question chosen — shown, never sent (GET changes nothing; the person presses Submit).
 * Anything else (another shape of question, a number out of range) opens the form as it is.
 */
function chosenOption(record: QuestionRecord, choose: string | undefined): FormState | undefined {
  const [only, ...rest] = record.questions;
  if (choose === undefined || !/^\d{1,2}$/.test(choose)) return undefined;
  if (only === undefined || rest.length > 0 || only.multiSelect === true) return undefined;
  const index = Number(choose) - 1;
  if (index < 0 || index >= only.options.length) return undefined;
  return { picked: { [only.id]: [String(index)] }, text: {} };
}

/** The posted form: `application/x-www-form-urlencoded`, at most MAX_BODY_BYTES. */
function formFields(event: APIGatewayProxyEventV2): URLSearchParams {
  const type = (event.headers?.["content-type"] ?? "").split(";")[0]?.trim().toLowerCase();
  if (type !== "application/x-www-form-urlencoded") {
    throw new HttpError(415, "UNSUPPORTED_MEDIA_TYPE", "Send the answer page's form.");
  }
  const raw = rawBody(event);
  if (raw.length > MAX_BODY_BYTES) {
    throw new HttpError(413, "PAYLOAD_TOO_LARGE", "Your answers are too long. Go back and shorten them.");
  }
  return new URLSearchParams(raw.toString("utf8"));
}

/**
 * The page's error handler (the first `use`d): a problem is shown as a page, mapped by the one error
 * mapper (http-errors.ts); anything unexpected is an opaque 500 page, reported.
 */
export function answerPageErrors(
  report: (error: unknown) => void,
): MiddlewareObj<APIGatewayProxyEventV2, Result> {
  return {
    onError: async (request) => {
      const problem = describeError(request.error, report);
      request.response = messagePage(
        problem.statusCode,
        problem.statusCode >= 500
          ? MESSAGE_PAGES.failed
          : { ...MESSAGE_PAGES.refused, text: problem.message },
      );
    },
  };
}
