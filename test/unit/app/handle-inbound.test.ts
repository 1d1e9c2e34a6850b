import { describe, expect, it } from "vitest";
import tableDefinition from "#infra/table.json" with { type: "json" };
import { createHandleInbound } from "#lib/app/handle-inbound.ts";
import type { ResolveQuestion } from "#lib/app/resolve-question.ts";
import type { Inbound } from "#lib/channels/inbound.ts";
import { outcomeReplyText } from "#lib/channels/replies.ts";
import { normalizeAskUserArgs } from "#lib/questions/index.ts";
import { answerRefusal, MAX_COPIES, type QuestionRecord } from "#lib/questions/question-record.ts";
import type { QuestionStore } from "#lib/store/question-store.ts";
import { type AnswerLinks, createAnswerLinks, NO_ANSWER_LINKS } from "#lib/web/answer-link.ts";

const { questions } = normalizeAskUserArgs({
  questions: [
    {
      id: "deploy_target",
      header: "Deploy to",
      question: "Where?",
      options: [{ label: "Staging" }, { label: "Production" }],
    },
  ],
});

const record: QuestionRecord = {
  id: "ask_1",
  status: "pending",
  questions,
  owner: "telegram:42",
  deliveries: [{ channel: "telegram", chatId: "-100", messageId: "7" }],
  createdAtMs: 0,
  expiresAtMs: Number.MAX_SAFE_INTEGER,
};

/** A record as a pending listing returns it: only the attributes the pending indexes project. */
function asListed(question: QuestionRecord): QuestionRecord {
  const projected = tableDefinition.GlobalSecondaryIndexes[0]?.Projection.NonKeyAttributes ?? [];
  return Object.fromEntries(
    Object.entries(question).filter(([name]) => projected.includes(name)),
  ) as unknown as QuestionRecord;
}

/** The pipeline over one pending question posted as message 7 in chat -100; records what it resolved. */
function pipeline(question: QuestionRecord = record, links: AnswerLinks = NO_ANSWER_LINKS) {
  const answered: unknown[] = [];
  const store = {
    get: async (id: string) => (id === question.id ? question : undefined),
    findByMessage: async (_channel: string, chatId: string, messageId: string) =>
      chatId === "-100" && messageId === "7" ? question.id : undefined,
    // As the pending indexes project it (infra/table.json): not who may answer, nor the draft.
    listPendingPage: async () => ({ questions: [asListed(question)] }),
    claimEvent: async () => true,
    releaseEvent: async () => undefined,
  } as unknown as QuestionStore;
  const resolve = {
    answer: async (id: string, answers: unknown) => {
      answered.push(answers);
      return { record: { ...question, id, status: "answered" } };
    },
    cancel: async () => {
      answered.push("cancel");
      return { record: { ...question, status: "cancelled" } };
    },
  } as unknown as ResolveQuestion;
  const handle = createHandleInbound({ store, resolve, channels: new Map(), links, now: () => 1 });
  return { handle, answered };
}

const text = (fields: Partial<Extract<Inbound, { kind: "text" }>>): Inbound => ({
  platform: "telegram",
  actor: "telegram:42",
  chatId: "-100",
  kind: "text",
  text: "2",
  addressed: false,
  ...fields,
});

describe("handleInbound: typed text", () => {
  it("text that neither replies to a question nor addresses the bot is chatter: ignored, nothing resolved", async () => {
    const { handle, answered } = pipeline();
    expect(await handle(text({}))).toEqual({ kind: "ignored" });
    // A reply to some other message is not a reply to the question either.
    expect(await handle(text({ replyToMessageId: "99" }))).toEqual({ kind: "ignored" });
    expect(answered).toEqual([]);
  });

  it("a reply to the question's message answers it, addressed or not", async () => {
    const { handle, answered } = pipeline();
    expect((await handle(text({ replyToMessageId: "7" }))).kind).toBe("resolved");
    expect(answered).toEqual([{ deploy_target: ["Production"] }]);
  });

  it("text addressed to the bot goes to the sender's oldest pending question in the chat", async () => {
    const { handle, answered } = pipeline();
    expect((await handle(text({ addressed: true }))).kind).toBe("resolved");
    expect((await handle(text({ addressed: true, replyToMessageId: "99" }))).kind).toBe("resolved");
    expect(answered).toHaveLength(2);
  });

  it("commands always address the bot", async () => {
    const { handle } = pipeline();
    const cancel: Inbound = {
      platform: "telegram",
      actor: "telegram:42",
      chatId: "-100",
      kind: "command",
      command: "cancel",
    };
    expect((await handle(cancel)).kind).toBe("resolved");
  });

  it("a typed number that names no option is invalid with the sentence to show, and resolves nothing", async () => {
    const { handle, answered } = pipeline();
    const outcome = await handle(text({ replyToMessageId: "7", text: "3" }));
    expect(outcome).toEqual({
      kind: "invalid",
      record,
      reason: { kind: "no_such_option", question: record.questions[0], typed: "3", several: false },
    });
    expect(outcomeReplyText(outcome)).toBe("There is no option 3 — type a number 1–2 or your own answer.");
    expect(answered).toEqual([]);
  });
});

describe("handleInbound: one round trip for the claim and the routing read", () => {
  const tap: Inbound = {
    platform: "telegram",
    actor: "telegram:42",
    chatId: "-100",
    kind: "control",
    questionId: "ask_1",
    action: { type: "option", questionIndex: 0, optionIndex: 1 },
    dedupeKey: "u1",
  };

  /** A store whose claim and read each wait for a release, logging when they start and end. */
  function timedPipeline(options: { claimed?: boolean; readFails?: boolean } = {}) {
    const log: string[] = [];
    const released: string[] = [];
    let passedLoaded: unknown;
    const step = async <T>(name: string, value: () => T): Promise<T> => {
      log.push(`${name} start`);
      await new Promise((resolve) => setTimeout(resolve, 5));
      log.push(`${name} end`);
      return value();
    };
    const store = {
      get: () =>
        step("get", () => {
          if (options.readFails) throw new Error("read failed");
          return record;
        }),
      claimEvent: () => step("claim", () => options.claimed ?? true),
      releaseEvent: async (key: string) => {
        released.push(key);
      },
    } as unknown as QuestionStore;
    const resolve = {
      answer: async (_id: string, _answers: unknown, resolveOptions: { loaded?: unknown }) => {
        passedLoaded = resolveOptions.loaded;
        return { record: { ...record, status: "answered" } };
      },
    } as unknown as ResolveQuestion;
    const handle = createHandleInbound({
      store,
      resolve,
      channels: new Map(),
      links: NO_ANSWER_LINKS,
      now: () => 1,
    });
    return { handle, log, released, loaded: () => passedLoaded };
  }

  it("sends the dedupe claim and the question read side by side, and resolves with the record it read", async () => {
    const { handle, log, loaded } = timedPipeline();
    expect((await handle(tap)).kind).toBe("resolved");
    expect(log.slice(0, 2).sort()).toEqual(["claim start", "get start"]);
    expect(loaded()).toBe(record);
  });

  it("a duplicate delivery changes nothing, though its read was sent", async () => {
    const { handle, loaded } = timedPipeline({ claimed: false });
    expect(await handle(tap)).toEqual({ kind: "duplicate" });
    expect(loaded()).toBeUndefined();
  });

  it("a failed read gives the claim back, so the platform's retry is handled", async () => {
    const { handle, released } = timedPipeline({ readFails: true });
    await expect(handle(tap)).rejects.toThrow("read failed");
    expect(released).toEqual(["telegram:u1"]);
  });
});

describe("handleInbound: the person a question was asked for (requestedBy)", () => {
  // Asked for telegram:42, its owner, with an escalation to telegram:7 (else it could not have been asked).
  const forOwner: QuestionRecord = {
    ...record,
    requestedBy: "telegram:42",
    escalate: { afterSeconds: 0, owner: "telegram:7", deliverTo: [{ channel: "telegram", chatId: "7" }] },
  };
  const tap = (actor: string, action: Extract<Inbound, { kind: "control" }>["action"]): Inbound => ({
    platform: "telegram",
    actor,
    chatId: "-100",
    kind: "control",
    questionId: "ask_1",
    action,
  });

  it("may not answer, skip or cancel it even as its owner: the requester outcome, nothing resolved", async () => {
    const { handle, answered } = pipeline(forOwner);
    const inbounds: Inbound[] = [
      tap("telegram:42", { type: "option", questionIndex: 0, optionIndex: 1 }),
      tap("telegram:42", { type: "skip" }),
      text({ replyToMessageId: "7" }),
      // Routed through the pending listing, which does not carry requestedBy: read whole before judged.
      text({ addressed: true }),
      { platform: "telegram", actor: "telegram:42", chatId: "-100", kind: "command", command: "cancel" },
    ];
    for (const inbound of inbounds) {
      expect(await handle(inbound)).toEqual({ kind: "requester", record: forOwner });
    }
    expect(answered).toEqual([]);
    expect(outcomeReplyText({ kind: "requester", record: forOwner })).toBe(
      "You asked for this; someone else must answer.",
    );
  });

  it("is told so rather than 'not yours' when not an answerer at all; the others answer as before", async () => {
    const { handle, answered } = pipeline({ ...record, requestedBy: "telegram:99" });
    expect((await handle(tap("telegram:99", { type: "skip" }))).kind).toBe("requester");
    expect((await handle(tap("telegram:5", { type: "skip" }))).kind).toBe("not_owner");
    expect(
      (await handle(tap("telegram:42", { type: "option", questionIndex: 0, optionIndex: 0 }))).kind,
    ).toBe("resolved");
    expect(answered).toEqual([{ deploy_target: ["Staging"] }]);
  });

  it("answerRefusal: requester first, then whether they are an answerer at that time", () => {
    expect(answerRefusal(forOwner, "telegram:42", 1)).toBe("requester");
    expect(answerRefusal(forOwner, "telegram:7", 1)).toBeUndefined();
    expect(answerRefusal({ ...forOwner, createdAtMs: 10 }, "telegram:7", 1)).toBe("not_answerer");
    expect(answerRefusal(record, "telegram:42", 1)).toBeUndefined();
  });

  it("refuses the requester however their identity is written: case, a Slack user named with another team", () => {
    const asked = (requestedBy: string, owner: string) => ({ ...record, owner, requestedBy });
    const guid = "0f8fad5b-d9cb-469f-a165-70867728950e";
    expect(answerRefusal(asked(`teams:${guid.toUpperCase()}`, "teams:x"), `teams:${guid}`, 1)).toBe(
      "requester",
    );
    expect(answerRefusal(asked("slack:T_WORK:U1", "slack:T_WORK:U9"), "slack:T_HOME:U1", 1)).toBe(
      "requester",
    );
    // The owner is still matched exactly: another way of writing them is not them (fails closed).
    expect(answerRefusal(asked("slack:T1:U2", "slack:T1:U1"), "slack:T2:U1", 1)).toBe("not_answerer");
  });
});

describe("handleInbound: Answer in browser on a shared copy", () => {
  const links = createAnswerLinks({ publicUrl: "https://api.example.com", key: async () => "k".repeat(32) });
  const tap = (actor: string): Inbound => ({
    platform: "telegram",
    actor,
    chatId: "-100",
    kind: "control",
    questionId: "ask_1",
    action: { type: "browser" },
  });

  it("hands the owner their own link, and changes nothing", async () => {
    const { handle, answered } = pipeline(record, links);
    const outcome = await handle(tap("telegram:42"));
    expect(outcome).toEqual({ kind: "private_link", record, url: await links.urlFor(record, "telegram:42") });
    expect(answered).toEqual([]);
  });

  it("tells anyone else the question is not theirs, with no link", async () => {
    const { handle } = pipeline(record, links);
    const outcome = await handle(tap("telegram:7"));
    expect(outcome).toEqual({ kind: "not_owner", record });
    expect(JSON.stringify(outcome)).not.toContain("/answer/");
  });

  it("hands the person a question was asked for no link: they may never answer it", async () => {
    const { handle } = pipeline({ ...record, requestedBy: "telegram:9" }, links);
    const outcome = await handle(tap("telegram:9"));
    expect(outcome.kind).toBe("requester");
    expect(JSON.stringify(outcome)).not.toContain("/answer/");
  });

  it("is refused as a control that does not fit where the page is off", async () => {
    const { handle } = pipeline();
    expect((await handle(tap("telegram:42"))).kind).toBe("invalid");
  });
});

describe("handleInbound: /question posts the question again as it was asked", () => {
  it("reads a question routed from the pending listing whole first: the re-post shows its context", async () => {
    const whole: QuestionRecord = { ...record, context: "Release agent for alice" };
    // The pending indexes project what a listing shows: no context.
    const { context: _notProjected, ...listed } = whole;
    const posted: QuestionRecord[] = [];
    const store = {
      get: async (id: string) => (id === whole.id ? whole : undefined),
      listPendingPage: async () => ({ questions: [listed] }),
      addDeliveries: async () => whole,
      claimEvent: async () => true,
      releaseEvent: async () => undefined,
    } as unknown as QuestionStore;
    const telegram = {
      name: "telegram",
      deliver: async (question: QuestionRecord, target: { channel: string; chatId: string }) => {
        posted.push(question);
        return { ...target, messageId: "8" };
      },
      retire: async () => {},
      remind: async () => {},
    };
    const handle = createHandleInbound({
      store,
      resolve: {} as ResolveQuestion,
      channels: new Map([["telegram", telegram]]),
      links: NO_ANSWER_LINKS,
      now: () => 1,
    });
    const outcome = await handle({
      platform: "telegram",
      actor: "telegram:42",
      chatId: "-100",
      kind: "command",
      command: "question",
    });
    expect(outcome.kind).toBe("shown");
    expect(posted.map((question) => question.context)).toEqual(["Release agent for alice"]);
  });

  it("posts nothing for a question that holds MAX_COPIES copies, and says so", async () => {
    const full: QuestionRecord = {
      ...record,
      // One here, the rest in other chats: the question is full, not this chat.
      deliveries: Array.from({ length: MAX_COPIES }, (_, n) => ({
        channel: "telegram",
        chatId: `-${100 + n}`,
      })),
    };
    const added: unknown[] = [];
    const store = {
      get: async (id: string) => (id === full.id ? full : undefined),
      listPendingPage: async () => ({ questions: [full] }),
      addDeliveries: async (...call: unknown[]) => added.push(call),
      findPrivateQuestions: async () => [],
      claimEvent: async () => true,
      releaseEvent: async () => undefined,
    } as unknown as QuestionStore;
    const posted: unknown[] = [];
    const telegram = {
      name: "telegram",
      deliver: async (...call: unknown[]) => {
        posted.push(call);
        return { channel: "telegram", chatId: "-100", messageId: "8" };
      },
      retire: async () => {},
      remind: async () => {},
    };
    const handle = createHandleInbound({
      store,
      resolve: {} as ResolveQuestion,
      channels: new Map([["telegram", telegram]]),
      links: NO_ANSWER_LINKS,
      now: () => 1,
    });
    const outcome = await handle({
      platform: "telegram",
      actor: "telegram:42",
      chatId: "-100",
      kind: "command",
      command: "question",
    });
    expect(outcome.kind).toBe("copies_full");
    expect(outcomeReplyText(outcome)).toBe(
      "This question has been posted as often as it can be, so not here: answer it where it was posted.",
    );
    expect(posted).toEqual([]);
    expect(added).toEqual([]);
  });
});

describe("handleInbound: the dedupe claim", () => {
  it("is kept longer than the platform sends an event again: WhatsApp 7 days (Meta retries for days), others 2", async () => {
    const claims: [string, number][] = [];
    const store = {
      get: async () => undefined,
      findByMessage: async () => undefined,
      listPendingPage: async () => ({ questions: [] }),
      findPrivateQuestions: async () => [],
      claimEvent: async (key: string, ttlSeconds: number) => {
        claims.push([key, ttlSeconds]);
        return true;
      },
      releaseEvent: async () => undefined,
    } as unknown as QuestionStore;
    const handle = createHandleInbound({
      store,
      resolve: {} as ResolveQuestion,
      channels: new Map(),
      links: NO_ANSWER_LINKS,
      now: () => 1,
    });
    await handle(text({ addressed: true, dedupeKey: "u1" }));
    await handle(
      text({
        platform: "whatsapp",
        actor: "whatsapp:1555",
        chatId: "1555",
        addressed: true,
        dedupeKey: "wamid.1",
      }),
    );
    expect(claims).toEqual([
      ["telegram:u1", 2 * 86_400],
      ["whatsapp:wamid.1", 7 * 86_400],
    ]);
  });
});
