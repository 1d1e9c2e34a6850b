/**
 * `npm run ask`: one question over the HTTP API from a shell or a CI job (docs/api.md, "From a shell or a CI
 * job"). Without `--wait` it prints the created question; with it, it waits through `GET
 * /questions/{id}/wait` until the question ends and prints the result. stdout carries only that JSON, so a
 * script can read it; what a person watching needs to know goes to stderr.
 *
 * Exit codes: 0 answered (or, without `--wait`, asked), 2 no answer (expired, cancelled, skipped, delivery
 * failed), 1 an error (bad arguments, the API refused, the outcome could not be read), 130 / 143 interrupted
 * by SIGINT / SIGTERM — the question it asked is cancelled first.
 */

import { randomBytes } from "node:crypto";
import { parseArgs } from "node:util";
import { ownerProblem, parseDeliverTo } from "../../lib/mcp/asker.ts";
import { normalizeAskUserArgs, ToolInputError } from "../../lib/questions/index.ts";
import { MAX_HEADER_UNITS } from "../../lib/questions/schema.ts";
import { truncateUtf16 } from "../../lib/questions/text.ts";
import { type ScriptIo, sleepUnlessAborted } from "./script-io.ts";

export const EXIT = { answered: 0, error: 1, noAnswer: 2 } as const;
/** Shell convention: 128 + the signal's number. */
const EXIT_ON_SIGNAL: Record<string, number> = { SIGINT: 130, SIGTERM: 143 };

/** The one question's id: its answer is `answers.choice` in the result. */
export const QUESTION_ID = "choice";
/** One wait request: the route's own ceiling (25 s, under API Gateway's 30 s). */
const WAIT_MS = 25_000;
/** Beyond a wait's 25 s, for the response to arrive. */
const REQUEST_SLACK_MS = 15_000;
const REQUEST_TIMEOUT_MS = 30_000;
/** How long past the deadline passing problems (a 429, a 502, a lost connection) are tried again. */
const RETRY_PAST_DEADLINE_MS = 60_000;
const BACKOFF_MAX_MS = 15_000;

export const USAGE = `usage: npm run -s ask -- --owner <owner> --question "…" --options "A,B" [--header …] [--multi]
         [--deliver-to <channel>:<chatId>[,…]] [--timeout <seconds>] [--wait] [--url <api url>] [--key <key>]
  --url and --key default to HANDRAISE_URL and HANDRAISE_API_KEY.`;

export type AskIo = ScriptIo;

/** How a question ended, as the wait route reports it, with its id and who closed it. */
export interface AskResult {
  id: string;
  status: string;
  answers?: Record<string, string[]>;
  reason?: string;
  resolvedBy?: string;
}

interface Settings {
  url: string;
  key: string;
  wait: boolean;
  /** Print the created question's answer link (off by default: it answers as the owner). */
  printLink: boolean;
  body: Record<string, unknown>;
}

/** A problem that ends the run with exit 1 and one line on stderr (and the usage, for a missing option). */
class AskError extends Error {
  override readonly name = "AskError";
  constructor(
    message: string,
    readonly showUsage = false,
  ) {
    super(message);
  }
}

/** The parts of the API's JSON bodies this script reads (docs/api.md); any of them may be missing. */
interface ApiBody {
  status?: string;
  expiresAtMs?: number;
  answers?: Record<string, string[]>;
  reason?: string;
  question?: { resolvedBy?: string };
  error?: { code?: string; message?: string; issues?: { path: string; message: string }[] };
}

/** An answer of the API: its status and JSON body (`{}` when it is not a JSON object). */
interface ApiReply {
  status: number;
  body: ApiBody;
  retryAfterMs?: number;
}

/** Runs `npm run ask` with these arguments and streams; resolves to the exit code. */
export async function runAsk(io: AskIo): Promise<number> {
  const fetchFn = io.fetch ?? fetch;
  const sleep = io.sleep ?? sleepUnlessAborted;
  const now = io.now ?? Date.now;
  const interrupt = io.interrupt ?? new AbortController().signal;
  const say = (line: string) => io.stderr(`${line}\n`);
  const print = (value: unknown) => io.stdout(`${JSON.stringify(value)}\n`);

  let settings: Settings;
  try {
    settings = readSettings(io.argv, io.env);
  } catch (error) {
    if (!(error instanceof AskError)) throw error;
    say(`ask: ${error.message}`);
    if (error.showUsage) say(USAGE);
    return EXIT.error;
  }
  const { url, key } = settings;
  const id = settings.body.id as string;

  async function call(
    method: string,
    path: string,
    body: unknown,
    timeoutMs: number,
    signal?: AbortSignal,
  ): Promise<ApiReply> {
    const response = await fetchFn(`${url}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${key}`,
        ...(body !== undefined && { "content-type": "application/json" }),
      },
      ...(body !== undefined && { body: JSON.stringify(body) }),
      signal: signal
        ? AbortSignal.any([signal, AbortSignal.timeout(timeoutMs)])
        : AbortSignal.timeout(timeoutMs),
    });
    const text = await response.text();
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = {};
    }
    const retryAfter = Number(response.headers.get("retry-after"));
    return {
      status: response.status,
      body: typeof parsed === "object" && parsed !== null ? (parsed as ApiBody) : {},
      ...(Number.isFinite(retryAfter) && retryAfter > 0 && { retryAfterMs: retryAfter * 1000 }),
    };
  }

  /** Cancels the question this run asked (it may not have been stored yet), then the signal's exit code. */
  async function cancelOnInterrupt(): Promise<number> {
    const signalName = String(interrupt.reason);
    const code = EXIT_ON_SIGNAL[signalName] ?? EXIT.error;
    try {
      const reply = await call(
        "POST",
        `/questions/${id}/cancel`,
        { reason: "cancelled", resolvedBy: "ask-interrupted" },
        REQUEST_TIMEOUT_MS,
      );
      if (reply.status === 200) {
        say(`Interrupted (${signalName}): question ${id} is cancelled.`);
        print({ id, status: "cancelled", reason: "cancelled" });
      } else if (reply.status === 404) {
        say(`Interrupted (${signalName}) before question ${id} was stored: nothing to cancel.`);
      } else if (reply.status === 409) {
        say(`Interrupted (${signalName}); question ${id} had already ended (${reply.body.status}).`);
      } else {
        say(`Interrupted (${signalName}); cancelling question ${id} failed: ${refusal(reply)}.`);
      }
    } catch (error) {
      say(`Interrupted (${signalName}); cancelling question ${id} failed: ${networkProblem(error)}.`);
    }
    return code;
  }

  if (interrupt.aborted) return EXIT_ON_SIGNAL[String(interrupt.reason)] ?? EXIT.error;

  let created: ApiReply;
  try {
    created = await call("POST", "/questions", settings.body, REQUEST_TIMEOUT_MS, interrupt);
  } catch (error) {
    if (interrupt.aborted) return cancelOnInterrupt();
    say(`ask: could not reach ${url}: ${networkProblem(error)}`);
    return EXIT.error;
  }
  if (created.status !== 201) {
    say(`ask: the API refused the question: ${refusal(created)}`);
    for (const issue of created.body.error?.issues ?? []) say(`  ${issue.path}: ${issue.message}`);
    return EXIT.error;
  }
  if (interrupt.aborted) return cancelOnInterrupt();

  const asked = created.body as ApiBody & { expiresAtMs: number; answerUrl?: string };
  if (!settings.wait) {
    // The link answers as the owner, and stdout lands in CI logs that many read: only when asked for.
    const { answerUrl: _link, ...shown } = asked;
    print(settings.printLink ? asked : shown);
    if (asked.status === "pending") return EXIT.answered;
    say(`No chat took question ${id} (${asked.status}): nobody will be asked.`);
    return EXIT.noAnswer;
  }

  say(
    `Asked ${settings.body.owner} question ${id}; waiting until ${new Date(asked.expiresAtMs).toISOString()} ` +
      "for the answer (Ctrl-C cancels it).",
  );
  let failures = 0;
  for (;;) {
    if (interrupt.aborted) return cancelOnInterrupt();
    let reply: ApiReply | undefined;
    let problem: string;
    try {
      reply = await call(
        "GET",
        `/questions/${id}/wait?timeoutMs=${WAIT_MS}`,
        undefined,
        WAIT_MS + REQUEST_SLACK_MS,
        interrupt,
      );
      problem = refusal(reply);
    } catch (error) {
      if (interrupt.aborted) return cancelOnInterrupt();
      problem = networkProblem(error);
    }
    if (reply?.status === 200) {
      failures = 0;
      if (reply.body.status === "pending") continue;
      const { status = "unknown", answers, reason } = reply.body;
      const result: AskResult = { id, status, ...(answers && { answers }), ...(reason && { reason }) };
      const resolvedBy = await resolvedByOf(call, id);
      if (resolvedBy !== undefined) result.resolvedBy = resolvedBy;
      print(result);
      if (result.status === "answered") {
        say(`Answered${resolvedBy ? ` by ${resolvedBy}` : ""}.`);
        return EXIT.answered;
      }
      say(`No answer: ${result.reason ?? result.status}.`);
      return EXIT.noAnswer;
    }
    // Worth another try: the route's throttle (429), a gateway or function hiccup (5xx), a lost connection.
    const passing = reply === undefined || reply.status === 429 || reply.status >= 500;
    if (!passing || now() > asked.expiresAtMs + RETRY_PAST_DEADLINE_MS) {
      say(`ask: could not learn how question ${id} ended: ${problem}`);
      return EXIT.error;
    }
    failures += 1;
    const waitMs = reply?.retryAfterMs ?? Math.min(BACKOFF_MAX_MS, 1000 * 2 ** (failures - 1));
    say(`Waiting for question ${id} failed (${problem}); trying again in ${Math.ceil(waitMs / 1000)} s.`);
    await sleep(waitMs, interrupt);
  }
}

/** Who closed an ended question (`GET /questions/{id}`), or undefined if that cannot be read. */
async function resolvedByOf(
  call: (method: string, path: string, body: unknown, timeoutMs: number) => Promise<ApiReply>,
  id: string,
): Promise<string | undefined> {
  try {
    const reply = await call("GET", `/questions/${id}`, undefined, REQUEST_TIMEOUT_MS);
    const resolvedBy = reply.status === 200 ? reply.body.question?.resolvedBy : undefined;
    return typeof resolvedBy === "string" ? resolvedBy : undefined;
  } catch {
    return undefined;
  }
}

/** The options and environment as the request to send; throws AskError naming the first problem. */
export function readSettings(argv: readonly string[], env: AskIo["env"]): Settings {
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({
      args: [...argv],
      strict: true,
      allowPositionals: false,
      options: {
        owner: { type: "string" },
        question: { type: "string" },
        options: { type: "string" },
        header: { type: "string" },
        multi: { type: "boolean", default: false },
        "deliver-to": { type: "string" },
        timeout: { type: "string" },
        wait: { type: "boolean", default: false },
        "print-link": { type: "boolean", default: false },
        url: { type: "string" },
        key: { type: "string" },
      },
    }));
  } catch (error) {
    throw new AskError(error instanceof Error ? error.message : String(error), true);
  }
  const text = (name: string) => {
    const value = values[name];
    return typeof value === "string" ? value : undefined;
  };
  const required = (name: string) => {
    const value = text(name)?.trim();
    if (!value) throw new AskError(`--${name} is required`, true);
    return value;
  };

  const owner = required("owner");
  const badOwner = ownerProblem(owner, "--owner");
  if (badOwner) throw new AskError(badOwner);
  const question = required("question");
  const labels = required("options")
    .split(",")
    .map((label) => label.trim());
  const header = text("header") ?? truncateUtf16(question, MAX_HEADER_UNITS).trim();
  const asked = {
    id: QUESTION_ID,
    header,
    question,
    options: labels.map((label) => ({ label })),
    ...(values.multi === true && { multiSelect: true }),
  };

  const timeout = text("timeout");
  if (timeout !== undefined && !/^[1-9]\d{0,8}$/.test(timeout.trim())) {
    throw new AskError("--timeout must be a whole number of seconds (at least 1)");
  }
  // The same rules the API applies, checked here so a mistake costs no request.
  try {
    normalizeAskUserArgs({ questions: [asked] });
  } catch (error) {
    if (!(error instanceof ToolInputError)) throw error;
    const [first] = error.issues;
    throw new AskError(`${flagOf(first?.path ?? "")}: ${first?.message ?? error.message}`);
  }

  const deliverTo = parseDeliverTo(text("deliver-to") ?? "");
  if ("problem" in deliverTo) throw new AskError(`--deliver-to: ${deliverTo.problem}`);

  const url = (text("url") ?? env.HANDRAISE_URL ?? "").trim().replace(/\/+$/, "");
  if (!url) throw new AskError("no API URL: give --url <api url> or set HANDRAISE_URL");
  if (!/^https?:\/\/[^/\s]+/.test(url)) throw new AskError(`--url must be an http(s) URL, not "${url}"`);
  const key = (text("key") ?? env.HANDRAISE_API_KEY ?? "").trim();
  if (!key) throw new AskError("no API key: give --key <key> or set HANDRAISE_API_KEY");

  return {
    url,
    key,
    wait: values.wait === true,
    printLink: values["print-link"] === true,
    body: {
      // Chosen here, so a run interrupted while the question is being created can still cancel it.
      id: `ask_${randomBytes(16).toString("hex")}`,
      owner,
      questions: [asked],
      ...(timeout !== undefined && { timeoutSeconds: Number(timeout) }),
      ...(deliverTo.targets.length > 0 && { deliverTo: deliverTo.targets }),
    },
  };
}

/** The option a problem's path (in the ask_user arguments) came from. */
function flagOf(path: string): string {
  if (path.startsWith("questions.0.header")) return "--header";
  if (path.startsWith("questions.0.question")) return "--question";
  if (path.startsWith("questions.0.multiSelect")) return "--multi";
  return "--options";
}

/** An API refusal as one line: HTTP status, error code and the API's own message. */
function refusal(reply: ApiReply): string {
  const error = reply.body.error;
  if (typeof error?.message === "string") {
    return `HTTP ${reply.status} ${error.code ?? ""}: ${error.message}`.replace(" :", ":");
  }
  return `HTTP ${reply.status}`;
}

function networkProblem(error: unknown): string {
  if (error instanceof Error && (error.name === "TimeoutError" || error.name === "AbortError")) {
    return "no response in time";
  }
  // fetch says only "fetch failed"; its cause names the problem (ECONNREFUSED, ENOTFOUND, …).
  const cause =
    error instanceof Error ? (error.cause as { code?: string; message?: string } | undefined) : undefined;
  return cause?.code ?? cause?.message ?? (error instanceof Error ? error.message : String(error));
}
