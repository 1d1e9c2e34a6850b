import { describe, expect, it } from "vitest";
import { createNotifyClosedQuestion } from "#lib/app/notify-closed-question.ts";
import { type NotificationMessage, notificationFor } from "#lib/notify/notification.ts";
import type { QuestionRecord } from "#lib/questions/question-record.ts";
import { silentTelemetry } from "#lib/telemetry/telemetry.ts";

const SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
const record: QuestionRecord = {
  id: "ask_1",
  status: "answered",
  answers: { q: ["A"] },
  questions: [],
  owner: "web:ann",
  deliveries: [],
  createdAtMs: 0,
  expiresAtMs: 10_000,
  resolvedAtMs: 5_000,
  resolvedBy: "api",
  notify: { url: "https://hooks.example.com/x" },
};

function setup(statuses: (number | Error)[], retrySeconds = [5, 300]) {
  let clock = 1_000_000;
  const queued: { message: NotificationMessage; delaySeconds: number }[] = [];
  const posts: { headers: Record<string, string>; body: string }[] = [];
  const delivered = new Set<string>();
  const notify = createNotifyClosedQuestion({
    queue: { send: async (message, delaySeconds) => void queued.push({ message, delaySeconds }) },
    log: {
      wasDelivered: async (id) => delivered.has(id),
      markDelivered: async (id) => void delivered.add(id),
    },
    sender: {
      post: async (_url, body, headers) => {
        posts.push({ headers, body });
        const next = statuses.shift() ?? 200;
        if (next instanceof Error) throw next;
        return next;
      },
    },
    secret: async () => SECRET,
    retrySeconds,
    now: () => clock,
    telemetry: silentTelemetry,
  });
  return { notify, queued, posts, tick: (ms: number) => (clock += ms) };
}

describe("signed notifications of closed questions", () => {
  it("queue the first attempt of a closed question with a notify URL: the result, fixed once", async () => {
    const { notify, queued } = setup([]);
    const { notify: _url, ...withoutNotify } = record;
    expect(await notify.enqueue(withoutNotify)).toBe(false);
    expect(await notify.enqueue(record)).toBe(true);
    const [{ message, delaySeconds } = {} as never] = queued;
    expect(delaySeconds).toBe(0);
    expect(message).toMatchObject({ id: "msg_ask_1", attempt: 1, url: record.notify?.url });
    expect(JSON.parse(message.body)).toEqual({
      type: "question.closed",
      timestamp: new Date(5_000).toISOString(),
      data: { questionId: "ask_1", status: "answered", answers: { q: ["A"] }, resolvedBy: "api" },
    });
  });

  it("retry a refused attempt on the schedule with the same webhook-id and body, then give up", async () => {
    const { notify, queued, posts, tick } = setup([500, new Error("ECONNREFUSED"), 503]);
    const first = notificationFor(record, "https://hooks.example.com/x", 1_000_000);
    expect(await notify.deliver(first)).toBe("retrying");
    expect(queued.at(-1)).toMatchObject({ delaySeconds: 5, message: { attempt: 2 } });
    // Too early: held again for what is left (SQS delays at most 15 min per hop).
    expect(await notify.deliver(queued.at(-1)?.message as NotificationMessage)).toBe("waiting");
    tick(5_000);
    expect(await notify.deliver(queued.at(-1)?.message as NotificationMessage)).toBe("retrying");
    expect(queued.at(-1)).toMatchObject({ delaySeconds: 300, message: { attempt: 3 } });
    tick(300_000);
    expect(await notify.deliver(queued.at(-1)?.message as NotificationMessage)).toBe("gave_up");
    expect(posts.map((p) => p.headers["webhook-id"])).toEqual(["msg_ask_1", "msg_ask_1", "msg_ask_1"]);
    expect(new Set(posts.map((p) => p.body)).size).toBe(1);
  });

  it("send nothing again once a receiver took one (a repeat from the stream or the queue)", async () => {
    const { notify, posts } = setup([204]);
    const message = notificationFor(record, "https://hooks.example.com/x", 1_000_000);
    expect(await notify.deliver(message)).toBe("sent");
    expect(await notify.deliver(message)).toBe("already_sent");
    expect(posts).toHaveLength(1);
  });

  it("hold a long wait in hops of at most 15 minutes", async () => {
    const { notify, queued } = setup([]);
    const message = {
      ...notificationFor(record, "https://x.example/", 1_000_000),
      notBeforeMs: 1_000_000 + 7_200_000,
    };
    expect(await notify.deliver(message)).toBe("waiting");
    expect(queued[0]?.delaySeconds).toBe(900);
  });
});
