import { describe, expect, it } from "vitest";
import { createHandleInbound } from "#lib/app/handle-inbound.ts";
import type { ResolveQuestion } from "#lib/app/resolve-question.ts";
import type { Inbound } from "#lib/channels/inbound.ts";
import { normalizeAskUserArgs } from "#lib/questions/index.ts";
import type { QuestionRecord } from "#lib/questions/question-record.ts";
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

/** The pipeline over one pending question posted as message 7 in chat -100; records what it resolved. */
function pipeline(links: AnswerLinks = NO_ANSWER_LINKS) {
  const answered: unknown[] = [];
  const store = {
    get: async (id: string) => (id === record.id ? record : undefined),
    findByMessage: async (_channel: string, chatId: string, messageId: string) =>
      chatId === "-100" && messageId === "7" ? record.id : undefined,
    listPendingPage: async () => ({ questions: [record] }),
    claimEvent: async () => true,
    releaseEvent: async () => undefined,
  } as unknown as QuestionStore;
  const resolve = {
    answer: async (id: string, answers: unknown) => {
      answered.push(answers);
      return { record: { ...record, id, status: "answered" } };
    },
    cancel: async () => ({ record: { ...record, status: "cancelled" } }),
  } as unknown as ResolveQuestion;
  const handle = createHandleInbound({
    store,
    resolve,
    channels: new Map(),
    links,
    now: () => 1,
  });
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
      message: "There is no option 3 — type a number 1–2 or your own answer.",
    });
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
    const { handle, answered } = pipeline(links);
    const outcome = await handle(tap("telegram:42"));
    expect(outcome).toEqual({ kind: "private_link", record, url: await links.urlFor(record, "telegram:42") });
    expect(answered).toEqual([]);
  });

  it("tells anyone else the question is not theirs, with no link", async () => {
    const { handle } = pipeline(links);
    const outcome = await handle(tap("telegram:7"));
    expect(outcome).toEqual({ kind: "not_owner", record });
    expect(JSON.stringify(outcome)).not.toContain("/answer/");
  });

  it("is refused as a control that does not fit where the page is off", async () => {
    const { handle } = pipeline();
    expect((await handle(tap("telegram:42"))).kind).toBe("invalid");
  });
});
