import { describe, expect, it } from "vitest";
import { type AgentInput, createModelStep, type ModelStepEvent } from "#lib/agent/model-step.ts";
import type { Transcript, TranscriptStore } from "#lib/agent/transcript.ts";
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

function input(steps: AgentInput["model"]["steps"]): AgentInput {
  return {
    sessionKey: "s",
    owner: "web:alice",
    deliverTo: [],
    prompt: "hi",
    model: { provider: "scripted", steps },
  };
}

/** `expireWins`: whether the model step's expiry write would win (no timer closed the question first). */
function setup(expireWins = false) {
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
    now: () => 0,
  });
  return { transcripts, step, released, expired, closed };
}

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
      },
    });
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
      const { step, expired, closed } = setup(!timerWasFirst);
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
});
