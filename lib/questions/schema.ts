/**
 * The zod schemas of the ask_user contract: the single source of its types, of the shape checks of
 * `normalizeAskUserArgs` and of the JSON Schema in the tool definitions.
 *
 * Only per-value rules live in the argument schema, written as `regex` checks where possible, because
 * those are what `z.toJSONSchema` carries over to the providers' JSON Schema. Rules that compare two values
 * (duplicate ids, duplicate labels) cannot be said in JSON Schema; `normalize.ts` adds them.
 */
import * as z from "../zod.ts";

/** The tool's name in every provider format. */
export const ASK_USER_TOOL_NAME = "ask_user";

/**
 * A question id: 1–64 characters. The answers are keyed by it, and it names a Slack modal's input blocks and a
 * Mattermost dialog's elements, whose names the platforms hold to 255 and 300 characters.
 */
export const MAX_QUESTION_ID_UNITS = 64;
export const QUESTION_ID_PATTERN = /^[a-z][a-z0-9_]{0,63}$/;
/** The characters of an id, checked apart from its length so each problem gets its own message. */
const QUESTION_ID_CHARACTERS = /^[a-z][a-z0-9_]*$/;
export const MAX_QUESTIONS = 3;
export const MIN_OPTIONS = 2;
export const MAX_OPTIONS = 4;
export const MAX_LABEL_UNITS = 64;
export const MAX_HEADER_UNITS = 12;
/**
 * Question text and option description limits, in UTF-16 code units after trimming (the unit of
 * MAX_LABEL_UNITS). A channel posts the prompt as one message: Telegram refuses one over 4,096 characters,
 * Slack and Discord clip a long one and cut the options off with it. A question at these limits with four
 * described options renders to about 2,200 characters.
 */
export const MAX_QUESTION_UNITS = 1000;
export const MAX_DESCRIPTION_UNITS = 200;
export const DEFAULT_TIMEOUT_SECONDS = 900;
export const MIN_TIMEOUT_SECONDS = 30;
export const MAX_TIMEOUT_SECONDS = 3600;
/** Step Functions' longest execution: one year. A deployment may raise its ceiling up to this. */
export const STEP_FUNCTIONS_MAX_TIMEOUT_SECONDS = 31_536_000;
/** Extra time the waiting side allows on top of the question's timeout before it reports no answer. */
export const TIMEOUT_GRACE_SECONDS = 10;
/**
 * Answer size limits, far below Step Functions' 256 KiB task output (the answers are the AskUser result):
 * one answer value at most 4,000 UTF-16 code units (a Telegram message is 4,096), a whole canonical answer
 * envelope at most 32 KiB as UTF-8 JSON.
 */
export const MAX_ANSWER_VALUE_UNITS = 4000;
export const MAX_ANSWERS_BYTES = 32 * 1024;
/**
 * What several people add to one question, as UTF-8 JSON: every vote together (`votes`) at most 64 KiB, every
 * person's stepper draft together (`drafts`) at most 64 KiB. A group has no known number of members, so
 * without these a question would grow with each voter until AWS refused it, and a refusal there is no clear
 * error. The result a run is resumed with (answers + votes, under 100 KiB) must fit Step Functions' 256 KiB
 * task output; the "Question Resolved" event EventBridge's 256 KB entry — it is the record without drafts,
 * where a hundred posted copies take about as much again as the votes, which is why the votes get no more;
 * the stored item (that record plus drafts and the task token) DynamoDB's 400 KB. Short answers (option
 * labels) make votes of a few hundred bytes, so hundreds fit. A vote or draft that would go over is refused
 * and changes nothing (test/unit/questions/record-budget.test.ts builds each at these budgets).
 */
export const MAX_VOTES_BYTES = 64 * 1024;
export const MAX_DRAFTS_BYTES = 64 * 1024;

/** Has at least one non-whitespace character (so it is non-empty after trimming). */
const NOT_BLANK = /\S/;
/**
 * At most 64 UTF-16 code units once surrounding whitespace is trimmed (blank strings pass here and fail
 * NOT_BLANK instead, so each problem gets one message).
 */
const LABEL_LENGTH = /^\s*(?:\S(?:[\s\S]{0,62}\S)?)?\s*$/;
/** Not just "Other" (any case, optional trailing "…" or "..."): free text is always offered. */
const NOT_OTHER = /^(?!\s*[Oo][Tt][Hh][Ee][Rr](?:…|\.\.\.)?\s*$)/;

/** "x is required" when absent, "x must be …" when of the wrong type: a model fixes either at once. */
const typeError =
  (what: string, expected: string) =>
  (issue: { input?: unknown }): string =>
    issue.input === undefined ? `${what} is required` : `${what} must be ${expected}`;

const nonBlankString = (what: string) =>
  z
    .string({ error: typeError(what, "a string") })
    .check(z.regex(NOT_BLANK, { error: `${what} must not be empty or blank` }));

/**
 * At most `max` UTF-16 units once trimmed (`z.trim()` hands the trimmed text to the checks after it).
 * zod's `maxLength` counts code points, as JSON Schema does, and is what gives the tool definitions'
 * schema its `maxLength`; the contract counts UTF-16 units, so text within `max` code points but over `max`
 * units (emoji) is refused by the second check. The schema's `maxLength` is therefore looser for emoji, and
 * stricter only for text at the limit padded with whitespace (docs/ask-user.md, "What the model is told").
 */
const trimmedMaxLength = (what: string, max: number) => {
  const error = `${what} must be at most ${max} characters after trimming`;
  return [
    z.trim(),
    z.maxLength(max, { error }),
    z.refine<string>((text) => text.length <= max || [...text].length > max, { error }),
  ];
};

/** Gives `schema` the description the JSON Schema of the tool definitions shows the model. */
function described<T extends z.ZodMiniType>(schema: T, description: string): T {
  z.globalRegistry.add<z.ZodMiniType>(schema, { description });
  return schema;
}

/**
 * The ask_user arguments as the model sends them (before trimming, truncation and clamping).
 *
 * Built by a call marked pure, as is `questionSchema`: their checks and descriptions are method calls and
 * registry entries, which esbuild must keep wherever the module goes unless told the whole construction is
 * pure, so without it every bundle built them at start — even those that never ask (the webhooks, the answer
 * page). Where they are used they are still built when the module loads.
 */
export const askUserArgsSchema = /* @__PURE__ */ askUserArgs();

function askUserArgs() {
  const optionArgSchema = z.strictObject(
    {
      label: described(
        nonBlankString("label").check(
          z.regex(LABEL_LENGTH, {
            error: `label must be at most ${MAX_LABEL_UNITS} characters after trimming`,
          }),
          z.regex(NOT_OTHER, {
            error: 'do not add an "Other" option: free text is always allowed and offered automatically',
          }),
        ),
        "The choice as the user sees it. Put the recommended option first, with ' (Recommended)'.",
      ),
      description: described(
        z.nullish(
          z
            .string({ error: "description must be a string" })
            .check(...trimmedMaxLength("description", MAX_DESCRIPTION_UNITS)),
        ),
        "Optional one-line explanation of the option.",
      ),
    },
    { error: "each option must be an object {label, description?}" },
  );

  const questionArgSchema = z.strictObject(
    {
      id: described(
        z.string({ error: typeError("id", "a string") }).check(
          z.regex(QUESTION_ID_CHARACTERS, {
            error:
              "id must start with a lowercase letter and contain only a-z, 0-9 and _ (e.g. deploy_target)",
          }),
          z.maxLength(MAX_QUESTION_ID_UNITS, {
            error: `id must be at most ${MAX_QUESTION_ID_UNITS} characters`,
          }),
        ),
        "Short unique key for this question, e.g. deploy_target. The answers are keyed by it.",
      ),
      header: described(
        nonBlankString("header"),
        `Very short label shown above the question (cut to ${MAX_HEADER_UNITS} characters).`,
      ),
      question: described(
        nonBlankString("question").check(...trimmedMaxLength("question", MAX_QUESTION_UNITS)),
        "The complete question, one sentence.",
      ),
      options: described(
        z
          .array(optionArgSchema, { error: typeError("options", "an array") })
          .check(
            z.minLength(MIN_OPTIONS, { error: `give at least ${MIN_OPTIONS} options` }),
            z.maxLength(MAX_OPTIONS, { error: `give at most ${MAX_OPTIONS} options` }),
          ),
        `${MIN_OPTIONS}-${MAX_OPTIONS} distinct choices. Never add an "Other" option.`,
      ),
      multiSelect: described(
        z.nullish(z.boolean({ error: "multiSelect must be true or false" })),
        "true only when several options may be chosen together.",
      ),
    },
    { error: "each question must be an object {id, header, question, options, multiSelect?}" },
  );

  return z.strictObject(
    {
      questions: described(
        z
          .array(questionArgSchema, { error: typeError("questions", "an array") })
          .check(
            z.minLength(1, { error: "ask at least 1 question" }),
            z.maxLength(MAX_QUESTIONS, { error: `ask at most ${MAX_QUESTIONS} questions in one call` }),
          ),
        `1-${MAX_QUESTIONS} questions. Usually one; several only when the answers must come together.`,
      ),
      timeoutSeconds: described(
        z.nullish(z.int({ error: "timeoutSeconds must be a whole number of seconds" })),
        `How long to wait for the answer, in seconds (default ${DEFAULT_TIMEOUT_SECONDS}, ` +
          `clamped to ${MIN_TIMEOUT_SECONDS}-${MAX_TIMEOUT_SECONDS}).`,
      ),
    },
    { error: "the arguments must be an object {questions, timeoutSeconds?}" },
  );
}

export type AskUserArgs = z.input<typeof askUserArgsSchema>;

/** A question in canonical form: what is stored, delivered and returned by the API. */
export const questionSchema = /* @__PURE__ */ canonicalQuestion();

function canonicalQuestion() {
  return z.strictObject({
    id: z.string().check(z.regex(QUESTION_ID_PATTERN)),
    header: z.string().check(z.minLength(1), z.maxLength(MAX_HEADER_UNITS)),
    question: z.string().check(z.minLength(1), z.maxLength(MAX_QUESTION_UNITS)),
    options: z
      .array(
        z.strictObject({
          label: z.string().check(z.minLength(1), z.maxLength(MAX_LABEL_UNITS)),
          description: z.optional(z.string().check(z.maxLength(MAX_DESCRIPTION_UNITS))),
        }),
      )
      .check(z.minLength(MIN_OPTIONS), z.maxLength(MAX_OPTIONS)),
    multiSelect: z.optional(z.literal(true)),
    allowOther: z.literal(true),
  });
}

export type Question = z.infer<typeof questionSchema>;
export type QuestionOption = Question["options"][number];

/** Canonical ask_user arguments: what `normalizeAskUserArgs` returns. */
export interface AskUserRequest {
  questions: Question[];
  timeoutSeconds: number;
}

/** The answer envelope: every answer is an array of values, also for single-select questions. */
export const answersSchema = /* @__PURE__ */ (() => z.record(z.string(), z.array(z.string())))();
export type Answers = z.infer<typeof answersSchema>;

/**
 * One person's (or one API key's) vote on a question that needs several agreeing answers (a quorum above 1):
 * their answers, or their abstention (`skipped`, with no answers). `by` names the person in owner form
 * (`telegram:42`, `web:bob`), whether they voted in a chat or on the page; a vote over the API is its key's,
 * `by` `api:<resolvedBy>` or `api`, and `key` the key's name (one vote per key).
 */
export const voteSchema = /* @__PURE__ */ (() =>
  z.object({
    by: z.string(),
    answers: answersSchema,
    atMs: z.int(),
    skipped: z.exactOptional(z.literal(true)),
    key: z.exactOptional(z.string()),
  }))();
export type Vote = z.infer<typeof voteSchema>;

/** `no_quorum`: the people asked could no longer give the agreeing answers the question needed. */
export const noAnswerReasonSchema = /* @__PURE__ */ (() =>
  z.enum(["expired", "cancelled", "skipped", "no_quorum"]))();
export type NoAnswerReason = z.infer<typeof noAnswerReasonSchema>;

/**
 * What the AskUser task ends with, and what the model is told (formatToolResult). An answer names who gave
 * it (`resolvedBy`: `telegram:42`, `web:alice`, `api:ops-bot`, …) where the record says.
 */
export const askUserResultSchema = /* @__PURE__ */ (() =>
  z.discriminatedUnion("status", [
    z.strictObject({
      status: z.literal("answered"),
      answers: answersSchema,
      resolvedBy: z.optional(z.string()),
      // With a quorum: every vote that was counted.
      votes: z.optional(z.array(voteSchema)),
    }),
    z.strictObject({
      status: z.literal("no_answer"),
      reason: noAnswerReasonSchema,
      votes: z.optional(z.array(voteSchema)),
    }),
    z.strictObject({ status: z.literal("delivery_failed") }),
  ]))();
export type AskUserResult = z.infer<typeof askUserResultSchema>;
