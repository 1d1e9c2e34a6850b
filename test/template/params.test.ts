/**
 * The deploy parameters (`alarms`, `reserve`, `durable`), each seen both ways: in the default package
 * (`npm run package`) and in one with every optional part on (ALL_ON, packaged once for all template tests,
 * bundles reused) — and cfn-lint on both.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { TIMEOUT_GRACE_SECONDS } from "#lib/questions/schema.ts";
import { alarmMetrics } from "../../scripts/lib/idle-cost.ts";
import { functionKey, render, resource, resourcesOfType } from "./cfn.ts";
import {
  ALL_ON,
  type CfnTemplate,
  cfnLint,
  ensurePackage,
  loadTemplate,
  PACKAGE_DIR,
  PACKAGE_TIMEOUT_MS,
  packagedVariant,
  ROOT,
} from "./packaged.ts";

let base: CfnTemplate;
let allOn: CfnTemplate;
let allOnDir: string;

beforeAll(async () => {
  await ensurePackage();
  base = loadTemplate();
  allOnDir = await packagedVariant(ALL_ON);
  allOn = loadTemplate(allOnDir);
}, PACKAGE_TIMEOUT_MS);

const lambdas = (template: CfnTemplate) => resourcesOfType(template, "AWS::Lambda::Function");
const alarmsOf = (template: CfnTemplate) => resourcesOfType(template, "AWS::CloudWatch::Alarm");
/** Namespace, metric and first dimension of a single-metric alarm, e.g. `AWS/Lambda Errors AskLambdaFunction`. */
const alarmMetric = (alarm: Record<string, unknown> | undefined) =>
  `${render(alarm?.Namespace)} ${render(alarm?.MetricName)} ${render((alarm?.Dimensions as { Value: unknown }[] | undefined)?.[0]?.Value)}`;
/** The queues a metric math alarm reads the depth of. */
const queuesOf = (alarm: Record<string, unknown> | undefined) =>
  ((alarm?.Metrics ?? []) as Record<string, any>[])
    .filter((query) => query.MetricStat)
    .map((query) => render(query.MetricStat.Metric.Dimensions[0].Value).replace(/\.QueueName$/, ""))
    .sort();

describe("alarms", () => {
  it("by default: at most five alarms — two, reading four metrics — that see every function, the HTTP API, the runs and the dead-letter queues", () => {
    const alarms = alarmsOf(base);
    expect(alarms.length).toBeLessThanOrEqual(5);
    expect(alarms.map(([id]) => id).sort()).toEqual(["DeadLettersAlarm", "ProblemsAlarm"]);
    expect(alarms.reduce((sum, [id, alarm]) => sum + alarmMetrics(id, alarm).metrics, 0)).toBe(4);

    // ProblemsAlarm reads the one metric every metric filter publishes to.
    const problems = resource(base, "ProblemsAlarm").Properties;
    expect(alarmMetric(problems)).toBe("Handraise Problems undefined");
    expect(problems).toMatchObject({ Statistic: "Sum", Threshold: 1, TreatMissingData: "notBreaching" });
    const filters = resourcesOfType(base, "AWS::Logs::MetricFilter").map(([, filter]) => ({
      logGroup: render(filter.Properties?.LogGroupName),
      pattern: String(filter.Properties?.FilterPattern),
      metric: filter.Properties?.MetricTransformations,
    }));
    for (const filter of filters) {
      expect(filter.metric, filter.logGroup).toEqual([
        { MetricNamespace: "Handraise", MetricName: "Problems", MetricValue: "1", Unit: "Count" },
      ]);
    }
    const patternsOf = (logGroup: string) =>
      filters.filter((filter) => filter.logGroup === logGroup).map((filter) => filter.pattern);
    // Every function's log group: its ERROR lines, and the runtime's lines for a failed invocation.
    for (const [id, fn] of lambdas(base)) {
      const logGroup = `${id.replace(/LambdaFunction$/, "")}LogGroup`;
      expect(fn.DependsOn, id).toContain(logGroup);
      const patterns = patternsOf(logGroup);
      expect(patterns, functionKey(id, fn)).toContain('{ $.level = "ERROR" }');
      const runtime = patterns.find((pattern) => pattern.includes("Task timed out")) ?? "";
      for (const line of ["Invoke Error", "Task timed out", "Runtime exited"])
        expect(runtime).toContain(line);
    }
    expect(patternsOf("HttpApiLogGroup")).toEqual(["{ $.status = 5* }"]);
    // The access log writes the status as the filter reads it.
    const accessLog = resource(base, "HttpApiStage").Properties?.AccessLogSettings as
      | { Format?: string }
      | undefined;
    const format = JSON.parse(accessLog?.Format ?? "{}") as { status?: string };
    expect(format.status).toBe("$context.status");
    expect(patternsOf("AgentStateMachineLogGroup")).toEqual([
      '{ ($.type = "ExecutionFailed") || ($.type = "ExecutionTimedOut") }',
    ]);
    expect(resource(base, "AgentStateMachine").Properties?.LoggingConfiguration).toMatchObject({
      Level: "ERROR",
    });

    // DeadLettersAlarm: the deepest of the three queues that can fill without a log line. The notifier's
    // fills only after five failed receives, each its function's ERROR line (above).
    const deadLetters = resource(base, "DeadLettersAlarm").Properties;
    expect(queuesOf(deadLetters)).toEqual([
      "ExecutionStatusDeadLetterQueue",
      "QuestionEventsFailureQueue",
      "QuestionTimerDeadLetterQueue",
    ]);
    expect(deadLetters).toMatchObject({ Threshold: 1, ComparisonOperator: "GreaterThanOrEqualToThreshold" });
    const queues = resourcesOfType(base, "AWS::SQS::Queue").map(([id]) => id);
    const redriveTargets = resourcesOfType(base, "AWS::SQS::Queue").map(([, queue]) =>
      render(
        (queue.Properties?.RedrivePolicy as { deadLetterTargetArn?: unknown } | undefined)
          ?.deadLetterTargetArn,
      ),
    );
    expect(redriveTargets).toContain("NotifyDeadLetterQueue.Arn");
    expect(queues.sort()).toEqual([...queuesOf(deadLetters), "NotifyDeadLetterQueue", "NotifyQueue"].sort());
  });

  it("with alarms=full: each function's errors and throttles (the durable agent's too), the stream, each dead-letter queue, failed runs and 5xx", () => {
    const alarms = alarmsOf(allOn).map(([, alarm]) => alarm.Properties);
    const metrics = alarms.map(alarmMetric);
    expect(lambdas(allOn).map(([id]) => id)).toContain("DurableAgentLambdaFunction");
    for (const [id, fn] of lambdas(allOn)) {
      expect(metrics, functionKey(id, fn)).toContain(`AWS/Lambda Errors ${id}`);
      expect(metrics, functionKey(id, fn)).toContain(`AWS/Lambda Throttles ${id}`);
    }
    expect(metrics).toEqual(
      expect.arrayContaining([
        "AWS/Lambda IteratorAge QuestionEventsLambdaFunction",
        "AWS/SQS ApproximateNumberOfMessagesVisible QuestionEventsFailureQueue.QueueName",
        "AWS/SQS ApproximateNumberOfMessagesVisible NotifyDeadLetterQueue.QueueName",
        "AWS/States ExecutionsFailed AgentStateMachine",
        "AWS/States ExecutionsTimedOut AgentStateMachine",
        "Handraise ResumeAbandoned handraise",
      ]),
    );
    expect(
      alarms.find((alarm) => JSON.stringify(alarm?.Metrics ?? []).includes('"5xx"'))?.Metrics,
    ).toBeDefined();
    // The asynchronous work's dead-letter queues share one alarm: the deepest of them.
    const asyncDeadLetters = alarms.filter((alarm) =>
      /QuestionTimerDeadLetterQueue|ExecutionStatusDeadLetterQueue/.test(JSON.stringify(alarm)),
    );
    expect(asyncDeadLetters.map(queuesOf)).toEqual([
      ["ExecutionStatusDeadLetterQueue", "QuestionTimerDeadLetterQueue"],
    ]);
    // No metric filters: the full set reads AWS's own metrics.
    expect(resourcesOfType(allOn, "AWS::Logs::MetricFilter")).toEqual([]);
    for (const alarm of [...alarms, ...alarmsOf(base).map(([, a]) => a.Properties)]) {
      expect(alarm?.AlarmActions).toBeUndefined();
    }
  });
});

describe("reserved concurrency", () => {
  it("none by default, so an account whose concurrency quota is 10 deploys the stack; the long waits are bounded by route throttles", () => {
    for (const [id, fn] of lambdas(base)) {
      expect(fn.Properties?.ReservedConcurrentExecutions, functionKey(id, fn)).toBeUndefined();
    }
    const routeSettings = resource(base, "HttpApiStage").Properties?.RouteSettings as Record<
      string,
      Record<string, unknown>
    >;
    expect(Object.keys(routeSettings).sort()).toEqual(["GET /questions/{id}/wait", "POST /mcp"]);
    for (const [route, settings] of Object.entries(routeSettings)) {
      // Below the stage's own throttle (50/s, burst 100): each request may hold a function 25 s.
      expect(settings, route).toEqual({ ThrottlingRateLimit: 1, ThrottlingBurstLimit: 10 });
    }
    const routeKeys = resourcesOfType(base, "AWS::ApiGatewayV2::Route").map(
      ([, r]) => r.Properties?.RouteKey,
    );
    for (const route of Object.keys(routeSettings)) expect(routeKeys).toContain(route);
    // The functions behind them give up on a wait before API Gateway's 30 s.
    expect(resource(base, "QuestionsApiLambdaFunction").Properties?.Timeout).toBe(29);
    expect(resource(base, "McpLambdaFunction").Properties?.Timeout).toBe(29);
  });

  it("with reserve=on: each function's reservation, 292 in all with the durable agent", () => {
    const reserved = Object.fromEntries(
      lambdas(allOn).map(([id, fn]) => [functionKey(id, fn), fn.Properties?.ReservedConcurrentExecutions]),
    );
    expect(reserved).toEqual({
      questionsApi: 25,
      ask: 20,
      modelStep: 20,
      telegramWebhook: 20,
      slackWebhook: 20,
      discordWebhook: 20,
      mattermostWebhook: 20,
      teamsWebhook: 20,
      whatsappWebhook: 20,
      gchatWebhook: 20,
      questionEvents: 10,
      executionStatus: 5,
      answerPage: 10,
      mcp: 20,
      openApi: 2,
      durableAgent: 20,
      notifier: 10,
      questionTimer: 10,
    });
    expect(Object.values(reserved).reduce((sum: number, n) => sum + Number(n), 0)).toBe(292);
  });
});

describe("the durable agent", () => {
  it("is absent by default: no durable function, nor its role, alias, version, log group, secrets, alarms or outputs", () => {
    expect(Object.keys(base.Resources).filter((id) => id.startsWith("DurableAgent"))).toEqual([]);
    for (const [id, fn] of lambdas(base)) expect(fn.Properties?.DurableConfig, id).toBeUndefined();
    expect(resourcesOfType(base, "AWS::Lambda::Alias")).toEqual([]);
    expect(Object.keys(base.Outputs ?? {}).filter((id) => id.includes("Durable"))).toEqual([]);
    expect(JSON.stringify(base)).not.toContain("DurableAgent");
  });

  it("with durable=on: the durable function on its alias, with its own role, log group, secrets policy and the alias output", () => {
    const fn = resource(allOn, "DurableAgentLambdaFunction").Properties ?? {};
    expect(fn.DurableConfig).toEqual({ ExecutionTimeout: 86400, RetentionPeriodInDays: 14 });
    expect(render(fn.Role)).toBe("DurableAgentRole.Arn");
    expect(resource(allOn, "DurableAgentRole").Type).toBe("AWS::IAM::Role");
    expect(resource(allOn, "DurableAgentLogGroup").Type).toBe("AWS::Logs::LogGroup");
    expect(resource(allOn, "DurableAgentSecretsPolicy").Type).toBe("AWS::IAM::Policy");
    const [[aliasId, alias] = []] = resourcesOfType(allOn, "AWS::Lambda::Alias");
    expect(render(alias?.Properties?.FunctionName)).toBe("DurableAgentLambdaFunction");
    expect(render(allOn.Outputs?.DurableAgentAliasArn?.Value)).toBe(aliasId);
    // Its role and permissions are the IAM table's row (test/template/iam.test.ts).
  });

  it("with durable=on: its questions fit in its executions, and it knows its execution timeout to cap them", () => {
    const variablesOf = (id: string) =>
      ((resource(allOn, id).Properties?.Environment as { Variables?: Record<string, string> } | undefined)
        ?.Variables ?? {}) as Record<string, string | undefined>;
    const fn = resource(allOn, "DurableAgentLambdaFunction").Properties ?? {};
    const executionTimeout = (fn.DurableConfig as { ExecutionTimeout: number }).ExecutionTimeout;
    const variables = variablesOf("DurableAgentLambdaFunction");
    expect(Number(variables.HANDRAISE_DURABLE_EXECUTION_TIMEOUT_SECONDS)).toBe(executionTimeout);
    expect(Number(variables.HANDRAISE_MAX_TIMEOUT_SECONDS) + TIMEOUT_GRACE_SECONDS).toBeLessThanOrEqual(
      executionTimeout,
    );
    // Only the durable agent is told: no other function runs a durable execution.
    for (const [id] of lambdas(allOn)) {
      if (id === "DurableAgentLambdaFunction") continue;
      expect(variablesOf(id).HANDRAISE_DURABLE_EXECUTION_TIMEOUT_SECONDS, id).toBeUndefined();
    }
  });
});

describe("cfn-lint", () => {
  it("finds nothing in the default package nor in the all-on one (.cfnlintrc.yaml says what it skips and why)", async () => {
    expect(await cfnLint([PACKAGE_DIR, allOnDir])).toBe("");
  }, 120_000);

  it("is told to skip one check only, W3005 (a DependsOn osls writes next to a Ref)", () => {
    const config = readFileSync(join(ROOT, ".cfnlintrc.yaml"), "utf8");
    const skipped = [...config.matchAll(/^\s+- (\w+)\s*$/gm)].map((match) => match[1]);
    expect(skipped).toEqual(["W3005"]);
  });
});
