import { describe, expect, it } from "vitest";
import { createFireQuestionTimer } from "#lib/app/fire-question-timer.ts";
import type { ChatChannel } from "#lib/channels/chat-channel.ts";
import { reminderText } from "#lib/channels/replies.ts";
import type { Delivery, QuestionRecord } from "#lib/questions/question-record.ts";
import type { QuestionStore } from "#lib/store/question-store.ts";
import { type ClosedQuestion, silentTelemetry } from "#lib/telemetry/telemetry.ts";
import type { TimerEvent } from "#lib/timers/timers.ts";

const T0 = 1_000_000;
const question = {
  id: "deploy_target",
  header: "Deploy to",
  question: "Where?",
  options: [{ label: "Staging" }, { label: "Production" }],
  allowOther: true as const,
};

function pending(extra: Partial<QuestionRecord> = {}): QuestionRecord {
  return {
    id: "ask_1",
    status: "pending",
    questions: [question],
    owner: "telegram:42",
    deliveries: [
      { channel: "telegram", chatId: "1", messageId: "10" },
      { channel: "slack", chatId: "C1", messageId: "1.1" },
      // Posted again in the same Telegram chat (`/question`): still one chat.
      { channel: "telegram", chatId: "1", messageId: "11" },
      // A target that never took the post.
      { channel: "slack", chatId: "C2" },
    ],
    createdAtMs: T0,
    expiresAtMs: T0 + 60_000,
    remindAfterSeconds: [30],
    ...extra,
  };
}

/**
 * A clock the fake `sleep` moves, a store of one question, and channels that record what they did.
 * `answeredWhilePosting`: the question is answered while escalated copies are being posted.
 */
function setup(record: QuestionRecord | undefined, start = T0, answeredWhilePosting = false) {
  let clock = start;
  let stored = record && { ...record };
  const claims = new Set<string>();
  const expired: number[] = [];
  const added: Delivery[][] = [];
  const store = {
    async get() {
      return stored && { ...stored };
    },
    async expire(_id: string, nowMs: number) {
      if (stored?.status !== "pending" || nowMs < stored.expiresAtMs) return false;
      stored = { ...stored, status: "expired", resolvedAtMs: nowMs };
      expired.push(nowMs);
      return true;
    },
    async claimEvent(key: string) {
      if (claims.has(key)) return false;
      claims.add(key);
      return true;
    },
    async releaseEvent(key: string) {
      claims.delete(key);
    },
    async addDeliveries(_id: string, deliveries: Delivery[]) {
      if (!stored) return undefined;
      added.push(deliveries);
      stored = { ...stored, deliveries: [...stored.deliveries, ...deliveries] };
      if (answeredWhilePosting) stored.status = "answered";
      return { ...stored };
    },
  } as unknown as QuestionStore;
  const did: string[] = [];
  const channel = (name: string): ChatChannel => ({
    name,
    deliver: async (_, target) => {
      did.push(`deliver ${name} ${target.chatId} at ${clock - T0}`);
      return { ...target, messageId: "99" };
    },
    retire: async (r, delivery) => {
      did.push(`retire ${name} ${delivery.chatId} ${r.status}`);
    },
    // The application layer hands over how long is left; the reply catalog says it.
    remind: async (_, delivery, reminder) => {
      did.push(`remind ${name} ${delivery.chatId} ${delivery.messageId}: ${reminderText(reminder)}`);
    },
  });
  const closed: ClosedQuestion[] = [];
  const fire = createFireQuestionTimer({
    store,
    channels: new Map(["telegram", "slack"].map((name) => [name, channel(name)])),
    telemetry: { ...silentTelemetry, closed: (q) => closed.push(q) },
    now: () => clock,
    sleep: async (ms) => {
      clock += ms;
    },
  });
  return {
    fire,
    did,
    closed,
    expired,
    added,
    claims,
    stored: () => stored,
    /** Moves the clock to `ms` (a later invocation of the same timer). */
    at: (ms: number) => {
      clock = ms;
    },
  };
}

const expire: TimerEvent = { questionId: "ask_1", kind: "expire", dueAtMs: T0 + 60_000 };
const remind: TimerEvent = { questionId: "ask_1", kind: "remind", index: 0, dueAtMs: T0 + 30_000 };
const escalate: TimerEvent = { questionId: "ask_1", kind: "escalate", dueAtMs: T0 + 20_000 };

describe("an expiry timer", () => {
  it("closes the question as expired once, and reports it once", async () => {
    const { fire, closed, stored } = setup(pending(), T0 + 60_400);
    expect(await fire(expire)).toBe("expired");
    expect(stored()?.status).toBe("expired");
    expect(await fire(expire)).toBe("ended");
    expect(closed).toEqual([
      {
        id: "ask_1",
        status: "expired",
        createdAtMs: T0,
        resolvedAtMs: T0 + 60_400,
        runId: undefined,
        sessionKey: undefined,
      },
    ]);
  });

  it("that fires early (Scheduler fires within its minute) waits for the deadline, and no longer than a minute", async () => {
    const { fire, expired } = setup(pending(), T0 + 15_000);
    expect(await fire(expire)).toBe("expired");
    expect(expired).toEqual([T0 + 60_000]);
    const tooEarly = setup(pending(), T0 - 1);
    expect(await tooEarly.fire(expire)).toBe("not_due");
    expect(tooEarly.expired).toEqual([]);
    // The invocation at the deadline still closes it.
    tooEarly.at(T0 + 60_000);
    expect(await tooEarly.fire(expire)).toBe("expired");
  });

  it("changes nothing on a question answered first, or gone", async () => {
    const answered = setup(
      pending({ status: "answered", answers: { deploy_target: ["Staging"] } }),
      T0 + 61_000,
    );
    expect(await answered.fire(expire)).toBe("ended");
    expect(answered.closed).toEqual([]);
    expect(await setup(undefined, T0 + 61_000).fire(expire)).toBe("not_found");
  });
});

describe("a reminder timer", () => {
  it("posts one reminder in each chat the question was posted in, replying to its first copy there", async () => {
    const { fire, did } = setup(pending(), T0 + 30_000);
    expect(await fire(remind)).toBe("reminded");
    expect(did.sort()).toEqual([
      "remind slack C1 1.1: Still waiting for your answer — 30 s left",
      "remind telegram 1 10: Still waiting for your answer — 30 s left",
    ]);
  });

  it("skips the private copies of people who have voted already, and still reminds shared chats", async () => {
    const record = pending({
      quorum: 2,
      deliveries: [
        { channel: "telegram", chatId: "42", messageId: "10", privateTo: "telegram:42" },
        { channel: "telegram", chatId: "43", messageId: "11", privateTo: "telegram:43" },
        { channel: "slack", chatId: "C1", messageId: "1.1" },
      ],
      votes: [{ by: "telegram:42", answers: { deploy_target: ["Staging"] }, atMs: T0 + 1_000 }],
    });
    const { fire, did } = setup(record, T0 + 30_000);
    expect(await fire(remind)).toBe("reminded");
    expect(did.sort()).toEqual([
      "remind slack C1 1.1: Still waiting for your answer — 30 s left",
      "remind telegram 43 11: Still waiting for your answer — 30 s left",
    ]);
  });

  it("posts only the reminders the record asks for, at their time: another index or an early invocation posts nothing", async () => {
    const { fire, did } = setup(pending(), T0 + 30_000);
    expect(await fire({ ...remind, index: 7 })).toBe("ended");
    expect(did).toEqual([]);
    // Invoked with a time long before the record's reminder (more than the minute a timer may be early).
    const early = setup(pending({ remindAfterSeconds: [3_000], expiresAtMs: T0 + 6_000_000 }), T0 + 1_000);
    expect(await early.fire({ ...remind, dueAtMs: T0 })).toBe("not_due");
    expect(early.did).toEqual([]);
  });

  it("invoked early, changes nothing and claims nothing: the invocation at its time still reminds, once", async () => {
    const record = pending({ remindAfterSeconds: [3_000], expiresAtMs: T0 + 6_000_000 });
    const { fire, did, claims, at, stored } = setup(record, T0 + 1_000);
    const event = { ...remind, dueAtMs: T0 + 3_000_000 };
    expect(await fire(event)).toBe("not_due");
    expect(did).toEqual([]);
    expect(claims.size).toBe(0);
    expect(stored()).toEqual(record);
    at(T0 + 3_000_000);
    expect(await fire(event)).toBe("reminded");
    expect(did).toHaveLength(2);
    expect(await fire(event)).toBe("duplicate");
    expect(did).toHaveLength(2);
  });

  it("fires once (a second firing is a duplicate), and never for a question that has ended", async () => {
    const twice = setup(pending(), T0 + 30_000);
    await twice.fire(remind);
    expect(await twice.fire(remind)).toBe("duplicate");
    expect(twice.did).toHaveLength(2);
    const answered = setup(pending({ status: "answered" }), T0 + 30_000);
    expect(await answered.fire(remind)).toBe("ended");
    // Past the deadline it reads as expired (before the expiry timer has stored it): nothing posted.
    const late = setup(pending({ status: "expired" }), T0 + 61_000);
    expect(await late.fire(remind)).toBe("ended");
    expect([...answered.did, ...late.did]).toEqual([]);
  });
});

describe("an escalation timer", () => {
  const escalated = pending({
    escalate: { afterSeconds: 20, owner: "telegram:77", deliverTo: [{ channel: "telegram", chatId: "7" }] },
  });

  it("posts the question to the escalation owner's targets from the escalation time on, and records the copies", async () => {
    const { fire, did, added } = setup(escalated, T0 + 5_000);
    expect(await fire(escalate)).toBe("escalated");
    expect(did).toEqual(["deliver telegram 7 at 20000"]);
    expect(added).toEqual([[{ channel: "telegram", chatId: "7", messageId: "99", escalation: true }]]);
  });

  it("retires the copies at once if the question ended while they were posted", async () => {
    const { fire, did } = setup(escalated, T0 + 20_000, true);
    expect(await fire(escalate)).toBe("escalated");
    expect(did).toEqual(["deliver telegram 7 at 20000", "retire telegram 7 answered"]);
  });

  it("posts to the targets it can when one names a channel this deployment lacks", async () => {
    const record = pending({
      escalate: {
        afterSeconds: 20,
        owner: "telegram:77",
        deliverTo: [
          { channel: "teams", chatId: "a:1" },
          { channel: "telegram", chatId: "7" },
        ],
      },
    });
    const { fire, did, added } = setup(record, T0 + 20_000);
    expect(await fire(escalate)).toBe("escalated");
    expect(did).toEqual(["deliver telegram 7 at 20000"]);
    expect(added).toEqual([[{ channel: "telegram", chatId: "7", messageId: "99", escalation: true }]]);
  });

  it("invoked early, changes nothing and claims nothing: the invocation at its time still escalates", async () => {
    const record = pending({
      expiresAtMs: T0 + 6_000_000,
      escalate: {
        afterSeconds: 600,
        owner: "telegram:77",
        deliverTo: [{ channel: "telegram", chatId: "7" }],
      },
    });
    const { fire, did, added, claims, at, stored } = setup(record, T0);
    const event = { ...escalate, dueAtMs: T0 + 600_000 };
    expect(await fire(event)).toBe("not_due");
    expect([did, added, claims.size]).toEqual([[], [], 0]);
    expect(stored()).toEqual(record);
    at(T0 + 600_000);
    expect(await fire(event)).toBe("escalated");
    expect(did).toEqual(["deliver telegram 7 at 600000"]);
    expect(await fire(event)).toBe("duplicate");
  });

  it("posts nothing for a question that ended while the early timer waited for its time", async () => {
    const { fire, did } = setup({ ...escalated, status: "cancelled", reason: "skipped" }, T0 + 5_000);
    expect(await fire(escalate)).toBe("ended");
    expect(did).toEqual([]);
  });
});
