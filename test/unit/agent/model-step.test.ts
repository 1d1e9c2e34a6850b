import { describe, expect, it } from "vitest";
import { ModelError, StepLimitError } from "#lib/agent/model-error.ts";
import type { ModelProvider, ModelTurn } from "#lib/agent/model-provider.ts";
import {
  type AgentInput,
  type AgentModel,
  agentInputSchema,
  createModelStep,
  type ModelStepEvent,
  parseModelStepEvent,
} from "#lib/agent/model-step.ts";
import type { ScriptedModel } from "#lib/agent/scripted-provider.ts";
import type { Transcript, TranscriptStore } from "#lib/agent/transcript.ts";
import { InvalidInputError } from "#lib/app/errors.ts";
import { questionIdFor } from "#lib/questions/index.ts";
import type { Outcome } from "#lib/store/question-store.ts";
import { type ClosedQuestion, silentTelemetry } from "#lib/telemetry/telemetry.ts";

function memoryTranscripts(): TranscriptStore & { saved: Map<string, Transcript> } {
  const saved = new Map<string, Transcript>();
  return {
    saved,
    async load(runId) {
      const transcript = saved.get(runId);
      return transcript ? structuredClone(transcript) : undefined;
    },
    async save(runId, transcript) {
      saved.set(runId, structuredClone(transcript));
    },
  };
}

const question = {
  id: "deploy_target",
  header: "Deploy to",
  question: "Where?",
  options: [{ label: "Staging" }, { label: "Production" }],
};

function input(steps: ScriptedModel["steps"]): AgentInput {
  return {
    sessionKey: "s",
    owner: "web:alice",
    deliverTo: [],
    prompt: "hi",
    model: { provider: "scripted", steps },
  };
}

/** `expireWins`: whether the model step's expiry write would win (no timer closed the question first). */
function setup(providerFor?: (model: AgentModel) => ModelProvider, clock = { t: 0 }, expireWins = false) {
  const transcripts = memoryTranscripts();
  const released: { id: string; outcome: Outcome }[] = [];
  const expired: string[] = [];
  const closed: ClosedQuestion[] = [];
  const step = createModelStep({
    transcripts,
    questions: {
      release: async (id, outcome) => {
        released.push({ id, outcome });
        return false;
      },
      expire: async (id) => {
        expired.push(id);
        return expireWins;
      },
    },
    telemetry: { ...silentTelemetry, closed: (question) => closed.push(question) },
    limits: { minTimeoutSeconds: 30, maxTimeoutSeconds: 3600 },
    now: () => clock.t,
    ...(providerFor && { providerFor }),
  });
  return { transcripts, step, released, expired, closed };
}

/** A provider that plays `turns` in order, recording the deadline of each call; `took` ms pass per call. */
function playing(turns: ModelTurn[], clock = { t: 0 }, took = 0) {
  const deadlines: number[] = [];
  const provider: ModelProvider = {
    async next(_transcript, { deadlineMs }) {
      deadlines.push(deadlineMs);
      clock.t += took;
      const turn = turns.shift();
      if (!turn) throw new ModelError("no more turns");
      return structuredClone(turn);
    },
  };
  return { provider, deadlines };
}

const realModel: AgentModel = {
  provider: "openai",
  model: "m",
  baseUrl: "https://x.test/v1",
  apiKeySecret: "openai",
};

function realInput(model: Partial<AgentModel> = {}): AgentInput {
  return { ...input([{ reply: "unused" }]), model: { ...realModel, ...model } as AgentModel };
}

const ask = (id: string) => ({ id, name: "ask_user", arguments: { questions: [question] } });
const usage = (inputTokens: number, outputTokens: number) => ({ inputTokens, outputTokens });

describe("model step", () => {
  it("returns an ask with the model's questions, the clamped timeout and the wait with 10 s grace", async () => {
    const { step } = setup();
    const state = input([
      {
        toolCalls: [
          { id: "call_1", name: "ask_user", arguments: { questions: [question], timeoutSeconds: 5 } },
        ],
      },
      { reply: "done" },
    ]);
    const result = await step({ runId: "r1", state });
    expect(result).toEqual({
      action: "ask",
      ask: {
        toolCallId: "call_1",
        questions: [question],
        timeoutSeconds: 30,
        waitSeconds: 40,
        owner: "web:alice",
        sessionKey: "s",
        deliverTo: [],
        remindAfterSeconds: null,
        escalate: null,
        requestedBy: null,
        context: null,
        answerers: null,
        quorum: null,
      },
    });
  });

  it("passes the run's requestedBy to every ask (the task input's, never the model's)", async () => {
    const { step } = setup();
    const state = {
      ...input([{ toolCalls: [{ id: "c", name: "ask_user", arguments: { questions: [question] } }] }]),
      requestedBy: "slack:T1:U9",
    };
    const result = await step({ runId: "rq", state });
    expect(result.action === "ask" && result.ask).toMatchObject({ requestedBy: "slack:T1:U9" });
  });

  it("passes the run's context to every ask (the task input's, never the model's)", async () => {
    const { step } = setup();
    const state = {
      ...input([{ toolCalls: [{ id: "c", name: "ask_user", arguments: { questions: [question] } }] }]),
      context: "Release agent for alice: v1.4 is ready.",
    };
    const result = await step({ runId: "rc", state });
    expect(result.action === "ask" && result.ask).toMatchObject({
      context: "Release agent for alice: v1.4 is ready.",
    });
  });

  it("passes the run's answerers and quorum to every ask (the task input's, never the model's)", async () => {
    const { step } = setup();
    const answerers = [{ owner: "web:bob" }, { group: { channel: "telegram", chatId: "-100" } }];
    const state = {
      ...input([{ toolCalls: [{ id: "c", name: "ask_user", arguments: { questions: [question] } }] }]),
      answerers,
      quorum: 2,
    };
    const result = await step({ runId: "ra", state });
    expect(result.action === "ask" && result.ask).toMatchObject({ answerers, quorum: 2 });
  });

  it("passes the run's reminders and escalation that fall before the question's deadline, and only those", async () => {
    const { step } = setup();
    const escalate = {
      afterSeconds: 600,
      owner: "web:bob",
      deliverTo: [{ channel: "console", chatId: "b" }],
    };
    const asking = (timeoutSeconds: number) => ({
      ...input([
        { toolCalls: [{ id: "c", name: "ask_user", arguments: { questions: [question], timeoutSeconds } }] },
      ]),
      remindAfterSeconds: [60, 600, 1200],
      escalate,
    });
    const long = await step({ runId: "t1", state: asking(900) });
    expect(long.action === "ask" && long.ask).toMatchObject({ remindAfterSeconds: [60, 600], escalate });
    // The model asked for 10 minutes: a reminder or escalation at 10 minutes would come with the deadline.
    const short = await step({ runId: "t2", state: asking(600) });
    expect(short.action === "ask" && short.ask).toMatchObject({ remindAfterSeconds: [60], escalate: null });
  });

  it("on a timed-out ask, closes its question as expired and reports it — unless its timer did first", async () => {
    const state = input([
      { toolCalls: [{ id: "call_1", name: "ask_user", arguments: { questions: [question] } }] },
      { reply: "{{call_1.status}}/{{call_1.reason}}" },
    ]);
    for (const timerWasFirst of [false, true]) {
      const { step, expired, closed } = setup(undefined, undefined, !timerWasFirst);
      const first = await step({ runId: "r11", state });
      const second = await step({
        runId: "r11",
        state: {
          ...state,
          step: first as ModelStepEvent["state"]["step"],
          askResult: { status: "no_answer", reason: "expired" },
        },
      });
      expect(second).toEqual({ action: "reply", output: { reply: "no_answer/expired" } });
      const id = questionIdFor({ runId: "r11", toolCallId: "call_1" });
      expect(expired).toEqual([id]);
      // Reported once in all: by the timer's write, or by this one.
      expect(closed).toEqual(timerWasFirst ? [] : [expect.objectContaining({ id, status: "expired" })]);
    }
  });

  it("records the answer and expands the reply template with it", async () => {
    const { step, transcripts } = setup();
    const state = input([
      { toolCalls: [{ id: "call_1", name: "ask_user", arguments: { questions: [question] } }] },
      { reply: "deploy={{call_1.deploy_target}} status={{call_1.status}}" },
    ]);
    const first = await step({ runId: "r2", state });
    const second = await step({
      runId: "r2",
      state: {
        ...state,
        step: first as ModelStepEvent["state"]["step"],
        askResult: { status: "answered", answers: { deploy_target: ["Production"] } },
      },
    });
    expect(second).toEqual({ action: "reply", output: { reply: "deploy=Production status=answered" } });
    const toolMessage = transcripts.saved.get("r2")?.messages.find((m) => m.role === "tool");
    expect(toolMessage).toMatchObject({
      toolCallId: "call_1",
      text: expect.stringContaining("Deploy to: Production"),
    });
  });

  it("releases the question of the ask that just ended, whatever ended it, and only then", async () => {
    const { step, released } = setup();
    const state = input([
      { toolCalls: [{ id: "call_1", name: "ask_user", arguments: { questions: [question] } }] },
      { toolCalls: [{ id: "call_2", name: "ask_user", arguments: { questions: [question] } }] },
      { reply: "done" },
    ]);
    const first = await step({ runId: "r9", state });
    expect(released).toEqual([]);
    // An outside SendTaskSuccess: a result Handraise did not send, the question still pending in the store.
    const second = await step({
      runId: "r9",
      state: {
        ...state,
        step: first as ModelStepEvent["state"]["step"],
        askResult: { status: "answered", answers: { deploy_target: ["Staging"] } },
      },
    });
    expect(released).toEqual([
      {
        id: questionIdFor({ runId: "r9", toolCallId: "call_1" }),
        outcome: { status: "cancelled", reason: "cancelled", resolvedBy: "wait-ended" },
      },
    ]);
    // An outside SendTaskFailure (the run's Catch reports delivery_failed): released the same way.
    await step({
      runId: "r9",
      state: {
        ...state,
        step: second as ModelStepEvent["state"]["step"],
        askResult: { status: "delivery_failed" },
      },
    });
    expect(released[1]).toEqual({
      id: questionIdFor({ runId: "r9", toolCallId: "call_2" }),
      outcome: { status: "cancelled", reason: "cancelled", resolvedBy: "wait-ended" },
    });
  });

  it("goes on when releasing the ended ask's question fails (the release is a safety net)", async () => {
    const transcripts = memoryTranscripts();
    const failures: string[] = [];
    const step = createModelStep({
      transcripts,
      questions: {
        release: async () => {
          throw new Error("ProvisionedThroughputExceededException");
        },
        expire: async () => false,
      },
      telemetry: { ...silentTelemetry, failed: (context) => failures.push(context) },
      limits: { minTimeoutSeconds: 30, maxTimeoutSeconds: 3600 },
      now: () => 0,
    });
    const state = input([
      { toolCalls: [{ id: "call_1", name: "ask_user", arguments: { questions: [question] } }] },
      { reply: "deploy={{call_1.deploy_target}}" },
    ]);
    const first = await step({ runId: "r10", state });
    const second = await step({
      runId: "r10",
      state: {
        ...state,
        step: first as ModelStepEvent["state"]["step"],
        askResult: { status: "answered", answers: { deploy_target: ["Staging"] } },
      },
    });
    expect(second).toEqual({ action: "reply", output: { reply: "deploy=Staging" } });
    expect(failures).toEqual(["releasing the question of an ended ask"]);
  });

  it("turns a Catch's tool error into an error outcome the model can read", async () => {
    const { step } = setup();
    const state = input([
      { toolCalls: [{ id: "call_1", name: "ask_user", arguments: { questions: [question] } }] },
      { reply: "{{call_1.status}}:{{call_1.error}}" },
    ]);
    const first = await step({ runId: "r3", state });
    const second = await step({
      runId: "r3",
      state: {
        ...state,
        step: first as ModelStepEvent["state"]["step"],
        askResult: { status: "error", error: { code: "SESSION_BUSY", message: "wait" } },
      },
    });
    expect(second).toEqual({ action: "reply", output: { reply: "error:SESSION_BUSY" } });
  });

  it("answers invalid arguments and unknown tools at once, without asking", async () => {
    const { step, transcripts } = setup();
    const state = input([
      {
        toolCalls: [
          { id: "bad", name: "ask_user", arguments: { questions: [] } },
          { id: "other", name: "search_web", arguments: {} },
        ],
      },
      { reply: "{{bad.status}}:{{bad.error}} {{other.status}}:{{other.error}}" },
    ]);
    const result = await step({ runId: "r4", state });
    expect(result).toEqual({
      action: "reply",
      output: { reply: "error:INVALID_ARGUMENT error:UNKNOWN_TOOL" },
    });
    const badMessage = transcripts.saved
      .get("r4")
      ?.messages.find((m) => m.role === "tool" && m.toolCallId === "bad");
    expect(badMessage).toMatchObject({ text: expect.stringContaining('"path":"questions"') });
  });

  it("asks several ask_user calls of one turn one after another without calling the model again", async () => {
    const { step } = setup();
    const second = { ...question, id: "second" };
    const state = input([
      {
        toolCalls: [
          { id: "a", name: "ask_user", arguments: { questions: [question] } },
          { id: "b", name: "ask_user", arguments: { questions: [second] } },
        ],
      },
      { reply: "{{a.deploy_target}}+{{b.reason}}" },
    ]);
    const first = await step({ runId: "r5", state });
    expect(first).toMatchObject({ action: "ask", ask: { toolCallId: "a" } });
    const next = await step({
      runId: "r5",
      state: {
        ...state,
        step: first as ModelStepEvent["state"]["step"],
        askResult: { status: "answered", answers: { deploy_target: ["Staging"] } },
      },
    });
    expect(next).toMatchObject({ action: "ask", ask: { toolCallId: "b", questions: [second] } });
    const last = await step({
      runId: "r5",
      state: {
        ...state,
        step: next as ModelStepEvent["state"]["step"],
        askResult: { status: "no_answer", reason: "skipped" },
      },
    });
    expect(last).toEqual({ action: "reply", output: { reply: "Staging+skipped" } });
  });

  it("ends with a reply when the script runs out of steps", async () => {
    const { step } = setup();
    const state = input([{ toolCalls: [{ id: "x", name: "unknown", arguments: {} }] }]);
    const result = await step({ runId: "r6", state });
    expect(result).toEqual({ action: "reply", output: { reply: "(the script has no more steps)" } });
  });

  it("ends the run with StepLimitError once its model calls reach maxSteps, after saving the transcript", async () => {
    const { step, transcripts } = setup();
    const state = input([
      { toolCalls: [{ id: "a", name: "search", arguments: {} }] },
      { toolCalls: [{ id: "b", name: "search", arguments: {} }] },
      { reply: "never" },
    ]);
    const limited = { ...state, model: { ...state.model, maxSteps: 2 } };
    const error = await step({ runId: "r7", state: limited }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StepLimitError);
    expect((error as Error).name).toBe("Handraise.StepLimitExceeded");
    expect(transcripts.saved.get("r7")?.modelCalls).toBe(2);
    // The default is 20 calls.
    const many = input(
      Array.from({ length: 25 }, (_, i) => ({ toolCalls: [{ id: `c${i}`, name: "search", arguments: {} }] })),
    );
    await expect(step({ runId: "r8", state: many })).rejects.toThrow(
      "The model made 20 calls without replying",
    );
  });

  it("puts the run's token totals in its output, and each call's tokens in the transcript", async () => {
    const { provider } = playing([
      { toolCalls: [{ id: "x", name: "search", arguments: {} }], text: "Looking.", usage: usage(100, 10) },
      { reply: "Done.", usage: usage(150, 20) },
    ]);
    const { step, transcripts } = setup(() => provider);
    const result = await step({ runId: "u1", state: realInput() });
    expect(result).toEqual({
      action: "reply",
      output: { reply: "Done.", usage: { inputTokens: 250, outputTokens: 30, modelCalls: 2 } },
    });
    const assistant = transcripts.saved.get("u1")?.messages.filter((m) => m.role === "assistant");
    expect(assistant).toEqual([
      {
        role: "assistant",
        content: "Looking.",
        toolCalls: [{ id: "x", name: "search", arguments: {} }],
        usage: usage(100, 10),
      },
      { role: "assistant", content: "Done.", usage: usage(150, 20) },
    ]);
  });

  it("gives a call without an id, or with one the run has seen, a fresh id used both ways", async () => {
    const clock = { t: 0 };
    const { provider } = playing(
      [
        { toolCalls: [ask("call_0")] },
        { toolCalls: [{ ...ask(""), name: "search" }, ask("call_0")] },
        { reply: "ok" },
      ],
      clock,
    );
    const { step, transcripts } = setup(() => provider, clock);
    const state = realInput();
    const first = await step({ runId: "ids", state });
    expect(first).toMatchObject({ action: "ask", ask: { toolCallId: "call_0" } });
    const second = await step({
      runId: "ids",
      state: {
        ...state,
        step: first as ModelStepEvent["state"]["step"],
        askResult: { status: "no_answer", reason: "skipped" },
      },
    });
    // The empty id gets one (model call 2, call 0; answered at once as an unknown tool), and so does the
    // repeated "call_0".
    expect(second).toMatchObject({ action: "ask", ask: { toolCallId: "call_hr2_1" } });
    const saved = transcripts.saved.get("ids");
    expect(saved?.messages.at(-2)).toMatchObject({
      role: "assistant",
      toolCalls: [{ id: "call_hr2_0" }, { id: "call_hr2_1" }],
    });
    expect(saved?.messages.at(-1)).toMatchObject({ role: "tool", toolCallId: "call_hr2_0" });
    expect(saved?.pendingToolCalls).toMatchObject([{ id: "call_hr2_1" }]);
  });

  it("budgets its time by the Lambda's: the provider's deadline is the step's time less a margin", async () => {
    const clock = { t: 1_000 };
    const { provider, deadlines } = playing([{ reply: "a" }, { reply: "b" }], clock);
    const { step } = setup(() => provider, clock);
    await step({ runId: "d1", state: realInput() }, { remainingMs: 30_000 });
    // At most the 60 s of MODEL_STEP_SECONDS even when the Lambda (or the local stack) says more.
    await step({ runId: "d2", state: realInput() }, { remainingMs: 900_000 });
    expect(deadlines).toEqual([1_000 + 30_000 - 5_000, 1_000 + 60_000 - 5_000]);
  });

  it("hands over to a fresh invocation (continue) when too little time is left for another model call", async () => {
    const clock = { t: 0 };
    const { provider } = playing(
      [{ toolCalls: [{ id: "s1", name: "search", arguments: {} }] }, { reply: "finally" }],
      clock,
      40_000,
    );
    const { step, transcripts } = setup(() => provider, clock);
    const state = realInput();
    // The first call took 40 s of the 55: the second waits for the next invocation.
    expect(await step({ runId: "c1", state })).toEqual({ action: "continue" });
    expect(transcripts.saved.get("c1")?.messages.at(-1)).toMatchObject({ role: "tool", toolCallId: "s1" });
    const next = await step({ runId: "c1", state: { ...state, step: { action: "continue" } } });
    expect(next).toEqual({ action: "reply", output: { reply: "finally" } });
  });

  it("saves what it recorded, then lets a provider's ModelError end the run", async () => {
    const { provider } = playing([{ toolCalls: [ask("q1")] }]);
    const { step, transcripts } = setup(() => provider);
    const state = realInput();
    const first = await step({ runId: "e1", state });
    await expect(
      step({
        runId: "e1",
        state: {
          ...state,
          step: first as ModelStepEvent["state"]["step"],
          askResult: { status: "answered", answers: { deploy_target: ["Production"] } },
        },
      }),
    ).rejects.toThrow(ModelError);
    expect(transcripts.saved.get("e1")?.messages.at(-1)).toMatchObject({
      role: "tool",
      toolCallId: "q1",
      outcome: { status: "answered" },
    });
  });
});

describe("agent input", () => {
  it("takes each provider's model object, with the defaults filled in, and refuses a key in place of a secret name", () => {
    const parse = (model: unknown) => agentInputSchema.safeParse({ ...input([{ reply: "x" }]), model });
    expect(parse({ provider: "openai", model: "gpt-4o-mini" }).data?.model).toEqual({
      provider: "openai",
      model: "gpt-4o-mini",
      baseUrl: "https://api.openai.com/v1",
      apiKeySecret: "openai",
    });
    expect(parse({ provider: "anthropic", model: "claude-x" }).data?.model).toMatchObject({
      baseUrl: "https://api.anthropic.com",
      apiKeySecret: "anthropic",
    });
    expect(
      parse({ provider: "bedrock", modelId: "amazon.nova-lite-v1:0", region: "eu-central-1", maxTokens: 500 })
        .success,
    ).toBe(true);
    const refused = [
      { provider: "openai", model: "m", apiKeySecret: "sk-proj-ABCdef0123456789" },
      { provider: "openai", model: "m", apiKey: "sk-0123" },
      { provider: "openai", model: "m", baseUrl: "https://user:sk-0123@llm.example.com/v1" },
      { provider: "openai", model: "m", baseUrl: "ftp://llm.example.com" },
      { provider: "openai", model: "m", baseUrl: "not a url" },
      { provider: "bedrock", modelId: "m", region: "mars" },
      { provider: "anthropic", model: "m", maxSteps: 0 },
      { provider: "gemini", model: "m" },
    ];
    for (const model of refused) expect(parse(model).success, JSON.stringify(model)).toBe(false);
  });

  it("ends the run with a ModelError naming the fields of a model that is not valid, never their values", () => {
    const event = (model: unknown) => ({ runId: "r", state: { ...input([{ reply: "x" }]), model } });
    const key = "sk-proj-0123456789abcdef";
    const error = (() => {
      try {
        parseModelStepEvent(event({ provider: "openai", model: "m", apiKey: key, maxSteps: 0 }));
      } catch (e) {
        return e as Error;
      }
    })();
    expect(error).toBeInstanceOf(ModelError);
    expect(error?.message).toBe(
      "The input's model is not valid: maxSteps must be a whole number from 1 to 100 (at model.maxSteps); " +
        "apiKey is not a field of model (at model.apiKey).",
    );
    expect(error?.message).not.toContain(key);
    expect(parseModelStepEvent(event({ provider: "bedrock", modelId: "m" })).state.model).toEqual({
      provider: "bedrock",
      modelId: "m",
    });
  });

  it("ends the run with Handraise.InvalidInput for any other problem of its input, naming each at its path", () => {
    const bad = { ...input([{ reply: "x" }]), owner: "alice", deliverTo: [{ channel: "telegram" }] };
    const error = (() => {
      try {
        parseModelStepEvent({ runId: "r", state: bad });
      } catch (e) {
        return e as InvalidInputError;
      }
    })();
    expect(error).toBeInstanceOf(InvalidInputError);
    expect(error?.name).toBe("Handraise.InvalidInput");
    expect(error?.issues).toEqual([
      { path: "owner", message: expect.stringMatching(/^owner must be platform-qualified, e\.g\. /) },
      { path: "deliverTo.0.chatId", message: "chatId is required" },
    ]);
    expect(error?.message).toMatch(
      /^Invalid agent input: owner must be platform-qualified, e\.g\. .+, and 1 more problem\.$/,
    );
    expect(() =>
      parseModelStepEvent({ runId: "r", state: { ...input([{ reply: "x" }]), model: undefined } }),
    ).toThrow(ModelError);
  });
});
