import { describe, expect, it } from "vitest";
import { type AskQuestionInput, createAskQuestion } from "#lib/app/ask-question.ts";
import { InvalidArgumentError, SessionBusyError } from "#lib/app/errors.ts";
import type { CallbackOutcome, TaskCallbacks } from "#lib/callbacks/task-callbacks.ts";
import { durableWaiter } from "#lib/callbacks/waiter.ts";
import type { ChatChannel } from "#lib/channels/chat-channel.ts";
import { MAX_COPIES, type QuestionRecord } from "#lib/questions/question-record.ts";
import { createInMemoryQuestionStore } from "#lib/store/in-memory-question-store.ts";
import type { CreateResult, NewQuestion, Outcome, QuestionStore } from "#lib/store/question-store.ts";
import { silentTelemetry } from "#lib/telemetry/telemetry.ts";

const args = {
  questions: [{ id: "q", header: "H", question: "Which?", options: [{ label: "A" }, { label: "B" }] }],
};

function recordOf(question: NewQuestion): QuestionRecord {
  return {
    id: question.id,
    status: "pending",
    questions: question.questions,
    owner: question.owner,
    deliveries: question.deliverTo,
    createdAtMs: question.createdAtMs,
    expiresAtMs: question.createdAtMs + question.timeoutSeconds * 1000,
    ...(question.runId !== undefined && { runId: question.runId }),
  };
}

/**
 * A store whose session `s1` is held by `ask_old` (waiting on `old-token`) until that question is released;
 * `runEnded` is what DescribeExecution says of any run (ended or not, or its failure).
 */
/** The run whose question holds session `s1`. */
const HOLDER_RUN = "arn:aws:states:eu-west-1:123456789012:execution:handraise-dev-agent:holder";

function setup(
  heartbeat: CallbackOutcome | Error,
  defaultRemindAfterSeconds: number[] = [],
  runEnded: boolean | Error = true,
) {
  const created: NewQuestion[] = [];
  const released: { id: string; outcome: Outcome }[] = [];
  let holderOpen = true;
  const store = {
    async create(question: NewQuestion): Promise<CreateResult> {
      created.push(question);
      if (holderOpen && question.sessionKey === "s1") {
        return { kind: "session_busy", pendingId: "ask_old", pendingTaskToken: "old-token" };
      }
      return { kind: "created", record: recordOf(question) };
    },
    async release(id: string, outcome: Outcome) {
      released.push({ id, outcome });
      holderOpen = false;
      return true;
    },
    async get(id: string) {
      return id === "ask_old" && holderOpen ? { id, status: "pending", runId: HOLDER_RUN } : undefined;
    },
  } as unknown as QuestionStore;
  const probed: string[] = [];
  const described: string[] = [];
  const callbacks = {
    async heartbeat(token: string) {
      probed.push(token);
      if (heartbeat instanceof Error) throw heartbeat;
      return heartbeat;
    },
    async runEnded(runId: string) {
      described.push(runId);
      if (runEnded instanceof Error) throw runEnded;
      return runEnded;
    },
  } as unknown as TaskCallbacks;
  const failures: string[] = [];
  const telemetry = { ...silentTelemetry, failed: (context: string) => failures.push(context) };
  const console: ChatChannel = {
    name: "console",
    deliver: async (_, target) => target,
    retire: async () => {},
    remind: async () => {},
  };
  const askQuestion = createAskQuestion({
    store,
    channels: new Map([["console", console]]),
    callbacks,
    telemetry,
    limits: { minTimeoutSeconds: 30, maxTimeoutSeconds: 3600 },
    defaultRemindAfterSeconds,
    now: () => 1_000,
  });
  // Asked by a run unless the test says otherwise.
  const ask = (input: Omit<AskQuestionInput, "askedBy"> & { askedBy?: string }) =>
    askQuestion({ askedBy: "run", ...input });
  return { ask, released, probed, described, failures, created };
}

describe("askQuestion and a busy session", () => {
  it("takes the session over when the run holding it no longer waits and has ended", async () => {
    const { ask, released, probed, described } = setup("not_waiting");
    const record = await ask({ args, owner: "web:a", sessionKey: "s1", deliverTo: [] });
    expect(record.status).toBe("pending");
    expect(probed).toEqual(["old-token"]);
    expect(described).toEqual([HOLDER_RUN]);
    expect(released).toEqual([
      { id: "ask_old", outcome: { status: "cancelled", reason: "cancelled", resolvedBy: "wait-ended" } },
    ]);
  });

  it("stays busy when the token is dead but its run goes on (a retried task's earlier token)", async () => {
    const { ask, released, probed, described } = setup("not_waiting", [], false);
    await expect(ask({ args, owner: "web:a", sessionKey: "s1", deliverTo: [] })).rejects.toBeInstanceOf(
      SessionBusyError,
    );
    expect(probed).toEqual(["old-token"]);
    expect(described).toEqual([HOLDER_RUN]);
    expect(released).toEqual([]);
  });

  it("stays busy while that run still waits, or when Step Functions cannot tell", async () => {
    for (const alive of ["resumed", new Error("ThrottlingException")] as const) {
      const { ask, released } = setup(alive);
      await expect(ask({ args, owner: "web:a", sessionKey: "s1", deliverTo: [] })).rejects.toBeInstanceOf(
        SessionBusyError,
      );
      expect(released).toEqual([]);
    }
  });
});

describe("askQuestion and a run that stopped while it asked", () => {
  const taskToken = "AQCEAAAAKgAAAAMAAAAAAAAAAc+/9xK0ZyVw==";
  const runId = "arn:aws:states:eu-west-1:123456789012:execution:handraise-dev-agent:run-1";

  it("cancels the stored question as a stopped run's when the token is dead and the run has ended", async () => {
    const { ask, released, probed, described } = setup("not_waiting", [], true);
    const record = await ask({ args, owner: "web:a", deliverTo: [], taskToken, runId, toolCallId: "t1" });
    expect(probed).toEqual([taskToken]);
    expect(described).toEqual([runId]);
    expect(released).toEqual([
      { id: record.id, outcome: { status: "cancelled", reason: "cancelled", resolvedBy: "run-abort" } },
    ]);
    expect(record).toMatchObject({ status: "cancelled", reason: "cancelled", resolvedBy: "run-abort" });
  });

  it("keeps it when the token is dead but the run is still running (a retried task's earlier token)", async () => {
    const { ask, released, described, failures } = setup("not_waiting", [], false);
    const record = await ask({ args, owner: "web:a", deliverTo: [], taskToken, runId, toolCallId: "t1" });
    expect(described).toEqual([runId]);
    expect(record.status).toBe("pending");
    expect(released).toEqual([]);
    expect(failures).toEqual([]);
  });

  it("keeps it, and reports it, when Step Functions cannot tell whether the run ended", async () => {
    const { ask, released, described, failures } = setup("not_waiting", [], new Error("ThrottlingException"));
    const record = await ask({ args, owner: "web:a", deliverTo: [], taskToken, runId, toolCallId: "t1" });
    expect(described).toEqual([runId]);
    expect(record.status).toBe("pending");
    expect(released).toEqual([]);
    expect(failures).toEqual(["asking whether the run has ended"]);
  });

  it("keeps it when no run is named, asking nothing of a run", async () => {
    const { ask, released, described } = setup("not_waiting", [], true);
    const record = await ask({ args, owner: "web:a", deliverTo: [], taskToken });
    expect(record.status).toBe("pending");
    expect(described).toEqual([]);
    expect(released).toEqual([]);
  });

  it("keeps it while the run waits, or when Step Functions cannot tell", async () => {
    for (const alive of ["resumed", new Error("ThrottlingException")] as const) {
      const { ask, released, probed, described, failures } = setup(alive, [], true);
      const record = await ask({ args, owner: "web:a", deliverTo: [], taskToken, runId, toolCallId: "t1" });
      expect(record.status).toBe("pending");
      expect(probed).toEqual([taskToken]);
      expect(described).toEqual([]);
      expect(released).toEqual([]);
      expect(failures).toEqual(alive === "resumed" ? [] : ["asking whether the run still waits"]);
    }
  });

  it("asks no one without a Step Functions token (the API's questions, a durable execution's)", async () => {
    for (const token of [undefined, durableWaiter("eyJleGVjdXRpb25JZCI6ImFiYyJ9")]) {
      const { ask, released, probed } = setup("not_waiting");
      const record = await ask({ args, owner: "web:a", deliverTo: [], taskToken: token });
      expect(record.status).toBe("pending");
      expect(probed).toEqual([]);
      expect(released).toEqual([]);
    }
  });
});

describe("askQuestion delivery targets", () => {
  it("refuses a target on a channel that is not enabled before storing anything", async () => {
    const { ask } = setup("resumed");
    const refused = ask({
      args,
      owner: "web:a",
      deliverTo: [
        { channel: "console", chatId: "t" },
        { channel: "slack", chatId: "C1" },
      ],
    });
    await expect(refused).rejects.toBeInstanceOf(InvalidArgumentError);
    await expect(refused).rejects.toMatchObject({
      issues: [{ path: "deliverTo.1.channel", message: expect.stringContaining('"slack" is not enabled') }],
    });
  });
});

describe("askQuestion and the waiting run's token", () => {
  it("refuses a token no service hands out (a lone surrogate, a space) at taskToken, storing nothing", async () => {
    for (const taskToken of [durableWaiter("eyJ4\ud800"), "AAAA KgAA==", "tok\u00e9n"]) {
      const { ask, created } = setup("resumed");
      const refused = ask({ args, owner: "web:a", deliverTo: [], taskToken });
      await expect(refused).rejects.toBeInstanceOf(InvalidArgumentError);
      await expect(refused).rejects.toMatchObject({ issues: [{ path: "taskToken" }] });
      expect(created).toEqual([]);
    }
  });

  it("takes a Step Functions task token and a durable callback id as the services issue them", async () => {
    for (const taskToken of [
      "AQCEAAAAKgAAAAMAAAAAAAAAAc+/9xK0ZyVw==",
      durableWaiter("eyJleGVjdXRpb25JZCI6ImFiYyJ9"),
      "task-1-0b6f3c1e-5d0a-4c1e-9d0f-6b2f1e0a9c3d",
      "AbC_d-Ef",
    ]) {
      const { ask, created } = setup("resumed");
      expect((await ask({ args, owner: "web:a", deliverTo: [], taskToken })).status).toBe("pending");
      expect(created.map((question) => question.taskToken)).toEqual([taskToken]);
    }
  });
});

describe("askQuestion reminders and escalation", () => {
  const escalate = { afterSeconds: 600, owner: "web:b", deliverTo: [{ channel: "console", chatId: "b" }] };

  it("stores the request's own, in order without repeats, each before the deadline", async () => {
    const { ask, created } = setup("resumed", [60]);
    const record = await ask({
      args: { ...args, timeoutSeconds: 900 },
      owner: "web:a",
      deliverTo: [],
      remindAfterSeconds: [600, 300, 600],
      escalate,
    });
    expect(record.status).toBe("pending");
    expect(created[0]).toMatchObject({ remindAfterSeconds: [300, 600], escalate });
  });

  it("refuses a reminder or an escalation at or past the deadline, at its path, storing nothing", async () => {
    const { ask, created } = setup("resumed");
    await expect(
      ask({ args, owner: "web:a", deliverTo: [], remindAfterSeconds: [60, 900] }),
    ).rejects.toMatchObject({
      issues: [{ path: "remindAfterSeconds.1", message: expect.stringContaining("900 s") }],
    });
    await expect(
      ask({ args: { ...args, timeoutSeconds: 600 }, owner: "web:a", deliverTo: [], escalate }),
    ).rejects.toMatchObject({ issues: [{ path: "escalate.afterSeconds" }] });
    await expect(
      ask({
        args,
        owner: "web:a",
        deliverTo: [],
        escalate: { ...escalate, deliverTo: [{ channel: "slack", chatId: "U1" }] },
      }),
    ).rejects.toMatchObject({ issues: [{ path: "escalate.deliverTo.0.channel" }] });
    expect(created).toEqual([]);
  });

  it("without reminders of its own, takes the deployment's that fall before its deadline; [] means none", async () => {
    const { ask, created } = setup("resumed", [60, 600, 1800]);
    await ask({ args: { ...args, timeoutSeconds: 900 }, owner: "web:a", deliverTo: [] });
    await ask({
      args: { ...args, timeoutSeconds: 900 },
      owner: "web:a",
      deliverTo: [],
      remindAfterSeconds: null,
    });
    await ask({ args, owner: "web:a", deliverTo: [], remindAfterSeconds: [] });
    expect(created.map((q) => q.remindAfterSeconds)).toEqual([[60, 600], [60, 600], []]);
  });
});

describe("askQuestion copies", () => {
  it("refuses more than MAX_COPIES chats in all (owner's, answerers', escalation's), storing nothing", async () => {
    const { ask, created } = setup("resumed");
    const chats = (from: number, count: number) =>
      Array.from({ length: count }, (_, n) => ({ channel: "console", chatId: `c${from + n}` }));
    const answerers = Array.from({ length: 5 }, (_, a) => ({
      owner: `web:p${a}`,
      deliverTo: chats(10 * (a + 1), 10),
    }));
    const escalate = { afterSeconds: 60, owner: "web:e", deliverTo: chats(90, 1) };
    // 10 + 50 chats is the cap; the escalation's one more is past it.
    await expect(
      ask({ args, owner: "web:a", deliverTo: chats(0, 10), answerers, escalate }),
    ).rejects.toMatchObject({
      name: "InvalidArgumentError",
      issues: [{ path: "deliverTo", message: expect.stringContaining(`at most ${MAX_COPIES} chats in all`) }],
    });
    expect(created).toEqual([]);
    // At the cap it is stored (delivering to this test's console channel is another matter).
    await ask({ args, owner: "web:a", deliverTo: chats(0, 10), answerers }).catch(() => undefined);
    expect(created).toHaveLength(1);
  });
});

describe("askQuestion on someone's behalf (requestedBy)", () => {
  const escalate = { afterSeconds: 60, owner: "web:b", deliverTo: [{ channel: "console", chatId: "b" }] };

  it("stores who asked and on whose behalf", async () => {
    const { ask, created } = setup("resumed");
    await ask({ args, owner: "web:a", deliverTo: [], askedBy: "api:ci", requestedBy: "slack:T1:U9" });
    expect(created[0]).toMatchObject({ askedBy: "api:ci", requestedBy: "slack:T1:U9" });
  });

  it("refuses a requester who would be the only one to answer (400 at requestedBy), storing nothing", async () => {
    const { ask, created } = setup("resumed");
    await expect(ask({ args, owner: "web:a", deliverTo: [], requestedBy: "web:a" })).rejects.toMatchObject({
      name: "InvalidArgumentError",
      issues: [{ path: "requestedBy" }],
    });
    // The escalation owner is the requester too: still no one else.
    await expect(
      ask({
        args,
        owner: "web:a",
        deliverTo: [],
        requestedBy: "web:a",
        escalate: { ...escalate, owner: "web:a" },
      }),
    ).rejects.toMatchObject({ issues: [{ path: "requestedBy" }] });
    expect(created).toEqual([]);
  });

  it("accepts the owner as requester when someone else may answer (an escalation)", async () => {
    const { ask, created } = setup("resumed");
    const record = await ask({ args, owner: "web:a", deliverTo: [], requestedBy: "web:a", escalate });
    expect(record.status).toBe("pending");
    expect(created[0]).toMatchObject({ requestedBy: "web:a", escalate });
  });
});

describe("askQuestion with a context (who is asking and why)", () => {
  it("stores it trimmed, with every line break as \\n", async () => {
    const { ask, created } = setup("resumed");
    await ask({
      args,
      owner: "web:a",
      deliverTo: [],
      context: "  Release agent:\r\nv1.4 <ready> & *green*\r ",
    });
    expect(created[0]).toMatchObject({ context: "Release agent:\nv1.4 <ready> & *green*" });
  });

  it.each([
    ["501 characters", "x".repeat(501), "at most 500 characters"],
    ["a tab", "a\tb", "control or direction characters"],
    ["a NUL", "a\u0000b", "control or direction characters"],
    ["a right-to-left isolate", "a\u2067b", "control or direction characters"],
    ["nothing but spaces", "  \n ", "empty or blank"],
  ])("refuses %s (400 at context), storing nothing", async (_, context, rule) => {
    const { ask, created } = setup("resumed");
    const refused = ask({ args, owner: "web:a", deliverTo: [], context });
    await expect(refused).rejects.toBeInstanceOf(InvalidArgumentError);
    await expect(refused).rejects.toMatchObject({
      issues: [{ path: "context", message: expect.stringContaining(rule) }],
    });
    expect(created).toEqual([]);
  });

  it("takes exactly 500 characters, and none at all (null, as a task input without one passes it)", async () => {
    const { ask, created } = setup("resumed");
    await ask({ args, owner: "web:a", deliverTo: [], context: "y".repeat(500) });
    await ask({ args, owner: "web:a", deliverTo: [], context: null });
    expect(created[0]?.context).toBe("y".repeat(500));
    expect(created[1]?.context).toBeUndefined();
  });
});

describe("askQuestion: a retried AskUser task whose question was answered meanwhile", () => {
  function retrySetup() {
    const store = createInMemoryQuestionStore({ retentionSeconds: 3600 });
    const sent: { command: string; token: string; output?: unknown; error?: string }[] = [];
    const callbacks = {
      async succeed(token: string, output: unknown) {
        sent.push({ command: "success", token, output });
        return "resumed";
      },
      async fail(token: string, error: string) {
        sent.push({ command: "failure", token, error });
        return "resumed";
      },
      async heartbeat() {
        return "resumed";
      },
    } as unknown as TaskCallbacks;
    const posted: string[] = [];
    const console: ChatChannel = {
      name: "console",
      deliver: async (record, target) => {
        posted.push(record.id);
        return { ...target, messageId: `m${posted.length}` };
      },
      retire: async () => {},
      remind: async () => {},
    };
    const askQuestion = createAskQuestion({
      store,
      channels: new Map([["console", console]]),
      callbacks,
      telemetry: silentTelemetry,
      limits: { minTimeoutSeconds: 30, maxTimeoutSeconds: 3600 },
      now: () => 1_000,
    });
    const ask = (taskToken: string) =>
      askQuestion({
        args,
        owner: "web:a",
        deliverTo: [{ channel: "console", chatId: "t" }],
        runId: "arn:aws:states:eu-west-1:1:execution:agent:r1",
        toolCallId: "c1",
        taskToken,
        askedBy: "run",
      });
    return { store, ask, sent, posted };
  }

  it("answered: the new token is sent the stored answers, nothing is posted again (not delivery_failed)", async () => {
    const { store, ask, sent, posted } = retrySetup();
    const first = await ask("T1");
    await store.close(first.id, { status: "answered", answers: { q: ["B"] }, resolvedBy: "api" }, 1_000);
    const again = await ask("T2");
    expect(again).toMatchObject({ id: first.id, status: "answered", answers: { q: ["B"] } });
    expect(sent).toEqual([
      {
        command: "success",
        token: "T2",
        output: expect.objectContaining({ status: "answered", answers: { q: ["B"] } }),
      },
    ]);
    expect(posted).toEqual([first.id]);
  });

  it("skipped: the new token is failed with the skip, as the run would have been", async () => {
    const { store, ask, sent } = retrySetup();
    const first = await ask("T1");
    await store.close(first.id, { status: "cancelled", reason: "skipped", resolvedBy: "telegram:42" }, 1_000);
    expect((await ask("T2")).status).toBe("cancelled");
    expect(sent).toEqual([{ command: "failure", token: "T2", error: "Handraise.Skipped" }]);
  });
});
