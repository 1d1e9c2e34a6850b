import { randomBytes } from "node:crypto";
import {
  GetExecutionHistoryCommand,
  SendTaskSuccessCommand,
  StartExecutionCommand,
  StopExecutionCommand,
} from "@aws-sdk/client-sfn";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { demoAgentInput } from "#infra/local/demo-agent.ts";
import { encodeTaskToken } from "#infra/local/stepfunctions/task-token.ts";
import { singleQuestion, unique } from "./support/sample-questions.ts";
import {
  allItems,
  startTestStack,
  statusOf,
  type TestStack,
  waitFor,
  waitForExecutionEnd,
} from "./support/test-stack.ts";

let stack: TestStack;
beforeAll(async () => {
  stack = await startTestStack();
});
afterAll(async () => {
  await stack?.stop();
});

/** A scripted agent that asks once, then replies with a template over the outcome. */
function scriptedInput(sessionKey: string, args: unknown, reply: string) {
  return {
    sessionKey,
    owner: "web:alice",
    deliverTo: [{ channel: "console", chatId: "terminal" }],
    prompt: "test",
    model: {
      provider: "scripted",
      steps: [{ toolCalls: [{ id: "call_1", name: "ask_user", arguments: args }] }, { reply }],
    },
  };
}

async function start(input: unknown): Promise<string> {
  const { executionArn } = await stack.sfn.send(
    new StartExecutionCommand({
      stateMachineArn: stack.stateMachineArns.agent,
      input: JSON.stringify(input),
    }),
  );
  if (!executionArn) throw new Error("no execution ARN");
  return executionArn;
}

async function pendingQuestionOf(sessionKey: string): Promise<{ id: string; questions: unknown[] }> {
  return waitFor(
    async () => {
      const response = await stack.api("GET", `/questions?sessionKey=${encodeURIComponent(sessionKey)}`);
      return response.body.questions[0];
    },
    { what: `a pending question in ${sessionKey}` },
  );
}

async function taskTokenOf(questionId: string): Promise<string> {
  const item = (await allItems(stack)).find((i) => i.pk === `Q#${questionId}`);
  if (!item?.taskToken) throw new Error("no task token stored");
  return item.taskToken;
}

async function stateNamesEntered(executionArn: string): Promise<string[]> {
  const history = await stack.sfn.send(new GetExecutionHistoryCommand({ executionArn, maxResults: 1000 }));
  return (history.events ?? []).flatMap((event) =>
    event.stateEnteredEventDetails ? [event.stateEnteredEventDetails.name ?? ""] : [],
  );
}

describe("the agent state machine", () => {
  it("round trip: three questions asked once, answered over the API, the run resumes with the answers", async () => {
    const sessionKey = unique("round-trip");
    const executionArn = await start(
      demoAgentInput({
        sessionKey,
        owner: "web:alice",
        deliverTo: [{ channel: "console", chatId: "terminal" }],
        timeoutSeconds: 60,
      }),
    );
    const question = await pendingQuestionOf(sessionKey);
    expect(question.questions).toHaveLength(3);
    expect(question.questions[1]).toMatchObject({ id: "checks", multiSelect: true, allowOther: true });

    const answered = await stack.api("POST", `/questions/${question.id}/answer`, {
      answers: {
        deploy_target: ["Production"],
        checks: ["unit (recommended)", "E2E"],
        release_note: ["night-shift"],
      },
    });
    expect(answered.status).toBe(200);

    const execution = await waitForExecutionEnd(stack, executionArn);
    expect(execution.status).toBe("SUCCEEDED");
    expect(JSON.parse(execution.output ?? "{}")).toEqual({
      reply:
        "deploy=Production | checks=Unit (Recommended),E2E | note=night-shift | status=answered | reason=",
    });
    // Resumed exactly once: one AskUser state, then the model step and the reply.
    expect(await stateNamesEntered(executionArn)).toEqual([
      "ModelStep",
      "AskOrReply",
      "AskUser",
      "ModelStep",
      "AskOrReply",
      "Reply",
    ]);
    const record = await stack.api("GET", `/questions/${question.id}`);
    expect(record.body.question).toMatchObject({
      status: "answered",
      runId: executionArn,
      deliveries: [{ channel: "console", chatId: "terminal", messageId: question.id }],
    });
  });

  it("a run's question is asked by run for its requestedBy, and the result at askResult names who answered", async () => {
    const sessionKey = unique("requested");
    const executionArn = await start({
      ...scriptedInput(sessionKey, { questions: [singleQuestion] }, "{{call_1.deploy_target}}"),
      requestedBy: "web:carol",
    });
    const question = await pendingQuestionOf(sessionKey);
    const record = (await stack.api("GET", `/questions/${question.id}`)).body.question;
    expect(record).toMatchObject({ askedBy: "run", requestedBy: "web:carol", owner: "web:alice" });
    // The person the run acts for may not answer it, even over the API.
    const refused = await stack.api("POST", `/questions/${question.id}/answer`, {
      answers: { deploy_target: ["Production"] },
      resolvedBy: "web:carol",
    });
    expect(refused.body.error.code).toBe("REQUESTER_CANNOT_ANSWER");
    await stack.api("POST", `/questions/${question.id}/answer`, {
      answers: { deploy_target: ["Production"] },
      resolvedBy: "alice",
    });
    const execution = await waitForExecutionEnd(stack, executionArn);
    expect(JSON.parse(execution.output ?? "{}")).toEqual({ reply: "Production" });
    const history = await stack.sfn.send(new GetExecutionHistoryCommand({ executionArn, maxResults: 1000 }));
    const askUser = (history.events ?? []).find((event) => event.stateExitedEventDetails?.name === "AskUser");
    expect(JSON.parse(askUser?.stateExitedEventDetails?.output ?? "{}").askResult).toEqual({
      status: "answered",
      answers: { deploy_target: ["Production"] },
      resolvedBy: "api:alice",
    });
  });

  it("a run's context (who is asking and why) travels through the AskUser task to its question's record", async () => {
    const sessionKey = unique("context");
    const executionArn = await start({
      ...scriptedInput(sessionKey, { questions: [singleQuestion] }, "{{call_1.status}}"),
      context: " Release agent for <alice>:\r\nv1.4 is green. ",
    });
    const question = await pendingQuestionOf(sessionKey);
    const record = (await stack.api("GET", `/questions/${question.id}`)).body.question;
    expect(record.context).toBe("Release agent for <alice>:\nv1.4 is green.");
    await stack.api("POST", `/questions/${question.id}/cancel`, {});
    expect(JSON.parse((await waitForExecutionEnd(stack, executionArn)).output ?? "{}")).toEqual({
      reply: "no_answer",
    });
  });

  it("a run whose requestedBy is its owner, with no one else to answer, never waits: delivery_failed", async () => {
    const sessionKey = unique("self-requested");
    const executionArn = await start({
      ...scriptedInput(sessionKey, { questions: [singleQuestion] }, "{{call_1.status}}"),
      requestedBy: "web:alice",
    });
    const execution = await waitForExecutionEnd(stack, executionArn);
    expect(JSON.parse(execution.output ?? "{}")).toEqual({ reply: "delivery_failed" });
    expect((await allItems(stack)).filter((item) => item.sessionKey === sessionKey)).toEqual([]);
  });

  it("no answer in time → the run gets no_answer / expired and continues", async () => {
    const sessionKey = unique("timeout");
    const executionArn = await start(
      scriptedInput(
        sessionKey,
        { questions: [singleQuestion], timeoutSeconds: 1 },
        "{{call_1.status}}/{{call_1.reason}}",
      ),
    );
    const question = await pendingQuestionOf(sessionKey);
    // The deadline is 1 s; the run waits 10 s more of grace before its task times out.
    const execution = await waitForExecutionEnd(stack, executionArn, 20_000);
    expect(JSON.parse(execution.output ?? "{}")).toEqual({ reply: "no_answer/expired" });
    const record = await stack.api("GET", `/questions/${question.id}`);
    expect(record.body.question.status).toBe("expired");
  });

  it.each([
    ["cancelled", "no_answer/cancelled"],
    ["skipped", "no_answer/skipped"],
  ])("cancel with reason %s → the run gets %s", async (reason, expected) => {
    const sessionKey = unique(reason);
    const executionArn = await start(
      scriptedInput(sessionKey, { questions: [singleQuestion] }, "{{call_1.status}}/{{call_1.reason}}"),
    );
    const question = await pendingQuestionOf(sessionKey);
    const cancelled = await stack.api("POST", `/questions/${question.id}/cancel`, { reason });
    expect(cancelled.status).toBe(200);
    const execution = await waitForExecutionEnd(stack, executionArn);
    expect(JSON.parse(execution.output ?? "{}")).toEqual({ reply: expected });
  });

  it("invalid tool arguments → the model gets a tool error and the run never suspends", async () => {
    const sessionKey = unique("invalid");
    const executionArn = await start(
      scriptedInput(
        sessionKey,
        { questions: [{ ...singleQuestion, options: [{ label: "Other" }, { label: "B" }] }] },
        "{{call_1.status}}/{{call_1.error}}",
      ),
    );
    const execution = await waitForExecutionEnd(stack, executionArn);
    expect(JSON.parse(execution.output ?? "{}")).toEqual({ reply: "error/INVALID_ARGUMENT" });
    expect(await stateNamesEntered(executionArn)).not.toContain("AskUser");
    const listed = await stack.api("GET", `/questions?sessionKey=${sessionKey}`);
    expect(listed.body.questions).toEqual([]);
  });

  it("a second question in the same session while one is pending → the model gets SESSION_BUSY", async () => {
    const sessionKey = unique("busy");
    const first = await start(
      scriptedInput(sessionKey, { questions: [singleQuestion] }, "{{call_1.deploy_target}}"),
    );
    const question = await pendingQuestionOf(sessionKey);
    const second = await start(
      scriptedInput(sessionKey, { questions: [singleQuestion] }, "{{call_1.status}}/{{call_1.error}}"),
    );
    const secondEnd = await waitForExecutionEnd(stack, second);
    expect(JSON.parse(secondEnd.output ?? "{}")).toEqual({ reply: "error/SESSION_BUSY" });
    // The AskUser task's own error names the question the session waits on.
    const history = await stack.sfn.send(new GetExecutionHistoryCommand({ executionArn: second }));
    const failed = history.events?.find((event) => event.taskFailedEventDetails)?.taskFailedEventDetails;
    expect(failed?.error).toBe("SessionBusyError");
    expect(JSON.parse(failed?.cause ?? "{}").errorMessage).toBe(
      `Question "${question.id}" is already waiting for an answer in this session. Wait for it to end before asking again.`,
    );

    await stack.api("POST", `/questions/${question.id}/answer`, { answers: { deploy_target: ["2"] } });
    const firstEnd = await waitForExecutionEnd(stack, first);
    expect(JSON.parse(firstEnd.output ?? "{}")).toEqual({ reply: "2" });
  });

  it("a run whose input does not fit fails as Handraise.InvalidInput, its cause naming each problem at its path", async () => {
    const input = {
      ...scriptedInput(unique("bad-input"), { questions: [singleQuestion] }, "x"),
      owner: "alice",
    };
    const executionArn = await start({ ...input, deliverTo: [{ channel: "console" }] });
    const execution = await waitForExecutionEnd(stack, executionArn);
    expect(execution.status).toBe("FAILED");
    expect(execution.error).toBe("Handraise.InvalidInput");
    expect(execution.cause).toMatch(
      /^Invalid agent input: owner must be platform-qualified, e\.g\. "telegram:12345".*, and 1 more problem\.$/,
    );
    expect(execution.cause).not.toMatch(/ZodError|expected|received|Invalid input/);
  });

  it("an AskUser task input that does not fit is refused as Handraise.InvalidInput, naming each problem", async () => {
    const event = {
      taskToken: "t",
      runId: "r",
      toolCallId: "c",
      owner: "alice",
      deliverTo: "console",
      questions: [],
    };
    const refused = await stack.invoke("ask", event).then(
      () => undefined,
      (error: Error) => error,
    );
    expect(refused?.name).toBe("Handraise.InvalidInput");
    expect(refused?.message).toMatch(
      /^Invalid AskUser task input: owner must be platform-qualified, e\.g\. .*, and 1 more problem\.$/,
    );
    expect((refused as Error & { issues?: unknown }).issues).toEqual([
      { path: "owner", message: expect.stringMatching(/^owner must be platform-qualified/) },
      { path: "deliverTo", message: "deliverTo must be a list of at most 10 {channel, chatId} objects" },
    ]);
  });

  it("an AskUser task token no service hands out (a lone surrogate, a space) is refused at taskToken, storing nothing", async () => {
    for (const taskToken of ["durable:\ud800", "AAAA KgAA=="]) {
      const sessionKey = unique("bad-token");
      const event = {
        taskToken,
        runId: "r",
        toolCallId: "c",
        owner: "web:alice",
        sessionKey,
        deliverTo: [{ channel: "console", chatId: "t" }],
        questions: [singleQuestion],
      };
      const refused = await stack.invoke("ask", event).then(
        () => undefined,
        (error: Error) => error,
      );
      expect(refused?.name).toBe("Handraise.InvalidInput");
      expect((refused as Error & { issues?: unknown }).issues).toEqual([
        { path: "taskToken", message: "taskToken must be a task token (base64)" },
      ]);
      const listed = await stack.api("GET", `/questions?sessionKey=${encodeURIComponent(sessionKey)}`);
      expect(listed.body.questions).toEqual([]);
    }
  });

  it("SendTaskSuccess with a reused token → TaskTimedOut; unknown → TaskDoesNotExist; garbage → InvalidToken", async () => {
    const sessionKey = unique("tokens");
    const executionArn = await start(
      scriptedInput(sessionKey, { questions: [singleQuestion] }, "{{call_1.status}}"),
    );
    const question = await pendingQuestionOf(sessionKey);
    const token = await taskTokenOf(question.id);
    await stack.api("POST", `/questions/${question.id}/answer`, {
      answers: { deploy_target: ["Production"] },
    });
    await waitForExecutionEnd(stack, executionArn);

    const send = (taskToken: string) =>
      stack.sfn.send(
        new SendTaskSuccessCommand({
          taskToken,
          output: JSON.stringify({ status: "answered", answers: {} }),
        }),
      );
    await expect(send(token)).rejects.toMatchObject({ name: "TaskTimedOut" });
    await expect(send("not-a-token")).rejects.toMatchObject({ name: "InvalidToken" });
    // Tampered: its checksum no longer matches.
    const tampered = `${token.slice(0, 40)}${token.slice(40, 44) === "AAAA" ? "BBBB" : "AAAA"}${token.slice(44)}`;
    await expect(send(tampered)).rejects.toMatchObject({ name: "InvalidToken" });
    // Well-formed (the local engine's own format) but never issued.
    const neverIssued = encodeTaskToken(randomBytes(16).toString("hex"));
    await expect(send(neverIssued)).rejects.toMatchObject({ name: "TaskDoesNotExist" });
  });

  it("a stopped run cancels its pending question with resolvedBy run-abort and frees the session", async () => {
    const sessionKey = unique("stopped");
    const executionArn = await start(
      scriptedInput(sessionKey, { questions: [singleQuestion] }, "{{call_1.status}}"),
    );
    const question = await pendingQuestionOf(sessionKey);
    await stack.sfn.send(new StopExecutionCommand({ executionArn, error: "Stopped", cause: "by the test" }));
    const record = await waitFor(
      async () => {
        const current = (await stack.api("GET", `/questions/${question.id}`)).body.question;
        return current.status === "pending" ? undefined : current;
      },
      { what: "the stopped run's question to be cancelled" },
    );
    expect(record).toMatchObject({ status: "cancelled", reason: "cancelled", resolvedBy: "run-abort" });
    const late = await stack.api("POST", `/questions/${question.id}/answer`, {
      answers: { deploy_target: ["1"] },
    });
    expect(late.status).toBe(409);
    const next = await stack.api("POST", "/questions", {
      questions: [singleQuestion],
      owner: "web:alice",
      sessionKey,
    });
    expect(next.status).toBe(201);
  });

  it("an ask stored after its run's stop was handled cancels its own question: nobody can answer it", async () => {
    const sessionKey = unique("stopped-in-flight");
    const executionArn = await start(
      scriptedInput(sessionKey, { questions: [singleQuestion] }, "{{call_1.status}}"),
    );
    const first = await pendingQuestionOf(sessionKey);
    const token = await taskTokenOf(first.id);
    await stack.sfn.send(new StopExecutionCommand({ executionArn, error: "Stopped", cause: "by the test" }));
    await waitFor(async () => ((await statusOf(stack, first.id)) === "pending" ? undefined : true), {
      what: "the stop to be handled",
    });
    // The AskUser task's Lambda of that run, landing after the run-status consumer looked for its question.
    const { questionId } = (await stack.invoke("ask", {
      taskToken: token,
      runId: executionArn,
      toolCallId: "call_late",
      owner: "web:alice",
      sessionKey,
      deliverTo: [{ channel: "console", chatId: "terminal" }],
      questions: [singleQuestion],
    })) as { questionId: string };
    expect(questionId).not.toBe(first.id);
    const late = (await stack.api("GET", `/questions/${questionId}`)).body.question;
    expect(late).toMatchObject({ status: "cancelled", reason: "cancelled", resolvedBy: "run-abort" });
    const answered = await stack.api("POST", `/questions/${questionId}/answer`, {
      answers: { deploy_target: ["1"] },
    });
    expect(answered.status).toBe(409);
    const listed = await stack.api("GET", `/questions?sessionKey=${encodeURIComponent(sessionKey)}`);
    expect(listed.body.questions).toEqual([]);
  });

  it("no response body of the API ever contains a task token", async () => {
    const tokens = (await allItems(stack)).flatMap((item) =>
      item.taskToken ? [item.taskToken as string] : [],
    );
    expect(tokens.length).toBeGreaterThan(0);
    expect(stack.responseBodies.length).toBeGreaterThan(0);
    for (const body of stack.responseBodies) {
      expect(body).not.toContain("taskToken");
      for (const token of tokens) expect(body.includes(token)).toBe(false);
    }
  });
});
