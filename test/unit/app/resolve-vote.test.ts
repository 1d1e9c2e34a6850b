/**
 * A vote whose write was applied but whose response was lost, and whose retry (the SDK sends the same request
 * again) meets another vote that landed in between: the retry is refused as stale, and the recount finds
 * this call's own vote among those kept — it is told its vote was kept, not that it had already answered.
 */
import { describe, expect, it } from "vitest";
import { createResolveQuestion } from "#lib/app/resolve-question.ts";
import type { TaskCallbacks } from "#lib/callbacks/task-callbacks.ts";
import { createInMemoryQuestionStore } from "#lib/store/in-memory-question-store.ts";
import { keys } from "#lib/store/keys.ts";
import { silentTelemetry } from "#lib/telemetry/telemetry.ts";
import { newQuestion } from "../../support/records.ts";
import { deployTarget } from "../questions/fixtures.ts";

const T0 = 1_800_000_000_000;
const PEOPLE = ["web:bob", "web:carol", "web:dave", "web:erin"];
const callbacks: TaskCallbacks = {
  succeed: async () => "resumed",
  fail: async () => "resumed",
  heartbeat: async () => "resumed",
};

/**
 * A question of `quorum` among PEOPLE on an in-memory store whose vote write, once applied, can lose its
 * response (`lose`) after `between` has changed the item (another vote landing before the SDK's retry).
 */
async function setUp(quorum: number, between: (item: Record<string, any>) => void) {
  let losing: number | undefined;
  const store = createInMemoryQuestionStore({
    retentionSeconds: 3600,
    loseResponse: () => {
      if (losing === undefined || --losing > 0) return false;
      losing = undefined;
      const item = store.items.get(keys.question("ask_v")) as unknown as Record<string, any>;
      between(item);
      // Another write: its own writeId, so the retry is not taken for its own write.
      item.writeId = "another-write";
      return true;
    },
  });
  await store.create(
    newQuestion({
      id: "ask_v",
      questions: [deployTarget],
      owner: "web:ann",
      createdAtMs: T0,
      askedAnswerers: PEOPLE.map((owner) => ({ owner })),
      quorum,
      runId: "run-v",
      taskToken: "tok-v",
    }),
    T0,
  );
  const resolve = createResolveQuestion({ store, callbacks, now: () => T0 + 5, telemetry: silentTelemetry });
  /** The answer's second request (its read, then its vote) is the one whose response is lost. */
  const lose = () => {
    losing = 2;
  };
  return { store, resolve, lose };
}

const carolVote = { by: "web:carol", answers: { deploy_target: ["Production"] }, atMs: T0 + 3 };

describe("a vote whose response was lost, retried after another vote landed", () => {
  it("is told its vote was kept, and how many more the question waits for", async () => {
    const { resolve, lose } = await setUp(3, (item) => {
      item.votes = [...(item.votes ?? []), carolVote];
    });
    lose();
    const resolution = await resolve.answer("ask_v", { deploy_target: ["Production"] }, { actor: "web:bob" });
    expect(resolution).toMatchObject({ run: "no_run", more: 1, record: { status: "pending" } });
    expect(resolution.record.votes?.map((vote) => vote.by)).toEqual(["web:bob", "web:carol"]);
  });

  it("is told the outcome when the question was closed since, its vote among those kept", async () => {
    const { resolve, lose } = await setUp(2, (item) => {
      item.votes = [...(item.votes ?? []), carolVote];
      item.status = "answered";
      item.answers = { deploy_target: ["Production"] };
      item.resolvedAtMs = T0 + 4;
    });
    lose();
    const resolution = await resolve.answer("ask_v", { deploy_target: ["Production"] }, { actor: "web:bob" });
    expect(resolution).toMatchObject({ run: "pending_retry", record: { status: "answered" } });
    expect(resolution).not.toHaveProperty("more");
  });

  it("a second vote by the same person is still refused", async () => {
    const { resolve } = await setUp(3, () => undefined);
    await resolve.answer("ask_v", { deploy_target: ["Production"] }, { actor: "web:bob" });
    await expect(
      resolve.answer("ask_v", { deploy_target: ["Production"] }, { actor: "web:bob" }),
    ).rejects.toMatchObject({ name: "AlreadyAnsweredError" });
  });
});
