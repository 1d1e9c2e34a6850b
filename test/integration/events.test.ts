/**
 * Question events on the local stack's EventBridge bus: one `Question Requested` and one `Question Resolved`
 * per question, source `handraise`, the API record with an `eventId` and never a task token, each printed as
 * an `event {…}` line; a bus that refuses an event gets it again (at least once, same eventId), and a bus
 * that refuses it for good never keeps an answer from its run.
 */
import { GetExecutionHistoryCommand, StartExecutionCommand } from "@aws-sdk/client-sfn";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { PublishedEvent } from "#infra/local/event-bus.ts";
import { createDynamoDbQuestionStore } from "#lib/store/dynamodb-question-store.ts";
import { type CapturedLogs, captureLogs } from "./support/captured-logs.ts";
import { singleQuestion, unique } from "./support/sample-questions.ts";
import {
  allItems,
  startTestStack,
  type TestStack,
  waitFor,
  waitForExecutionEnd,
} from "./support/test-stack.ts";

let stack: TestStack;
let logs: CapturedLogs | undefined;

beforeAll(async () => {
  stack = await startTestStack({}, { printEvents: true });
});
afterAll(async () => {
  await stack?.stop();
});
afterEach(async () => {
  await stack.streamsDrained();
  stack.faults.eventBridge.clear();
  logs?.stop();
  logs = undefined;
});

const eventsOf = (id: string): PublishedEvent[] => stack.events.filter((event) => event.detail.id === id);

async function ask(extra: Record<string, unknown> = {}): Promise<string> {
  const created = await stack.api("POST", "/questions", {
    questions: [singleQuestion],
    owner: `web:${unique("events")}`,
    ...extra,
  });
  expect(created.status).toBe(201);
  return created.body.id as string;
}

/** A run of the agent that asks one question (replying with its answer), and that question once stored. */
async function startAskingRun(prefix: string) {
  const sessionKey = unique(prefix);
  const { executionArn } = await stack.sfn.send(
    new StartExecutionCommand({
      stateMachineArn: stack.stateMachineArns.agent,
      input: JSON.stringify({
        sessionKey,
        owner: "web:alice",
        deliverTo: [],
        prompt: "test",
        model: {
          provider: "scripted",
          steps: [
            { toolCalls: [{ id: "c1", name: "ask_user", arguments: { questions: [singleQuestion] } }] },
            { reply: "{{c1.deploy_target}}" },
          ],
        },
      }),
    }),
  );
  const question = await waitFor(
    async () => (await stack.api("GET", `/questions?sessionKey=${sessionKey}`)).body.questions[0],
    { what: "the run's question" },
  );
  return { executionArn: executionArn as string, question };
}

describe("question events", () => {
  it("one Requested and one Resolved per question, with the record, an eventId and the printed line", async () => {
    logs = captureLogs();
    const id = await ask();
    await stack.api("POST", `/questions/${id}/answer`, { answers: { deploy_target: ["Production"] } });
    await stack.streamsDrained();

    const events = eventsOf(id);
    expect(events.map((event) => event["detail-type"])).toEqual(["Question Requested", "Question Resolved"]);
    expect(events[0]).toMatchObject({
      source: "handraise",
      eventBusName: "handraise-local",
      detail: {
        id,
        status: "pending",
        eventId: `${id}:requested`,
        questions: [expect.objectContaining({ id: "deploy_target" })],
      },
    });
    expect(events[1]?.detail).toMatchObject({
      id,
      status: "answered",
      answers: { deploy_target: ["Production"] },
      resolvedBy: "api",
      eventId: `${id}:resolved`,
    });
    // Each printed as one line: `event ` and the event's JSON.
    const printed = logs.lines().filter((line) => line.startsWith("event ") && line.includes(id));
    expect(printed.map((line) => JSON.parse(line.slice("event ".length)))).toEqual(
      events.map(({ eventBusName: _bus, ...event }) => event),
    );
  });

  it("every way a question ends is Resolved with its status: cancelled, skipped, delivery_failed", async () => {
    const cancelled = await ask();
    await stack.api("POST", `/questions/${cancelled}/cancel`, {});
    const skipped = await ask();
    await stack.api("POST", `/questions/${skipped}/cancel`, { reason: "skipped" });
    await stack.streamsDrained();
    expect(eventsOf(cancelled).at(-1)?.detail).toMatchObject({ status: "cancelled", reason: "cancelled" });
    expect(eventsOf(skipped).at(-1)?.detail).toMatchObject({ status: "cancelled", reason: "skipped" });
    for (const id of [cancelled, skipped]) expect(eventsOf(id)).toHaveLength(2);
  });

  it("a run's question: its events never carry the task token", async () => {
    const { executionArn, question } = await startAskingRun("events-run");
    const token = (await allItems(stack)).find((item) => item.id === question.id)?.taskToken as string;
    expect(token).toEqual(expect.any(String));
    await stack.api("POST", `/questions/${question.id}/answer`, { answers: { deploy_target: ["Staging"] } });
    expect((await waitForExecutionEnd(stack, executionArn)).status).toBe("SUCCEEDED");
    await stack.streamsDrained();
    const events = eventsOf(question.id);
    expect(events).toHaveLength(2);
    expect(events[1]?.detail).toMatchObject({ runId: executionArn, status: "answered" });
    expect(JSON.stringify(events)).not.toContain(token);
  });

  it("a bus that refuses an event gets it again: the stream retries the record", async () => {
    logs = captureLogs();
    // Every attempt of the first delivery (the SDK's own 3) fails; the stream's retry gets through.
    stack.faults.eventBridge.failNext(3, {
      code: "ServiceUnavailable",
      status: 503,
      operations: ["PutEvents"],
    });
    const id = await ask();
    await stack.streamsDrained();
    expect(stack.faults.eventBridge.clear()).toBe(0);
    expect(eventsOf(id).map((event) => event.detail.eventId)).toEqual([`${id}:requested`]);
    expect(logs.logged("following a question's change (the stream retries it)")).toEqual([
      expect.objectContaining({ questionId: id }),
    ]);
    expect(stack.streamFailures).toEqual([]);
  });
});

describe("question events carry the context", () => {
  it("Requested and Resolved both show who is asking and why", async () => {
    const id = await ask({ context: "Release agent:\nv1.4 is green." });
    await stack.api("POST", `/questions/${id}/cancel`, {});
    await stack.streamsDrained();

    const events = eventsOf(id);
    expect(events.map((event) => event.detail.context)).toEqual([
      "Release agent:\nv1.4 is green.",
      "Release agent:\nv1.4 is green.",
    ]);
  });
});

describe("a bus that refuses every event", () => {
  it("the run is resumed all the same; the record fails every retry and goes to the on-failure queue", async () => {
    logs = captureLogs();
    stack.setStreamRetryDelay(1);
    const { executionArn, question } = await startAskingRun("events-bus-down");
    await stack.streamsDrained();
    stack.faults.eventBridge.failNext(10_000, {
      code: "ServiceUnavailable",
      status: 503,
      operations: ["PutEvents"],
    });
    // Only the closing write, as if the answering Lambda died before its own resume: the stream is the
    // run's one way to hear the answer, and the bus is down for every one of its attempts.
    const store = createDynamoDbQuestionStore({
      client: stack.dynamodb,
      tableName: stack.tableName,
      retentionSeconds: 60,
    });
    const closed = await store.close(
      question.id,
      { status: "answered", answers: { deploy_target: ["Staging"] }, resolvedBy: "test" },
      Date.now(),
    );
    expect(closed.kind).toBe("closed");

    const execution = await waitForExecutionEnd(stack, executionArn);
    expect(execution.status).toBe("SUCCEEDED");
    expect(JSON.parse(execution.output ?? "{}")).toEqual({ reply: "Staging" });
    await stack.streamsDrained();
    // Each retry resumed again and was told the run no longer waits: the run took the answer once.
    const history = await stack.sfn.send(new GetExecutionHistoryCommand({ executionArn, maxResults: 1000 }));
    expect(history.events?.filter((event) => event.type === "TaskSucceeded")).toHaveLength(1);
    expect(eventsOf(question.id).map((event) => event.detail.eventId)).toEqual([`${question.id}:requested`]);
    expect(stack.streamFailures.splice(0)).toEqual([
      expect.objectContaining({ consumer: expect.stringContaining("questionEvents"), attempts: 11 }),
    ]);
    stack.setStreamRetryDelay(undefined);
  }, 60_000);
});
