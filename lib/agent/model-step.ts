import { InvalidInputError } from "../app/errors.ts";
import { WAIT_ENDED } from "../app/wait-ended.ts";
import {
  formatToolResult,
  normalizeAskUserArgs,
  questionIdFor,
  type TimeoutLimits,
  ToolInputError,
} from "../questions/index.ts";
import {
  type AnswererEntry,
  answerersSchema,
  contextSchema,
  deliveryTargetSchema,
  type Escalation,
  escalationSchema,
  ownerSchema,
  quorumSchema,
  remindAfterSecondsSchema,
} from "../questions/question-record.ts";
import {
  ASK_USER_TOOL_NAME,
  askUserResultSchema,
  type Question,
  TIMEOUT_GRACE_SECONDS,
} from "../questions/schema.ts";
import type { QuestionStore } from "../store/question-store.ts";
import type { Telemetry } from "../telemetry/telemetry.ts";
import { describeIssue, issuesOf } from "../validation-messages.ts";
import * as z from "../zod.ts";
import { ModelError, StepLimitError } from "./model-error.ts";
import type { ModelProvider, ModelTurn, ModelUsage } from "./model-provider.ts";
import {
  anthropicModelSchema,
  bedrockModelSchema,
  DEFAULT_MAX_STEPS,
  MODEL_STEP_SECONDS,
  openAiModelSchema,
} from "./model-settings.ts";
import { createScriptedProvider, scriptedModelSchema } from "./scripted-provider.ts";
import {
  type ToolCall,
  type ToolOutcome,
  type Transcript,
  type TranscriptStore,
  usageTotals,
} from "./transcript.ts";

/** The `model` of the agent's input: which model runs, and how (model-settings.ts, scripted-provider.ts). */
export const agentModelSchema = z.discriminatedUnion("provider", [
  scriptedModelSchema,
  bedrockModelSchema,
  openAiModelSchema,
  anthropicModelSchema,
]);
export type AgentModel = z.infer<typeof agentModelSchema>;

/** The agent state machine's input (docs/architecture.md, "The agent state machine"). */
export const agentInputSchema = z.object({
  sessionKey: z.string().check(z.minLength(1), z.maxLength(256)),
  owner: ownerSchema,
  deliverTo: z.array(deliveryTargetSchema).check(z.maxLength(10)),
  prompt: z.string().check(z.maxLength(100_000)),
  model: agentModelSchema,
  agentId: z.optional(z.string().check(z.minLength(1), z.maxLength(256))),
  /** Reminders for every question of the run (seconds after it is asked); the deployment's default if absent. */
  remindAfterSeconds: z.optional(remindAfterSecondsSchema),
  /** Who else may answer each question of the run, from `afterSeconds` on, and where they are asked. */
  escalate: z.optional(escalationSchema),
  /** The person the run acts for (owner form): they may never answer its questions. */
  requestedBy: z.optional(ownerSchema),
  /** Who is asking and why, shown to the person above each question of the run. */
  context: z.optional(contextSchema),
  /** Who else may answer each question of the run (people and groups), and how many must agree. */
  answerers: z.optional(answerersSchema),
  quorum: z.optional(quorumSchema),
});
export type AgentInput = z.infer<typeof agentInputSchema>;

/** What the AskUser task left at `$.askResult`: an ask_user result, or a tool error from its Catch. */
const askResultSchema = z.union([
  askUserResultSchema,
  z.object({ status: z.literal("error"), error: z.object({ code: z.string(), message: z.string() }) }),
]);

/** The model step's event: the run id and the whole state (the agent input plus the previous step). */
export const modelStepEventSchema = z.object({
  runId: z.string().check(z.minLength(1)),
  state: z.extend(agentInputSchema, {
    step: z.optional(z.object({ action: z.string(), ask: z.optional(z.object({ toolCallId: z.string() })) })),
    askResult: z.optional(askResultSchema),
  }),
});
export type ModelStepEvent = z.infer<typeof modelStepEventSchema>;

/**
 * The event, parsed. A `model` that is not valid (a typo, a key where its secret's name belongs) ends the
 * run as a ModelError that says what to fix; any other problem of the agent's input ends it as
 * Handraise.InvalidInput. Either names the fields and their paths in the agent's input, never their values.
 *
 * @throws ModelError for problems in `model` alone; InvalidInputError for any other.
 */
export function parseModelStepEvent(event: unknown): ModelStepEvent {
  const parsed = modelStepEventSchema.safeParse(event);
  if (parsed.success) return parsed.data;
  // The agent's input is the event's `state`: its problems are told at their paths in it.
  const inState = parsed.error.issues.every((issue) => issue.path[0] === "state");
  const issues = inState
    ? issuesOf(parsed.error.issues.map((issue) => ({ ...issue, path: issue.path.slice(1) })))
    : issuesOf(parsed.error.issues);
  if (inState && issues.every((issue) => issue.path === "model" || issue.path.startsWith("model."))) {
    throw new ModelError(`The input's model is not valid: ${issues.map(describeIssue).join("; ")}.`);
  }
  throw new InvalidInputError(inState ? "agent input" : "model step event", issues);
}

/**
 * The AskUser task's input (docs/architecture.md, "The agent state machine"): the model's questions as it
 * sent them (the ask Lambda normalizes them again at its own trust boundary), who to ask and where, the
 * clamped timeout, the wait including the grace period, which the task's `TimeoutSecondsPath` reads, and
 * the run's reminders and escalation (docs/timers.md).
 */
export interface AskStep {
  toolCallId: string;
  questions: unknown;
  timeoutSeconds: number;
  waitSeconds: number;
  owner: string;
  sessionKey: string;
  deliverTo: AgentInput["deliverTo"];
  /**
   * The run's reminders that fall before this question's deadline (the model chose its timeout); null: the
   * run names none, the deployment's default applies. Never absent: the task's Parameters read it.
   */
  remindAfterSeconds: number[] | null;
  /** The run's escalation if it falls before this question's deadline, else null. */
  escalate: Escalation | null;
  /** The person the run acts for, or null. Never absent: the task's Parameters read it. */
  requestedBy: string | null;
  /** Who is asking and why (the run's), or null. Never absent: the task's Parameters read it. */
  context: string | null;
  /** The run's other answerers, or null. Never absent: the task's Parameters read it. */
  answerers: AnswererEntry[] | null;
  /** How many agreeing answers close each question of the run, or null (the first does). */
  quorum: number | null;
}
/**
 * The run's reminders and escalation for one of its questions. The model chose that question's timeout, so
 * those that would come at or after its deadline are left out (the ask would refuse them); `null`: the run
 * names none (for reminders: the deployment's default applies). Both agents use it (lib/durable).
 */
export function runTimersFor(
  run: Pick<AgentInput, "remindAfterSeconds" | "escalate">,
  timeoutSeconds: number,
): { remindAfterSeconds: number[] | null; escalate: Escalation | null } {
  const beforeDeadline = (seconds: number) => seconds < timeoutSeconds;
  return {
    remindAfterSeconds: run.remindAfterSeconds?.filter(beforeDeadline) ?? null,
    escalate: run.escalate && beforeDeadline(run.escalate.afterSeconds) ? run.escalate : null,
  };
}

/** The run's token totals, in its output when the model reports usage (real providers do). */
export type RunUsage = ModelUsage & { modelCalls: number };

/**
 * `continue`: this invocation's time is running short, so the state machine calls the model step again
 * (a fresh Lambda with the whole step time) before the next model call.
 */
export type ModelStepResult =
  | { action: "ask"; ask: AskStep }
  | { action: "reply"; output: { reply: string; usage?: RunUsage } }
  | { action: "continue" };

export interface ModelStepDeps {
  transcripts: TranscriptStore;
  telemetry: Telemetry;
  /**
   * Closes the question of an ask whose wait has ended, if something outside Handraise ended it, or as
   * expired when the task timed out and no timer has closed it yet.
   */
  questions: Pick<QuestionStore, "release" | "expire">;
  limits: TimeoutLimits;
  now: () => number;
  providerFor?: (model: AgentModel) => ModelProvider;
}

export interface ModelStepOptions {
  /** The Lambda's remaining time (`context.getRemainingTimeInMillis()`); the step budgets its work by it. */
  remainingMs?: number;
}

/**
 * Kept back from the step's time for what follows the last model call (saving the transcript, returning):
 * a step that gives up must still end before the Lambda and the task time out.
 */
export const STEP_MARGIN_MS = 5_000;
/**
 * A further model call in the same invocation needs this much time left; with less, the step hands over
 * to a fresh invocation (`continue`) rather than risk running out in the middle of the call.
 */
export const MIN_CALL_MS = 20_000;

/**
 * One turn of the reference agent: record the last ask_user outcome, then run the model until it either
 * replies or calls ask_user with valid arguments. Invalid arguments and unknown tools go straight back to
 * the model as tool errors, so the run never suspends on them. The loop guard ends the run with
 * StepLimitError once its model calls reach `model.maxSteps`; a provider that keeps failing ends it with
 * ModelError (both after the transcript is saved).
 */
export function createModelStep(deps: ModelStepDeps) {
  const providerFor = deps.providerFor ?? defaultProviderFor;

  return async function modelStep(
    event: ModelStepEvent,
    options: ModelStepOptions = {},
  ): Promise<ModelStepResult> {
    const { runId, state } = event;
    const started = deps.now();
    const deadlineMs =
      started +
      Math.min(options.remainingMs ?? Number.POSITIVE_INFINITY, MODEL_STEP_SECONDS * 1000) -
      STEP_MARGIN_MS;
    const transcript: Transcript = (await deps.transcripts.load(runId)) ?? {
      messages: [{ role: "user", content: state.prompt }],
      pendingToolCalls: [],
      modelCalls: 0,
    };
    const waitingCall = state.step?.ask?.toolCallId;
    if (waitingCall !== undefined) await releaseAsk(runId, waitingCall, state.askResult);
    if (waitingCall !== undefined && transcript.pendingToolCalls[0]?.id === waitingCall) {
      const call = transcript.pendingToolCalls.shift() as ToolCall;
      const outcome: ToolOutcome = state.askResult
        ? toOutcome(state.askResult)
        : { status: "no_answer", reason: "expired" };
      // The arguments were valid when this question was asked, so they normalize again.
      recordOutcome(transcript, call, outcome, normalizeAskUserArgs(call.arguments, deps.limits).questions);
    }

    const provider = providerFor(state.model);
    const maxSteps = state.model.maxSteps ?? DEFAULT_MAX_STEPS;
    const save = () => deps.transcripts.save(runId, transcript, deps.now());
    for (let calls = 0; ; calls++) {
      const ask = takeNextAsk(transcript, state);
      if (ask) {
        await save();
        return { action: "ask", ask };
      }
      if (transcript.modelCalls >= maxSteps) {
        await save();
        throw new StepLimitError(maxSteps);
      }
      if (calls > 0 && deadlineMs - deps.now() < MIN_CALL_MS) {
        await save();
        return { action: "continue" };
      }
      let turn: ModelTurn;
      try {
        turn = await provider.next(transcript, { deadlineMs });
      } catch (error) {
        // The outcome recorded above stays, for whoever reads the failed run's transcript.
        await save();
        throw error;
      }
      transcript.modelCalls += 1;
      const usage = turn.usage && { usage: turn.usage };
      if ("reply" in turn) {
        transcript.messages.push({ role: "assistant", content: turn.reply, ...usage });
        await save();
        const totals = usageTotals(transcript);
        return {
          action: "reply",
          output: {
            reply: turn.reply,
            ...(totals && { usage: { ...totals, modelCalls: transcript.modelCalls } }),
          },
        };
      }
      const toolCalls = withUniqueIds(turn.toolCalls, transcript);
      transcript.messages.push({
        role: "assistant",
        ...(turn.text !== undefined && { content: turn.text }),
        toolCalls,
        ...usage,
      });
      transcript.pendingToolCalls.push(...toolCalls);
    }
  };

  /**
   * The AskUser task has ended, however it ended. Normally its question closed first (answered, cancelled,
   * skipped — or expired: its timer closed it at the deadline, before the task's own timeout, which is the
   * deadline plus a grace period). When the wait was ended some other way — an operator's SendTaskSuccess or
   * SendTaskFailure with the run's token, an ask that failed after posting — the question would stay
   * answerable into a run that no longer listens, and hold its session: one conditional write closes it
   * (`resolvedBy: "wait-ended"`). When the task timed out and no timer has closed its question (none is set
   * up, or it is late), it is closed as expired here. Either write is conditional: the one that wins reports
   * the close, so an expiry is reported once. A safety net: if a write fails, the run goes on (the question
   * then reads as expired past its deadline, or ends when the session asks again).
   */
  async function releaseAsk(
    runId: string,
    toolCallId: string,
    result: z.infer<typeof askResultSchema> | undefined,
  ): Promise<void> {
    const id = questionIdFor({ runId, toolCallId });
    try {
      if (await deps.questions.release(id, WAIT_ENDED, deps.now())) {
        deps.telemetry.closed({ id, runId, ...WAIT_ENDED, status: "cancelled" });
      } else if (result === undefined || isExpired(result)) {
        const at = deps.now();
        if (await deps.questions.expire(id, at)) {
          deps.telemetry.closed({ id, runId, status: "expired", resolvedAtMs: at });
        }
      }
    } catch (error) {
      deps.telemetry.failed("releasing the question of an ended ask", error, { questionId: id, runId });
    }
  }

  /** Answers pending calls that need no person (invalid arguments, unknown tools) until one is a valid ask. */
  function takeNextAsk(transcript: Transcript, state: AgentInput): AskStep | undefined {
    for (;;) {
      const call = transcript.pendingToolCalls[0];
      if (!call) return undefined;
      if (call.name !== ASK_USER_TOOL_NAME) {
        transcript.pendingToolCalls.shift();
        recordOutcome(transcript, call, toolError("UNKNOWN_TOOL", `There is no tool named "${call.name}".`));
        continue;
      }
      try {
        const { timeoutSeconds } = normalizeAskUserArgs(call.arguments, deps.limits);
        const questions = (call.arguments as { questions: unknown }).questions;
        return {
          toolCallId: call.id,
          questions,
          timeoutSeconds,
          waitSeconds: timeoutSeconds + TIMEOUT_GRACE_SECONDS,
          owner: state.owner,
          sessionKey: state.sessionKey,
          deliverTo: state.deliverTo,
          ...runTimersFor(state, timeoutSeconds),
          requestedBy: state.requestedBy ?? null,
          context: state.context ?? null,
          answerers: state.answerers ?? null,
          quorum: state.quorum ?? null,
        };
      } catch (error) {
        if (!(error instanceof ToolInputError)) throw error;
        transcript.pendingToolCalls.shift();
        recordOutcome(transcript, call, {
          status: "error",
          error: { code: error.code, message: error.message },
          text: error.toToolErrorText(),
        });
      }
    }
  }
}

function isExpired(result: z.infer<typeof askResultSchema>): boolean {
  return result.status === "no_answer" && result.reason === "expired";
}

function defaultProviderFor(model: AgentModel): ModelProvider {
  if (model.provider !== "scripted") throw new Error(`No provider for "${model.provider}" was wired in.`);
  return createScriptedProvider(model);
}

/** What a tool call id may look like (every provider's own ids do; the ids are also question ids' input). */
const CALL_ID = /^[A-Za-z0-9_.:-]{1,128}$/;

/**
 * Tool call ids name their questions (`questionIdFor(runId, toolCallId)`), so each must be new in the run.
 * A call without a usable id, or with one the run has seen (some OpenAI-compatible servers number their
 * calls afresh each turn), gets a fresh one; the transcript keeps it, so the provider gets the same id back
 * in the assistant message and in the tool result.
 */
function withUniqueIds(calls: ToolCall[], transcript: Transcript): ToolCall[] {
  const seen = new Set(
    transcript.messages.flatMap((m) => (m.role === "assistant" ? (m.toolCalls ?? []).map((c) => c.id) : [])),
  );
  return calls.map((call, index) => {
    let id = call.id;
    if (!CALL_ID.test(id) || seen.has(id)) id = `call_hr${transcript.modelCalls}_${index}`;
    seen.add(id);
    return id === call.id ? call : { ...call, id };
  });
}

function toolError(code: string, message: string): ToolOutcome {
  return { status: "error", error: { code, message }, text: JSON.stringify({ error: { code, message } }) };
}

function toOutcome(result: z.infer<typeof askResultSchema>): ToolOutcome {
  return result.status === "error" ? toolError(result.error.code, result.error.message) : result;
}

function recordOutcome(
  transcript: Transcript,
  call: ToolCall,
  outcome: ToolOutcome,
  questions: Question[] = [],
): void {
  const text = outcome.status === "error" ? outcome.text : formatToolResult(outcome, questions).text;
  transcript.messages.push({ role: "tool", toolCallId: call.id, text, outcome });
}
