/**
 * What one question costs on AWS, computed from the packaged deployment and the real code — not guessed:
 * - Step Functions transitions: walked on the packaged agent state machine;
 * - Lambda: the invocations of the path, memory from the template, durations assumed (stated below);
 * - DynamoDB: the real question and transcript stores run against the embedded DynamoDB, each request's
 *   read/write units counted from the item sizes it read and wrote, global secondary index writes included;
 * - API Gateway: the requests of the path;
 * - the question timers (EventBridge Scheduler): schedules set and cleared (not billed) and, for a question
 *   nobody answers, the schedules that fire, the timer function's runs and its DynamoDB units, measured the
 *   same way.
 *
 * Usage: `npm run package && npx tsx scripts/question-cost.ts` (prints the cost table of docs/deploy.md, "What a question costs").
 */

import { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { ensureTable, localDynamoDbClient, startLocalDynamoDb } from "#infra/local/dynamodb.ts";
import tableDefinition from "#infra/table.json" with { type: "json" };
import { createModelStep, type ModelStepEvent } from "#lib/agent/model-step.ts";
import { createDynamoDbQuestionStore } from "#lib/store/dynamodb-question-store.ts";
import { createDynamoDbTranscriptStore } from "#lib/store/dynamodb-transcript-store.ts";
import { silentTelemetry } from "#lib/telemetry/telemetry.ts";
import { ASSUMED_MS, PRICE } from "./lib/aws-prices.ts";
import {
  type CfnTemplate,
  functionKey,
  readTemplate,
  resourcesOfType,
  stateMachineDefinition,
} from "./lib/cloudformation.ts";
import { countCapacity, type RequestUnits } from "./lib/dynamodb-units.ts";
import { SAMPLE_TOOL_CALL } from "./lib/sample-tool-call.ts";
import { agentRunSteps, walk } from "./lib/state-machine-walk.ts";

const TOOL_CALL = SAMPLE_TOOL_CALL;
/** Step Functions task tokens run to ~1 KB (the API allows up to 2,048 characters). */
const TASK_TOKEN_LENGTH = 1024;

async function main(): Promise<void> {
  const template = readTemplate(".serverless");
  const definition = stateMachineDefinition(template, "AgentStateMachine");
  const oneQuestionRun = walk(definition, agentRunSteps(1)).length;
  const perFurtherQuestion = walk(definition, agentRunSteps(2)).length - oneQuestionRun;
  const noAnswerExtra =
    walk(definition, agentRunSteps(1, { error: "States.Timeout" })).length - oneQuestionRun;
  const memoryGb = memoryByFunction(template);

  const db = await measureDynamoDb();

  const rows: { item: string; quantity: string; usd: number }[] = [];
  const lambdaGbSeconds =
    ((memoryGb.modelStep ?? 0) * 2 * ASSUMED_MS.modelStep +
      (memoryGb.ask ?? 0) * ASSUMED_MS.ask +
      (memoryGb.questionsApi ?? 0) * ASSUMED_MS.answer) /
    1000;
  rows.push({
    item: "Step Functions state transitions",
    quantity: `${oneQuestionRun}`,
    usd: oneQuestionRun * PRICE.transition,
  });
  rows.push({
    item: "Lambda requests (model step ×2, ask, answer)",
    quantity: "4",
    usd: 4 * PRICE.lambdaRequest,
  });
  rows.push({
    item: `Lambda arm64 GB-s (${ASSUMED_MS.modelStep}/${ASSUMED_MS.ask}/${ASSUMED_MS.answer} ms assumed)`,
    quantity: lambdaGbSeconds.toFixed(3),
    usd: lambdaGbSeconds * PRICE.lambdaGbSecondArm,
  });
  rows.push({
    item: "DynamoDB write units",
    quantity: `${db.total.write}`,
    usd: db.total.write * PRICE.writeUnit,
  });
  rows.push({
    item: "DynamoDB read units",
    quantity: `${db.total.read}`,
    usd: db.total.read * PRICE.readUnit,
  });
  rows.push({ item: "HTTP API requests (the answer)", quantity: "1", usd: PRICE.httpApiRequest });
  const total = rows.reduce((sum, row) => sum + row.usd, 0);

  console.log("DynamoDB requests of one question (units: write / read):");
  for (const request of db.requests.filter((r) => r.phase !== "unanswered ask")) {
    console.log(
      `  ${request.phase.padEnd(22)} ${request.label.padEnd(44)} ${request.write} / ${request.read}`,
    );
  }
  console.log("\n| per question (a run that asks once) | quantity | USD |\n|---|---:|---:|");
  for (const row of rows) console.log(`| ${row.item} | ${row.quantity} | ${row.usd.toFixed(8)} |`);
  console.log(`| **total** | | **${total.toFixed(8)}** |`);
  console.log(`\nper 1,000 questions: $${(total * 1000).toFixed(4)}`);
  const further =
    perFurtherQuestion * PRICE.transition +
    3 * PRICE.lambdaRequest +
    (((memoryGb.modelStep ?? 0) * ASSUMED_MS.modelStep +
      (memoryGb.ask ?? 0) * ASSUMED_MS.ask +
      (memoryGb.questionsApi ?? 0) * ASSUMED_MS.answer) /
      1000) *
      PRICE.lambdaGbSecondArm +
    db.furtherQuestion.write * PRICE.writeUnit +
    db.furtherQuestion.read * PRICE.readUnit +
    PRICE.httpApiRequest;
  console.log(
    `each further question in the same run: ${perFurtherQuestion} transitions, $${further.toFixed(8)} ($${(further * 1000).toFixed(4)} per 1,000)`,
  );
  console.log(
    `a question that expires, is skipped or cancelled: +${noAnswerExtra} transition (a Pass state)`,
  );

  // The timers: what they add to a question, apart from the figures above (docs/timers.md).
  const timerGb = memoryGb.questionTimer ?? 0.25;
  const consumerGb = memoryGb.questionEvents ?? 0.25;
  const schedulerCalls = (calls: number) =>
    ((consumerGb * calls * ASSUMED_MS.schedulerCall) / 1000) * PRICE.lambdaGbSecondArm;
  const fired = (units: { write: number; read: number }, ms: number) =>
    PRICE.schedulerInvocation +
    PRICE.lambdaRequest +
    ((timerGb * ms) / 1000) * PRICE.lambdaGbSecondArm +
    units.write * PRICE.writeUnit +
    units.read * PRICE.readUnit;
  const answeredTimers = schedulerCalls(2);
  const expiry = fired(db.timers.expiry, ASSUMED_MS.timerExpire);
  const reminder = fired(db.timers.reminder, ASSUMED_MS.timerRemind) + schedulerCalls(2);
  console.log(
    [
      "\nWith the question timers (EventBridge Scheduler; CreateSchedule/DeleteSchedule are not billed, a fired",
      `schedule $${(PRICE.schedulerInvocation * 1e6).toFixed(2)} per million after 14 million free a month; stream consumer ${ASSUMED_MS.schedulerCall} ms per call and timer function ${ASSUMED_MS.timerExpire} ms (expiry) / ${ASSUMED_MS.timerRemind} ms (reminder) assumed):`,
      `  answered in time: its expiry timer set and cleared, nothing fires: +$${answeredTimers.toFixed(8)} ($${(answeredTimers * 1000).toFixed(4)} per 1,000)`,
      `  nobody answers: the expiry fires (1 invocation, ${db.timers.expiry.write} write / ${db.timers.expiry.read} read units): +$${(answeredTimers + expiry).toFixed(8)} ($${((answeredTimers + expiry) * 1000).toFixed(4)} per 1,000)`,
      `  each reminder that fires (1 invocation, ${db.timers.reminder.write} write / ${db.timers.reminder.read} read units, a chat message per chat): +$${reminder.toFixed(8)} ($${(reminder * 1000).toFixed(4)} per 1,000)`,
    ].join("\n"),
  );
}

function memoryByFunction(template: CfnTemplate): Record<string, number> {
  return Object.fromEntries(
    resourcesOfType(template, "AWS::Lambda::Function").map(([id, fn]) => [
      functionKey(id, fn),
      Number(fn.Properties?.MemorySize ?? 1024) / 1024,
    ]),
  );
}

interface MeasuredRequest extends RequestUnits {
  phase: string;
}

/** Runs one question's store traffic against the embedded DynamoDB and counts its units. */
async function measureDynamoDb() {
  const local = await startLocalDynamoDb({ port: 0 });
  const admin = localDynamoDbClient(local.url);
  const tableName = "handraise-cost";
  await ensureTable(admin, tableName);
  const client = new DynamoDBClient({
    endpoint: local.url,
    region: "us-east-1",
    credentials: { accessKeyId: "local", secretAccessKey: "local" },
  });
  const requests: MeasuredRequest[] = [];
  let phase = "";
  countCapacity(client, admin, tableDefinition, (units) => requests.push({ ...units, phase }));

  try {
    const limits = { minTimeoutSeconds: 30, maxTimeoutSeconds: 3600 };
    let now = Date.UTC(2026, 10, 30, 12);
    const transcripts = createDynamoDbTranscriptStore({ client, tableName, keepSeconds: 3600 + 7 * 86_400 });
    const store = createDynamoDbQuestionStore({ client, tableName, retentionSeconds: 7 * 86_400 });
    const modelStep = createModelStep({
      transcripts,
      questions: store,
      telemetry: silentTelemetry,
      limits,
      now: () => now,
    });
    const runId =
      "arn:aws:states:us-east-1:123456789012:execution:handraise-prod-agent:8f0c2b1e-4a57-4d8e-9b1f-0c6f3d2a7e55";
    const input: ModelStepEvent["state"] = {
      sessionKey: "telegram:418833702",
      owner: "telegram:418833702",
      deliverTo: [{ channel: "telegram", chatId: "418833702" }],
      prompt: "Release 2.4.0 is built and its checks passed. Ask where to deploy it, then report.",
      model: {
        provider: "scripted",
        steps: [{ toolCalls: [TOOL_CALL] }, { reply: "deploy={{call_1.deploy_target}}" }],
      },
    };

    phase = "model step (asks)";
    const first = await modelStep({ runId, state: input });
    if (first.action !== "ask") throw new Error("the scripted model did not ask");

    phase = "ask";
    const id = "ask_0f9d8c7b6a5e4d3c2b1a0f9e8d7c6b5a";
    const created = await store.create(
      {
        id,
        owner: input.owner,
        sessionKey: input.sessionKey,
        runId,
        taskToken: "A".repeat(TASK_TOKEN_LENGTH),
        questions: (await import("#lib/questions/index.ts")).normalizeAskUserArgs(TOOL_CALL.arguments, limits)
          .questions,
        timeoutSeconds: first.ask.timeoutSeconds,
        deliverTo: input.deliverTo,
        createdAtMs: now,
      },
      now,
    );
    if (created.kind !== "created") throw new Error(`create: ${created.kind}`);
    await store.recordDeliveries(
      id,
      [{ index: 0, delivery: { channel: "telegram", chatId: "418833702", messageId: "5521" } }],
      now,
    );

    phase = "answer";
    now += 60_000;
    await store.get(id, now);
    const closed = await store.close(
      id,
      { status: "answered", answers: { deploy_target: ["Staging"] } },
      now,
    );
    if (closed.kind !== "closed") throw new Error(`close: ${closed.kind}`);

    phase = "model step (replies)";
    const second = await modelStep({
      runId,
      state: {
        ...input,
        step: { action: "ask", ask: { toolCallId: TOOL_CALL.id } },
        askResult: { status: "answered", answers: { deploy_target: ["Staging"] } },
      },
    });
    if (second.action !== "reply") throw new Error("the scripted model did not reply");

    // A question nobody answers, with a reminder: what its timers read and write when they fire.
    phase = "unanswered ask";
    const late = "ask_1a2b3c4d5e6f708192a3b4c5d6e7f809";
    await store.create(
      {
        id: late,
        owner: input.owner,
        runId,
        taskToken: "A".repeat(TASK_TOKEN_LENGTH),
        questions: (await import("#lib/questions/index.ts")).normalizeAskUserArgs(TOOL_CALL.arguments, limits)
          .questions,
        timeoutSeconds: first.ask.timeoutSeconds,
        deliverTo: input.deliverTo,
        createdAtMs: now,
        remindAfterSeconds: [600],
      },
      now,
    );
    phase = "timer: reminder";
    now += 600_000;
    await store.get(late, now);
    await store.claimEvent(`timer:${late}-remind-0`, 2 * 86_400, now);
    phase = "timer: expiry";
    now += first.ask.timeoutSeconds * 1000;
    await store.get(late, now);
    if (!(await store.expire(late, now))) throw new Error("expire: not closed");
  } finally {
    client.destroy();
    admin.destroy();
    await local.stop();
  }

  const sum = (filter: (r: MeasuredRequest) => boolean) =>
    requests
      .filter(filter)
      .reduce((t, r) => ({ write: t.write + r.write, read: t.read + r.read }), { write: 0, read: 0 });
  const ofTheQuestion = (r: MeasuredRequest) => r.phase !== "unanswered ask" && !r.phase.startsWith("timer:");
  return {
    requests,
    total: sum(ofTheQuestion),
    // A further question in the same run: its ask and answer, and one more model step (like the second).
    furtherQuestion: sum((r) => ofTheQuestion(r) && r.phase !== "model step (asks)"),
    timers: {
      reminder: sum((r) => r.phase === "timer: reminder"),
      expiry: sum((r) => r.phase === "timer: expiry"),
    },
  };
}

await main();
