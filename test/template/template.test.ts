/**
 * The packaged CloudFormation template (`npm run package`), parsed as JSON: what the design and the deploy
 * issue promise about runtime, table, state machine, routes, secrets and outputs.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { SECRET_NAMES, secretEnvName } from "#lib/secrets/secret-catalog.ts";
import tableDefinition from "../../infra/table.json" with { type: "json" };
import { agentRunSteps, walk } from "../../scripts/lib/state-machine-walk.ts";
import {
  functionKey,
  render,
  resource,
  resourcesOfType,
  roleGrants,
  secretProblems,
  stateMachineDefinition,
  ttlProblems,
  walkStrings,
} from "./cfn.ts";
import { type CfnTemplate, cfnLint, ensurePackage, loadTemplate, packageCopy } from "./packaged.ts";
import { listZipEntries, readZipEntry } from "./zip.ts";

let template: CfnTemplate;
let packageSeconds = 0;

beforeAll(async () => {
  packageSeconds = await ensurePackage();
  template = loadTemplate();
}, 420_000);

const lambdas = () => resourcesOfType(template, "AWS::Lambda::Function");
const props = (logicalId: string) => resource(template, logicalId).Properties ?? {};

describe("Lambda functions", () => {
  it("run nodejs22.x on arm64", () => {
    expect(lambdas().length).toBeGreaterThanOrEqual(3);
    for (const [id, fn] of lambdas()) {
      expect(fn.Properties?.Runtime, id).toBe("nodejs22.x");
      expect(fn.Properties?.Architectures, id).toEqual(["arm64"]);
    }
    if (packageSeconds > 0) console.info(`packaged in ${packageSeconds.toFixed(1)} s`);
  });

  it("include the three the state machine and the HTTP API need", () => {
    const keys = lambdas().map(([id, fn]) => functionKey(id, fn));
    expect(keys).toEqual(expect.arrayContaining(["questionsApi", "ask", "modelStep"]));
  });

  it("log to groups that expire", () => {
    for (const [id, group] of resourcesOfType(template, "AWS::Logs::LogGroup")) {
      expect(group.Properties?.RetentionInDays, id).toEqual(expect.any(Number));
    }
  });
});

describe("the questions table", () => {
  const table = () => props("QuestionsTable");

  it("expires items by TTL on expiresAt", () => {
    expect(ttlProblems(template)).toEqual([]);
  });

  it("is on-demand with point-in-time recovery, and keeps infra/table.json's keys and indexes", () => {
    expect(table().BillingMode).toBe("PAY_PER_REQUEST");
    expect(table().PointInTimeRecoverySpecification).toEqual({ PointInTimeRecoveryEnabled: true });
    expect(table().KeySchema).toEqual(tableDefinition.KeySchema);
    expect(table().GlobalSecondaryIndexes).toEqual(tableDefinition.GlobalSecondaryIndexes);
  });

  it("has a stream only if something consumes it", () => {
    const consumers = resourcesOfType(template, "AWS::Lambda::EventSourceMapping").filter(([, mapping]) =>
      render(mapping.Properties?.EventSourceArn).startsWith("QuestionsTable.StreamArn"),
    );
    expect(table().StreamSpecification === undefined).toBe(consumers.length === 0);
  });

  it("the TTL check fails when TTL is removed, disabled or moved", () => {
    const broken = (
      change: (ttl: { AttributeName: string; Enabled: boolean }, table: Record<string, unknown>) => void,
    ) => {
      const copy = structuredClone(template);
      const tableProps = copy.Resources.QuestionsTable?.Properties as Record<string, unknown>;
      // From a known-good TTL, so this shows the check works even while the template itself is broken.
      const ttl = { AttributeName: "expiresAt", Enabled: true };
      tableProps.TimeToLiveSpecification = ttl;
      change(ttl, tableProps);
      return ttlProblems(copy);
    };
    expect(broken((_, t) => delete t.TimeToLiveSpecification)).toEqual([
      "QuestionsTable has no TimeToLiveSpecification",
    ]);
    expect(broken((ttl) => (ttl.Enabled = false))).toEqual(["QuestionsTable TTL is not enabled"]);
    expect(broken((ttl) => (ttl.AttributeName = "ttl"))).toEqual(["QuestionsTable TTL attribute is ttl"]);
  });
});

describe("the agent state machine", () => {
  const definition = () => stateMachineDefinition(template, "AgentStateMachine");

  it("is a Standard workflow (only Standard can wait on a task token) that logs errors without data", () => {
    expect(props("AgentStateMachine").StateMachineType).toBe("STANDARD");
    expect(props("AgentStateMachine").LoggingConfiguration).toMatchObject({
      Level: "ERROR",
      IncludeExecutionData: false,
    });
  });

  it("suspends AskUser on lambda:invoke.waitForTaskToken with a per-question TimeoutSecondsPath", () => {
    const askUser = definition().States.AskUser;
    expect(askUser).toMatchObject({
      Type: "Task",
      Resource: "arn:aws:states:::lambda:invoke.waitForTaskToken",
      Parameters: { FunctionName: "AskLambdaFunction.Arn", Payload: { "taskToken.$": "$$.Task.Token" } },
      TimeoutSecondsPath: expect.stringMatching(/^\$\./),
    });
    expect(askUser).not.toHaveProperty("TimeoutSeconds");
    const catches = (askUser?.Catch ?? []).flatMap((c) => c.ErrorEquals);
    expect(catches).toEqual(
      expect.arrayContaining(["States.Timeout", "Handraise.Cancelled", "Handraise.Skipped", "States.ALL"]),
    );
  });

  it("has its ended runs sent to executionStatus: aborted, timed out and failed (their question is cancelled)", () => {
    const rules = resourcesOfType(template, "AWS::Events::Rule").map(([, rule]) => rule.Properties ?? {});
    const toExecutionStatus = rules.filter((rule) =>
      JSON.stringify(rule.Targets).includes("ExecutionStatusLambdaFunction"),
    );
    expect(toExecutionStatus).toHaveLength(1);
    expect(toExecutionStatus[0]?.EventPattern).toEqual({
      source: ["aws.states"],
      "detail-type": ["Step Functions Execution Status Change"],
      detail: { status: ["ABORTED", "TIMED_OUT", "FAILED"], stateMachineArn: [{ Ref: "AgentStateMachine" }] },
    });
  });

  it("calls the model step function of this stack", () => {
    expect(definition().States.ModelStep?.Resource).toBe("ModelStepLambdaFunction.Arn");
  });

  it("bills 6 transitions for a run with one answered question, 3 more per further question, 1 more on no answer", () => {
    const transitions = (questions: number, ending?: { error: string }) =>
      walk(definition(), agentRunSteps(questions, ending)).length;
    expect(walk(definition(), agentRunSteps(1))).toEqual([
      "ModelStep",
      "AskOrReply",
      "AskUser",
      "ModelStep",
      "AskOrReply",
      "Reply",
    ]);
    expect(transitions(2) - transitions(1)).toBe(3);
    expect(transitions(1, { error: "States.Timeout" })).toBe(7);
    expect(transitions(1, { error: "Handraise.Skipped" })).toBe(7);
    expect(transitions(0)).toBe(3);
  });
});

describe("the HTTP API", () => {
  it("serves the routes of the question API, all on the questions API function", () => {
    const routes = resourcesOfType(template, "AWS::ApiGatewayV2::Route").map(([, route]) => ({
      key: route.Properties?.RouteKey,
      target: render(route.Properties?.Target),
    }));
    const questionRoutes = routes.filter((route) => String(route.key).includes(" /questions"));
    expect(questionRoutes.map((route) => route.key).sort()).toEqual(
      [
        "GET /questions",
        "GET /questions/{id}",
        "GET /questions/{id}/wait",
        "POST /questions",
        "POST /questions/{id}/answer",
        "POST /questions/{id}/cancel",
      ].sort(),
    );
    for (const route of questionRoutes)
      expect(route.target).toBe("integrations/HttpApiIntegrationQuestionsApi");
    expect(render(props("HttpApiIntegrationQuestionsApi").IntegrationUri)).toBe(
      "QuestionsApiLambdaFunction.Arn",
    );
  });

  it("is throttled at the stage and writes access logs", () => {
    expect(props("HttpApiStage").DefaultRouteSettings).toMatchObject({
      ThrottlingRateLimit: expect.any(Number),
      ThrottlingBurstLimit: expect.any(Number),
    });
    expect(props("HttpApiStage").AccessLogSettings).toBeDefined();
  });
});

describe("secrets", () => {
  const secretVariables = SECRET_NAMES.map(secretEnvName);

  it("are in no function's environment, as values or references: functions read them from SSM at run time", () => {
    expect(secretProblems(template, secretVariables)).toEqual([]);
    for (const [id, fn] of lambdas()) {
      const variables =
        (fn.Properties?.Environment as { Variables?: Record<string, unknown> } | undefined)?.Variables ?? {};
      expect(variables.HANDRAISE_SSM_PREFIX, id).toMatch(/^\/handraise\/[^/]+$/);
      expect(variables, id).toHaveProperty("HANDRAISE_CHANNELS");
    }
  });

  it("the secrets check fails on a secret variable, a dynamic reference or a credential-shaped value", () => {
    const copy = structuredClone(template);
    const environment = copy.Resources.AskLambdaFunction?.Properties?.Environment;
    if (!environment) throw new Error("AskLambdaFunction has no environment");
    const { Variables: variables } = environment as { Variables: Record<string, unknown> };
    variables.TELEGRAM_BOT_TOKEN = "123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw";
    variables.MATTERMOST_COMMAND_TOKEN = "{{resolve:ssm:/handraise/dev/mattermost/command-token}}";
    variables.HANDRAISE_SIGNING = "{{resolve:secretsmanager:handraise}}";
    expect(secretProblems(copy, secretVariables)).toEqual([
      "AskLambdaFunction has the secret TELEGRAM_BOT_TOKEN in its environment",
      "AskLambdaFunction has the secret MATTERMOST_COMMAND_TOKEN in its environment",
      "$.Resources.AskLambdaFunction.Properties.Environment.Variables.TELEGRAM_BOT_TOKEN looks like a Telegram bot token",
      "$.Resources.AskLambdaFunction.Properties.Environment.Variables.MATTERMOST_COMMAND_TOKEN is a dynamic reference ({{resolve:ssm:/handraise/dev/mattermost/command-token}})",
      "$.Resources.AskLambdaFunction.Properties.Environment.Variables.HANDRAISE_SIGNING is a dynamic reference ({{resolve:secretsmanager:handraise}})",
    ]);
  });

  it("in the packaging environment never end up in the template or a bundle", async () => {
    // Package with canary values in every secret variable: nothing may copy them in (an ${env:} variable in
    // serverless.yml, an esbuild `define` of process.env, a stray .env file).
    const canaries = Object.fromEntries(
      [
        "HANDRAISE_API_KEY",
        "TELEGRAM_BOT_TOKEN",
        "TELEGRAM_WEBHOOK_SECRET",
        "SLACK_BOT_TOKEN",
        "SLACK_SIGNING_SECRET",
        "DISCORD_BOT_TOKEN",
        "MATTERMOST_BOT_TOKEN",
        "MATTERMOST_ACTION_SECRET",
        "MATTERMOST_COMMAND_TOKEN",
        "MATTERMOST_OUTGOING_TOKEN",
        "HANDRAISE_NOTIFY_SECRET",
      ].map((name) => [name, `canary-${name.toLowerCase()}-7f3a9c`]),
    );
    const copy = await packageCopy(canaries);
    const outDir = copy.dir;
    try {
      const found: string[] = [];
      const scan = (where: string, text: string) => {
        for (const value of Object.values(canaries))
          if (text.includes(value)) found.push(`${value} in ${where}`);
      };
      const canaryTemplate = loadTemplate(outDir);
      // A durable function is published as a version whose logical id hashes its zip, and the copy's zip
      // differs from the project's in its source map's paths only (node_modules is linked there).
      const resourceIds = (t: CfnTemplate) =>
        Object.keys(t.Resources)
          .map((id) => id.replace(/LambdaVersion[A-Za-z0-9]+$/, "LambdaVersion"))
          .sort();
      expect(resourceIds(canaryTemplate)).toEqual(resourceIds(template));
      walkStrings(canaryTemplate, (text, path) => scan(`template ${path}`, text));
      for (const file of readdirSync(outDir).filter((name) => name.endsWith(".zip"))) {
        const zip = readFileSync(join(outDir, file));
        for (const entry of listZipEntries(zip))
          scan(`${file}:${entry.name}`, readZipEntry(zip, entry).toString("utf8"));
      }
      expect(found).toEqual([]);
    } finally {
      copy.remove();
    }
  }, 420_000);
});

describe("operating the stack", () => {
  it("publishes question events to a bus of its own, from the stream consumer only", () => {
    expect(resource(template, "QuestionEventBus").Type).toBe("AWS::Events::EventBus");
    for (const [id, fn] of lambdas()) {
      const variables = (fn.Properties?.Environment as { Variables?: Record<string, unknown> } | undefined)
        ?.Variables;
      const bus = variables?.HANDRAISE_EVENT_BUS;
      expect(bus === undefined ? undefined : render(bus), id).toBe(
        id === "QuestionEventsLambdaFunction" ? "QuestionEventBus" : undefined,
      );
    }
    // Stored questions reach the consumer too (they are announced), not only closed ones.
    const [[, mapping] = []] = resourcesOfType(template, "AWS::Lambda::EventSourceMapping");
    const criteria = mapping?.Properties?.FilterCriteria as { Filters: { Pattern: string }[] } | undefined;
    const patterns = (criteria?.Filters ?? []).map(
      (filter) => JSON.parse(filter.Pattern) as { eventName: string[] },
    );
    expect(patterns.map((pattern) => pattern.eventName)).toEqual([["INSERT"], ["MODIFY"], ["MODIFY"]]);
    // A vote on a pending question reaches it too, at any quorum (its voters' copies lose their controls),
    // and no change to a pending question nobody has voted on: the filter is as narrow as its syntax allows.
    expect(patterns[2]).toEqual({
      eventName: ["MODIFY"],
      dynamodb: {
        OldImage: { entity: { S: ["question"] }, status: { S: ["pending"] } },
        NewImage: { status: { S: ["pending"] }, votedAtMs: { N: [{ exists: true }] } },
      },
    });
  });

  it("invokes the notifier only for a question with a notify URL leaving pending, never for a vote", () => {
    const criteria = props("NotifierEventSourceMappingDynamodbQuestionsTable").FilterCriteria as
      | { Filters: { Pattern: string }[] }
      | undefined;
    // The notifier announces closes only: a vote on a pending question would invoke it for nothing.
    expect((criteria?.Filters ?? []).map((filter) => JSON.parse(filter.Pattern))).toEqual([
      {
        eventName: ["MODIFY"],
        dynamodb: {
          OldImage: { entity: { S: ["question"] }, status: { S: ["pending"] } },
          NewImage: {
            status: { S: ["answered", "cancelled", "delivery_failed", "expired", "no_quorum"] },
            notify: { M: { url: { S: [{ exists: true }] } } },
          },
        },
      },
    ]);
  });

  it("traces every function and the state machine with X-Ray", () => {
    for (const [id, fn] of lambdas()) expect(fn.Properties?.TracingConfig, id).toEqual({ Mode: "Active" });
    expect(props("AgentStateMachine").TracingConfiguration).toEqual({ Enabled: true });
  });

  it("keeps the table: retained when the stack is removed or it is replaced, and deletion-protected outside dev", () => {
    expect(resource(template, "QuestionsTable").DeletionPolicy).toBe("Retain");
    expect(resource(template, "QuestionsTable").UpdateReplacePolicy).toBe("Retain");
    // This package is the dev stage's, where protection is off (params.dev); prod's is checked below.
    expect(props("QuestionsTable").DeletionProtectionEnabled).toBe(false);
  });

  it("bounds the stream consumer's retries, halves failing batches and sends what keeps failing to a queue", () => {
    const [[, mapping] = []] = resourcesOfType(template, "AWS::Lambda::EventSourceMapping");
    const mappingProps = mapping?.Properties ?? {};
    expect(mappingProps.BisectBatchOnFunctionError).toBe(true);
    expect(mappingProps.MaximumRetryAttempts).toBeLessThanOrEqual(10);
    expect(mappingProps.MaximumRecordAgeInSeconds).toBeLessThanOrEqual(3600);
    expect(
      render(
        (mappingProps.DestinationConfig as { OnFailure: { Destination: unknown } }).OnFailure.Destination,
      ),
    ).toBe("QuestionEventsFailureQueue.Arn");
    expect(resource(template, "QuestionEventsFailureQueue").Type).toBe("AWS::SQS::Queue");
  });

  it("keeps what asynchronous work fails: each async function's on-failure queue, the rule's and the schedules' dead-letter queue and retry policy", () => {
    // Invoked asynchronously: by an EventBridge rule, or by Scheduler (through the role it runs schedules with).
    const ruleTargets = resourcesOfType(template, "AWS::Events::Rule").flatMap(([, rule]) =>
      ((rule.Properties?.Targets ?? []) as Record<string, unknown>[]).map((target) => ({ rule, target })),
    );
    const scheduled = roleGrants(template, "QuestionTimerSchedulerRole")
      .grants.filter((g) => g.startsWith("lambda:InvokeFunction on "))
      .map((g) => g.slice("lambda:InvokeFunction on ".length).replace(/\.Arn$/, ""));
    const asyncFunctions = [
      ...ruleTargets.map(({ target }) => render(target.Arn).replace(/\.Arn$/, "")),
      ...scheduled,
    ];
    expect(asyncFunctions.sort()).toEqual(["ExecutionStatusLambdaFunction", "QuestionTimerLambdaFunction"]);
    const queueOf: Record<string, string> = {
      ExecutionStatusLambdaFunction: "ExecutionStatusDeadLetterQueue",
      QuestionTimerLambdaFunction: "QuestionTimerDeadLetterQueue",
    };
    const invokeConfigs = Object.fromEntries(
      resourcesOfType(template, "AWS::Lambda::EventInvokeConfig").map(([, config]) => [
        render(config.Properties?.FunctionName),
        config.Properties ?? {},
      ]),
    );
    for (const fn of asyncFunctions) {
      const queue = queueOf[fn] ?? "";
      const config = invokeConfigs[fn] as { DestinationConfig?: { OnFailure?: { Destination?: unknown } } };
      expect(render(config?.DestinationConfig?.OnFailure?.Destination), fn).toBe(`${queue}.Arn`);
      expect(invokeConfigs[fn]?.MaximumRetryAttempts, fn).toBe(2);
      // An SQS queue, encrypted, that keeps a message 14 days (the longest SQS allows).
      expect(resource(template, queue).Type).toBe("AWS::SQS::Queue");
      expect(props(queue), queue).toEqual({ MessageRetentionPeriod: 1_209_600, SqsManagedSseEnabled: true });
    }
    // The rule's target: retried for at most an hour, then its dead-letter queue.
    for (const { target } of ruleTargets) {
      expect(render((target.DeadLetterConfig as { Arn: unknown }).Arn)).toBe(
        "ExecutionStatusDeadLetterQueue.Arn",
      );
      expect(target.RetryPolicy).toEqual({ MaximumEventAgeInSeconds: 3600, MaximumRetryAttempts: 10 });
    }
    // The schedules' target: the stream consumer that sets them is told the timers' queue (each schedule names
    // it as its dead-letter queue: test/unit/timers/timers.test.ts).
    const variables = (
      props("QuestionEventsLambdaFunction").Environment as { Variables: Record<string, unknown> }
    ).Variables;
    expect(render(variables.HANDRAISE_TIMER_DEAD_LETTER_ARN)).toBe("QuestionTimerDeadLetterQueue.Arn");
  });

  it("lets EventBridge send to the run-status dead-letter queue for that one rule only, and no one else by policy", () => {
    const policies = resourcesOfType(template, "AWS::SQS::QueuePolicy");
    expect(policies.map(([id]) => id)).toEqual(["ExecutionStatusDeadLetterQueuePolicy"]);
    const policy = props("ExecutionStatusDeadLetterQueuePolicy");
    expect((policy.Queues as unknown[]).map(render)).toEqual(["ExecutionStatusDeadLetterQueue"]);
    const [[, rule] = []] = resourcesOfType(template, "AWS::Events::Rule");
    const statements = (policy.PolicyDocument as { Statement: Record<string, any>[] }).Statement;
    expect(statements).toHaveLength(1);
    const [statement] = statements;
    expect(statement).toMatchObject({
      Effect: "Allow",
      Principal: { Service: "events.amazonaws.com" },
      Action: "sqs:SendMessage",
    });
    expect(render(statement?.Resource)).toBe("ExecutionStatusDeadLetterQueue.Arn");
    expect(render(statement?.Condition.ArnEquals["aws:SourceArn"])).toBe(
      `arn:AWS::Partition:events:AWS::Region:AWS::AccountId:rule/${rule?.Properties?.Name}`,
    );
  });

  // Reserved concurrency, the route throttles of the long waits and the alarms, default and full:
  // test/template/params.test.ts.

  it("in prod, with a topic and a table key: protected, notified, encrypted, unreserved", async () => {
    const topic = "arn:aws:sns:us-east-1:123456789012:handraise-alarms";
    const key = "arn:aws:kms:us-east-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab";
    const copy = await packageCopy(
      {},
      ["--stage", "prod", `--param=alarmTopicArn=${topic}`, `--param=tableKmsKeyArn=${key}`],
      { bundles: "reuse" },
    );
    try {
      const prod = loadTemplate(copy.dir);
      expect(prod.Resources.QuestionsTable?.Properties?.DeletionProtectionEnabled).toBe(true);
      expect(prod.Resources.QuestionsTable?.Properties?.SSESpecification).toEqual({
        SSEEnabled: true,
        SSEType: "KMS",
        KMSMasterKeyId: key,
      });
      for (const [id, alarm] of resourcesOfType(prod, "AWS::CloudWatch::Alarm")) {
        expect(alarm.Properties?.AlarmActions, id).toEqual([topic]);
        expect(alarm.Properties?.OKActions, id).toEqual([topic]);
      }
      for (const [id, fn] of resourcesOfType(prod, "AWS::Lambda::Function")) {
        expect(fn.Properties?.ReservedConcurrentExecutions, id).toBeUndefined();
      }
      expect(await cfnLint([copy.dir])).toBe("");
    } finally {
      copy.remove();
    }
  }, 420_000);
});

describe("stack outputs", () => {
  it("give the HTTP API URL, the state machine ARN, the table name and the AskUser function", () => {
    const outputs = template.Outputs ?? {};
    expect(render(outputs.HttpApiUrl?.Value)).toMatch(/^https:\/\/HttpApi\.execute-api\./);
    expect(render(outputs.AgentStateMachineArn?.Value)).toBe("AgentStateMachine");
    expect(render(outputs.QuestionsTableName?.Value)).toBe("QuestionsTable");
    expect(render(outputs.AskFunctionArn?.Value)).toBe("AskLambdaFunction.Arn");
  });

  it("include a webhook URL for every webhook route", () => {
    const webhookRoutes = resourcesOfType(template, "AWS::ApiGatewayV2::Route")
      .map(([, route]) => String(route.Properties?.RouteKey))
      .filter((key) => key.startsWith("POST /webhooks/"));
    const outputUrls = Object.values(template.Outputs ?? {}).map((output) => render(output.Value));
    for (const route of webhookRoutes) {
      const path = route.slice("POST ".length);
      expect(
        outputUrls.some((url) => url.endsWith(path)),
        `an output for ${path}`,
      ).toBe(true);
    }
  });
});
