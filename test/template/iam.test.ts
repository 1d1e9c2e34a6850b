/**
 * Least privilege, checked on the packaged template: each function has its own role, and each role allows
 * exactly the (action, resource) pairs in the table below — nothing more (a widened policy fails) and nothing
 * less (a role that lost a permission fails). Adding a function means adding its row here, reviewed.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { type ChannelName, type FunctionName, functionSecrets } from "#lib/secrets/secret-catalog.ts";
import { keys } from "#lib/store/keys.ts";
import tableDefinition from "../../infra/table.json" with { type: "json" };
import {
  functionRoles,
  grant,
  type IamRow,
  iamProblems,
  isRecord,
  roleGrants,
  serviceRoles,
  stateMachineRoles,
  trustedServices,
} from "./cfn.ts";
import {
  ALL_ON,
  type CfnTemplate,
  cfnLint,
  ensurePackage,
  loadTemplate,
  PACKAGE_TIMEOUT_MS,
  packageCopy,
  packagedVariant,
} from "./packaged.ts";

const TABLE = "QuestionsTable.Arn";
const QUESTION_ITEM_ACTIONS = [
  "dynamodb:GetItem",
  "dynamodb:PutItem",
  "dynamodb:UpdateItem",
  "dynamodb:DeleteItem",
  "dynamodb:BatchWriteItem",
];
/**
 * Bedrock Converse, for the two agents (modelStep, durableAgent): the model is chosen per run (any foundation
 * model, any region for cross-region inference profiles, and this account's inference profiles).
 */
const INVOKE_BEDROCK_MODELS = {
  actions: ["bedrock:InvokeModel"],
  resources: [
    "arn:AWS::Partition:bedrock:*::foundation-model/*",
    "arn:AWS::Partition:bedrock:*:AWS::AccountId:inference-profile/*",
  ],
};
const LOGS = ["logs:CreateLogStream", "logs:PutLogEvents"];
const pendingIndexes = tableDefinition.GlobalSecondaryIndexes.map(
  (index) => `${TABLE}/index/${index.IndexName}`,
);

/**
 * Step Functions' CloudWatch Logs delivery. AWS requires `"Resource": "*"` here: these are account-level
 * log-delivery APIs with no resource type to scope them to (Step Functions developer guide, "IAM policies
 * for logging to CloudWatch Logs"). With X-Ray's, it is the only `*` in the stack.
 */
const LOG_DELIVERY = [
  "logs:CreateLogDelivery",
  "logs:GetLogDelivery",
  "logs:UpdateLogDelivery",
  "logs:DeleteLogDelivery",
  "logs:ListLogDeliveries",
  "logs:PutResourcePolicy",
  "logs:DescribeResourcePolicies",
  "logs:DescribeLogGroups",
];

/**
 * Whose waiting runs an answer may resume: state machines named like the agent, `handraise-<stage>-*`
 * (serverless.yml `params.resumableStateMachines`), so agents of your own can use the AskUser task too.
 */
const resumableStateMachines = (stage: string) =>
  `arn:AWS::Partition:states:AWS::Region:AWS::AccountId:stateMachine:handraise-${stage}-*`;

/** The runs of those state machines (DescribeExecution's resource). */
const resumableExecutions = (stage: string) =>
  `arn:AWS::Partition:states:AWS::Region:AWS::AccountId:execution:handraise-${stage}-*:*`;

/** Whether a run whose token is dead has ended (a retried AskUser task's earlier token is dead too). */
const describeRuns = (stage: string): IamRow => ({
  actions: ["states:DescribeExecution"],
  resources: [resumableExecutions(stage)],
});

/**
 * Whose durable executions an answer may resume (SendDurableExecutionCallback*): Lambda functions named
 * `handraise-<stage>-*` (`params.resumableDurableFunctions`), which also matches their executions' ARNs.
 */
const resumableDurableFunctions = (stage: string) =>
  `arn:AWS::Partition:lambda:AWS::Region:AWS::AccountId:function:handraise-${stage}-*`;
/** Completing a waiting question's callback, next to the task-token row of each function that closes. */
const resumeDurable = (stage: string): IamRow => ({
  actions: ["lambda:SendDurableExecutionCallbackSuccess", "lambda:SendDurableExecutionCallbackFailure"],
  resources: [resumableDurableFunctions(stage)],
});
const probeDurable = (stage: string): IamRow => ({
  actions: ["lambda:SendDurableExecutionCallbackHeartbeat"],
  resources: [resumableDurableFunctions(stage)],
});

/**
 * The SSM parameters each function may read, per channel that is on (`*`: always). Reviewed here, not derived
 * from infra/secrets.json: a webhook reads only its own platform's secrets; the functions that post questions
 * (the API, ask) read every bot token and the Mattermost signing key; the stream consumer, which retires every
 * platform's copies, reads every bot token; the timer function, which reminds in every platform's chats and
 * posts escalated questions, reads what the functions that post questions read; the link secret is read by
 * the answer page (to check a link) and by every function that shows a link (the API, ask, the timer
 * function, and the webhooks, which post a question again on request); the model step reads model API keys,
 * whose names each run chooses, so its grant is the path `models/*`; the question API and the MCP server
 * read the named API keys (`api-keys/*`), by path only; nothing else reads a secret.
 */
const SECRETS: Record<string, Record<string, string[]>> = {
  questionsApi: {
    "*": ["api-key", "api-keys/*", "link-secret"],
    telegram: ["telegram/bot-token"],
    slack: ["slack/bot-token"],
    discord: ["discord/bot-token"],
    mattermost: ["mattermost/bot-token", "mattermost/action-secret"],
    teams: ["teams/app-password"],
    whatsapp: ["whatsapp/access-token"],
    gchat: ["gchat/service-account"],
  },
  ask: {
    "*": ["link-secret"],
    telegram: ["telegram/bot-token"],
    slack: ["slack/bot-token"],
    discord: ["discord/bot-token"],
    mattermost: ["mattermost/bot-token", "mattermost/action-secret"],
    teams: ["teams/app-password"],
    whatsapp: ["whatsapp/access-token"],
    gchat: ["gchat/service-account"],
  },
  telegramWebhook: { "*": ["link-secret"], telegram: ["telegram/bot-token", "telegram/webhook-secret"] },
  slackWebhook: { "*": ["link-secret"], slack: ["slack/bot-token", "slack/signing-secret"] },
  discordWebhook: { "*": ["link-secret"], discord: ["discord/bot-token"] },
  mattermostWebhook: {
    "*": ["link-secret"],
    // Slash commands and outgoing webhooks each have their own tokens; only this webhook reads either.
    mattermost: [
      "mattermost/bot-token",
      "mattermost/action-secret",
      "mattermost/command-token",
      "mattermost/outgoing-token",
    ],
  },
  teamsWebhook: { "*": ["link-secret"], teams: ["teams/app-password"] },
  // The app secret checks notifications, the verify token Meta's subscription check.
  whatsappWebhook: {
    "*": ["link-secret"],
    whatsapp: ["whatsapp/access-token", "whatsapp/app-secret", "whatsapp/verify-token"],
  },
  // Google Chat: every answer is the synchronous response; the webhook never calls the Chat API.
  gchatWebhook: { "*": ["link-secret"] },
  // WhatsApp's copies cannot be edited, so retiring them reads nothing of WhatsApp's.
  questionEvents: {
    telegram: ["telegram/bot-token"],
    slack: ["slack/bot-token"],
    discord: ["discord/bot-token"],
    mattermost: ["mattermost/bot-token"],
    teams: ["teams/app-password"],
    gchat: ["gchat/service-account"],
  },
  answerPage: { "*": ["link-secret"] },
  modelStep: { "*": ["models/*"] },
  // The MCP server asks and delivers as the question API does, behind the same key.
  mcp: {
    "*": ["api-key", "api-keys/*", "link-secret"],
    telegram: ["telegram/bot-token"],
    slack: ["slack/bot-token"],
    discord: ["discord/bot-token"],
    mattermost: ["mattermost/bot-token", "mattermost/action-secret"],
    teams: ["teams/app-password"],
    whatsapp: ["whatsapp/access-token"],
    gchat: ["gchat/service-account"],
  },
  // The durable agent asks and delivers as the ask task does.
  durableAgent: {
    "*": ["link-secret", "models/*"],
    telegram: ["telegram/bot-token"],
    slack: ["slack/bot-token"],
    discord: ["discord/bot-token"],
    mattermost: ["mattermost/bot-token", "mattermost/action-secret"],
    teams: ["teams/app-password"],
    whatsapp: ["whatsapp/access-token"],
    gchat: ["gchat/service-account"],
  },
  // Only the notifier signs notifications.
  notifier: { "*": ["notify-secret"] },
  // Posts reminders in every platform's chats, and an escalated question (with its buttons and link).
  questionTimer: {
    "*": ["link-secret"],
    telegram: ["telegram/bot-token"],
    slack: ["slack/bot-token"],
    discord: ["discord/bot-token"],
    mattermost: ["mattermost/bot-token", "mattermost/action-secret"],
    teams: ["teams/app-password"],
    whatsapp: ["whatsapp/access-token"],
    gchat: ["gchat/service-account"],
  },
};

const secretsOf = (fn: string, channels: readonly string[]) =>
  Object.entries(SECRETS[fn] ?? {})
    .filter(([channel]) => channel === "*" || channels.includes(channel))
    .flatMap(([, names]) => names);

/**
 * A function's grant to read its parameters (and decrypt them only through SSM, with a key of your own). The
 * named API keys (`api-keys/*`) are read by their path alone: GetParametersByPath on `<prefix>/api-keys`,
 * never GetParameter on a key by name.
 */
function secretRows(fn: string, stage: string, channels: readonly string[], kmsKeyArn?: string): IamRow[] {
  const grants = secretsOf(fn, channels);
  if (grants.length === 0) return [];
  const parameter = (name: string) =>
    `arn:AWS::Partition:ssm:AWS::Region:AWS::AccountId:parameter/handraise/${stage}/${name}`;
  const names = grants.filter((name) => name !== "api-keys/*");
  return [
    ...(names.length > 0 ? [{ actions: ["ssm:GetParameter"], resources: names.map(parameter) }] : []),
    ...(grants.includes("api-keys/*")
      ? [{ actions: ["ssm:GetParametersByPath"], resources: [parameter("api-keys")] }]
      : []),
    ...(kmsKeyArn
      ? [
          {
            actions: ["kms:Decrypt"],
            resources: [kmsKeyArn],
            // Conditions are compared as written in the template.
            condition: {
              StringEquals: { "kms:ViaService": { "Fn::Sub": `ssm.\${AWS::Region}.amazonaws.com` } },
            },
          },
        ]
      : []),
  ];
}

/**
 * X-Ray: every function sends its traces (AWS offers no resource to scope these to), and the state machine
 * too (serverless-step-functions adds its sampling actions).
 */
const XRAY = ["xray:PutTraceSegments", "xray:PutTelemetryRecords"];
const XRAY_STATE_MACHINE = [...XRAY, "xray:GetSamplingRules", "xray:GetSamplingTargets"];

/**
 * Function (key in serverless.yml) or state machine (logical id) → exactly what its role may do. The durable
 * agent has a row only where it is deployed (`--param="durable=on"`).
 */
const iamTable = (
  stage: string,
  channels: readonly string[] = [],
  kmsKeyArn?: string,
  { durable = false }: { durable?: boolean } = {},
): Record<string, IamRow[]> => {
  const { durableAgent, ...always } = baseIamTable(stage);
  const table: Record<string, IamRow[]> = durable && durableAgent ? { ...always, durableAgent } : always;
  for (const [name, rows] of Object.entries(table)) {
    if (name === "AgentStateMachine" || name === SCHEDULER_ROLE) continue;
    rows.push(...secretRows(name, stage, channels, kmsKeyArn), { actions: XRAY, resources: ["*"] });
  }
  return table;
};

/** The role EventBridge Scheduler runs the question timers with. */
const SCHEDULER_ROLE = "QuestionTimerSchedulerRole";
const SCHEDULES =
  "arn:AWS::Partition:scheduler:AWS::Region:AWS::AccountId:schedule/QuestionTimerScheduleGroup/*";

const baseIamTable = (stage: string): Record<string, IamRow[]> => ({
  questionsApi: [
    { actions: LOGS, resources: ["QuestionsApiLogGroup.Arn"] },
    { actions: QUESTION_ITEM_ACTIONS, resources: [TABLE] },
    { actions: ["dynamodb:Query"], resources: pendingIndexes },
    {
      actions: ["states:SendTaskSuccess", "states:SendTaskFailure"],
      resources: [resumableStateMachines(stage)],
    },
    resumeDurable(stage),
    // Is the run holding a busy session still waiting? (a wait ended outside Handraise frees the session)
    { actions: ["states:SendTaskHeartbeat"], resources: [resumableStateMachines(stage)] },
    describeRuns(stage),
    probeDurable(stage),
  ],
  ask: [
    { actions: LOGS, resources: ["AskLogGroup.Arn"] },
    { actions: QUESTION_ITEM_ACTIONS, resources: [TABLE] },
    // A retried AskUser task whose question was answered meanwhile is resumed with the stored outcome.
    {
      actions: ["states:SendTaskSuccess", "states:SendTaskFailure"],
      resources: [resumableStateMachines(stage)],
    },
    { actions: ["states:SendTaskHeartbeat"], resources: [resumableStateMachines(stage)] },
    // Whether the run that asked ended, once its token is dead (a retried task's earlier token is, too).
    describeRuns(stage),
    probeDurable(stage),
  ],
  telegramWebhook: [
    { actions: LOGS, resources: ["TelegramWebhookLogGroup.Arn"] },
    { actions: QUESTION_ITEM_ACTIONS, resources: [TABLE] },
    { actions: ["dynamodb:Query"], resources: [`${TABLE}/index/pendingByOwner`] },
    {
      actions: ["states:SendTaskSuccess", "states:SendTaskFailure"],
      resources: [resumableStateMachines(stage)],
    },
    describeRuns(stage),
    resumeDurable(stage),
  ],
  slackWebhook: [
    { actions: LOGS, resources: ["SlackWebhookLogGroup.Arn"] },
    { actions: QUESTION_ITEM_ACTIONS, resources: [TABLE] },
    { actions: ["dynamodb:Query"], resources: [`${TABLE}/index/pendingByOwner`] },
    {
      actions: ["states:SendTaskSuccess", "states:SendTaskFailure"],
      resources: [resumableStateMachines(stage)],
    },
    describeRuns(stage),
    resumeDurable(stage),
  ],
  discordWebhook: [
    { actions: LOGS, resources: ["DiscordWebhookLogGroup.Arn"] },
    { actions: QUESTION_ITEM_ACTIONS, resources: [TABLE] },
    { actions: ["dynamodb:Query"], resources: [`${TABLE}/index/pendingByOwner`] },
    {
      actions: ["states:SendTaskSuccess", "states:SendTaskFailure"],
      resources: [resumableStateMachines(stage)],
    },
    describeRuns(stage),
    resumeDurable(stage),
  ],
  mattermostWebhook: [
    { actions: LOGS, resources: ["MattermostWebhookLogGroup.Arn"] },
    { actions: QUESTION_ITEM_ACTIONS, resources: [TABLE] },
    { actions: ["dynamodb:Query"], resources: [`${TABLE}/index/pendingByOwner`] },
    {
      actions: ["states:SendTaskSuccess", "states:SendTaskFailure"],
      resources: [resumableStateMachines(stage)],
    },
    describeRuns(stage),
    resumeDurable(stage),
  ],
  whatsappWebhook: [
    { actions: LOGS, resources: ["WhatsappWebhookLogGroup.Arn"] },
    { actions: QUESTION_ITEM_ACTIONS, resources: [TABLE] },
    { actions: ["dynamodb:Query"], resources: [`${TABLE}/index/pendingByOwner`] },
    {
      actions: ["states:SendTaskSuccess", "states:SendTaskFailure"],
      resources: [resumableStateMachines(stage)],
    },
    describeRuns(stage),
    resumeDurable(stage),
  ],
  // No message-index writes: Teams has no command that posts a question again.
  teamsWebhook: [
    { actions: LOGS, resources: ["TeamsWebhookLogGroup.Arn"] },
    {
      actions: ["dynamodb:GetItem", "dynamodb:PutItem", "dynamodb:UpdateItem", "dynamodb:DeleteItem"],
      resources: [TABLE],
    },
    { actions: ["dynamodb:Query"], resources: [`${TABLE}/index/pendingByOwner`] },
    {
      actions: ["states:SendTaskSuccess", "states:SendTaskFailure"],
      resources: [resumableStateMachines(stage)],
    },
    describeRuns(stage),
    resumeDurable(stage),
  ],
  // No message-index writes: Google Chat has no command that posts a question again.
  gchatWebhook: [
    { actions: LOGS, resources: ["GchatWebhookLogGroup.Arn"] },
    {
      actions: ["dynamodb:GetItem", "dynamodb:PutItem", "dynamodb:UpdateItem", "dynamodb:DeleteItem"],
      resources: [TABLE],
    },
    { actions: ["dynamodb:Query"], resources: [`${TABLE}/index/pendingByOwner`] },
    {
      actions: ["states:SendTaskSuccess", "states:SendTaskFailure"],
      resources: [resumableStateMachines(stage)],
    },
    describeRuns(stage),
    resumeDurable(stage),
  ],
  answerPage: [
    { actions: LOGS, resources: ["AnswerPageLogGroup.Arn"] },
    {
      // The linked question and its closing write: question items only.
      actions: ["dynamodb:GetItem", "dynamodb:UpdateItem"],
      resources: [TABLE],
      condition: { "ForAllValues:StringLike": { "dynamodb:LeadingKeys": [`${keys.question("")}*`] } },
    },
    {
      actions: ["states:SendTaskSuccess", "states:SendTaskFailure"],
      resources: [resumableStateMachines(stage)],
    },
    describeRuns(stage),
    resumeDurable(stage),
  ],
  executionStatus: [
    { actions: LOGS, resources: ["ExecutionStatusLogGroup.Arn"] },
    { actions: ["dynamodb:GetItem", "dynamodb:UpdateItem"], resources: [TABLE] },
    { actions: ["dynamodb:Query"], resources: [`${TABLE}/index/pendingBySession`] },
    { actions: ["states:SendTaskFailure"], resources: [resumableStateMachines(stage)] },
    // An event it failed on every retry goes to its own dead-letter queue (its on-failure destination).
    { actions: ["sqs:SendMessage"], resources: ["ExecutionStatusDeadLetterQueue.Arn"] },
  ],
  questionEvents: [
    { actions: LOGS, resources: ["QuestionEventsLogGroup.Arn"] },
    {
      actions: [
        "dynamodb:GetRecords",
        "dynamodb:GetShardIterator",
        "dynamodb:DescribeStream",
        "dynamodb:ListStreams",
      ],
      resources: ["QuestionsTable.StreamArn"],
    },
    // Notes a resume that failed for good on the question; it reads no item and creates none.
    { actions: ["dynamodb:UpdateItem"], resources: [TABLE] },
    // A stream record that kept failing goes to the on-failure queue.
    { actions: ["sqs:SendMessage"], resources: ["QuestionEventsFailureQueue.Arn"] },
    // Question events, on the stack's own bus only.
    { actions: ["events:PutEvents"], resources: ["QuestionEventBus.Arn"] },
    // Each question's timers: schedules of the stack's group, run with the scheduler role and no other.
    { actions: ["scheduler:CreateSchedule", "scheduler:DeleteSchedule"], resources: [SCHEDULES] },
    {
      actions: ["iam:PassRole"],
      resources: [`${SCHEDULER_ROLE}.Arn`],
      condition: { StringEquals: { "iam:PassedToService": "scheduler.amazonaws.com" } },
    },
    {
      actions: ["states:SendTaskSuccess", "states:SendTaskFailure"],
      resources: [resumableStateMachines(stage)],
    },
    resumeDurable(stage),
  ],
  modelStep: [
    { actions: LOGS, resources: ["ModelStepLogGroup.Arn"] },
    {
      actions: ["dynamodb:GetItem", "dynamodb:PutItem"],
      resources: [TABLE],
      // Transcript items only (keys.transcript): never a question item, which holds a task token.
      condition: { "ForAllValues:StringLike": { "dynamodb:LeadingKeys": [`${keys.transcript("")}*`] } },
    },
    {
      // Closing a question whose wait ended outside Handraise: write-only, these attributes of question
      // items, nothing returned (so never a task token).
      actions: ["dynamodb:UpdateItem"],
      resources: [TABLE],
      condition: {
        "ForAllValues:StringLike": { "dynamodb:LeadingKeys": [`${keys.question("")}*`] },
        "ForAllValues:StringEquals": {
          "dynamodb:Attributes": [
            "pk",
            "status",
            "expiresAtMs",
            "resolvedAtMs",
            "reason",
            "resolvedBy",
            "ownerKey",
            "sessionIndexKey",
            "agentKey",
            "askerKey",
            "writeId",
          ],
        },
        StringEqualsIfExists: { "dynamodb:ReturnValues": ["NONE"] },
      },
    },
    INVOKE_BEDROCK_MODELS,
  ],
  mcp: [
    { actions: LOGS, resources: ["McpLogGroup.Arn"] },
    { actions: QUESTION_ITEM_ACTIONS, resources: [TABLE] },
    // cancel_question only fails a waiting run's callback; MCP questions themselves have no waiter.
    { actions: ["states:SendTaskFailure"], resources: [resumableStateMachines(stage)] },
    {
      actions: ["lambda:SendDurableExecutionCallbackFailure"],
      resources: [resumableDurableFunctions(stage)],
    },
  ],
  durableAgent: [
    { actions: LOGS, resources: ["DurableAgentLogGroup.Arn"] },
    {
      // The durable SDK's checkpoints, on this function's own executions only.
      actions: ["lambda:CheckpointDurableExecution", "lambda:GetDurableExecutionState"],
      resources: [
        `arn:AWS::Partition:lambda:AWS::Region:AWS::AccountId:function:handraise-${stage}-durableAgent:*/durable-execution/*/*`,
      ],
    },
    { actions: QUESTION_ITEM_ACTIONS, resources: [TABLE] },
    { actions: ["states:SendTaskHeartbeat"], resources: [resumableStateMachines(stage)] },
    probeDurable(stage),
    INVOKE_BEDROCK_MODELS,
  ],
  // The API's description: built from schemas, it reads nothing.
  openApi: [{ actions: LOGS, resources: ["OpenApiLogGroup.Arn"] }],
  notifier: [
    { actions: LOGS, resources: ["NotifierLogGroup.Arn"] },
    {
      actions: [
        "dynamodb:GetRecords",
        "dynamodb:GetShardIterator",
        "dynamodb:DescribeStream",
        "dynamodb:ListStreams",
      ],
      resources: ["QuestionsTable.StreamArn"],
    },
    {
      actions: ["sqs:SendMessage", "sqs:ReceiveMessage", "sqs:DeleteMessage", "sqs:GetQueueAttributes"],
      resources: ["NotifyQueue.Arn"],
    },
    {
      // Which notifications were taken (keys.notification): never a question item or its waiter.
      actions: ["dynamodb:GetItem", "dynamodb:PutItem"],
      resources: [TABLE],
      condition: { "ForAllValues:StringLike": { "dynamodb:LeadingKeys": [`${keys.notification("")}*`] } },
    },
    { actions: ["sqs:SendMessage"], resources: ["QuestionEventsFailureQueue.Arn"] },
  ],
  // Reads a question, closes it as expired, claims a fired reminder or escalation (Put, Delete to give it
  // back), records and indexes escalated copies (Update, BatchWrite). No Query, no Step Functions: the
  // expiry resumes no run (the AskUser task's own timeout does).
  questionTimer: [
    { actions: LOGS, resources: ["QuestionTimerLogGroup.Arn"] },
    { actions: QUESTION_ITEM_ACTIONS, resources: [TABLE] },
    // A timer it failed on every retry goes to the timers' dead-letter queue (its on-failure destination).
    { actions: ["sqs:SendMessage"], resources: ["QuestionTimerDeadLetterQueue.Arn"] },
  ],
  // EventBridge Scheduler may invoke the timer function and keep what it could not deliver in the timers'
  // dead-letter queue, and nothing else.
  [SCHEDULER_ROLE]: [
    { actions: ["lambda:InvokeFunction"], resources: ["QuestionTimerLambdaFunction.Arn"] },
    { actions: ["sqs:SendMessage"], resources: ["QuestionTimerDeadLetterQueue.Arn"] },
  ],
  AgentStateMachine: [
    {
      actions: ["lambda:InvokeFunction"],
      resources: [
        "ModelStepLambdaFunction.Arn",
        "ModelStepLambdaFunction.Arn:*",
        "AskLambdaFunction.Arn",
        "AskLambdaFunction.Arn:*",
      ],
    },
    { actions: LOG_DELIVERY, resources: ["*"] },
    { actions: XRAY_STATE_MACHINE, resources: ["*"] },
  ],
});

let template: CfnTemplate;
let subjects: Record<string, string>;
let IAM_TABLE: Record<string, IamRow[]>;
let agentName: string;

beforeAll(async () => {
  await ensurePackage();
  template = loadTemplate();
  subjects = {
    ...functionRoles(template),
    ...stateMachineRoles(template),
    ...serviceRoles(template, "scheduler.amazonaws.com"),
  };
  agentName = String(template.Resources.AgentStateMachine?.Properties?.StateMachineName);
  const stage = /^handraise-(.+)-agent$/.exec(agentName)?.[1];
  if (!stage) throw new Error(`unexpected agent state machine name ${agentName}`);
  IAM_TABLE = iamTable(stage);
}, 420_000);

describe("IAM roles of the packaged template", () => {
  it("allow each function and state machine exactly its row of the table", () => {
    expect(iamProblems(template, subjects, IAM_TABLE)).toEqual([]);
  });

  it(
    "with durable=on, give the durable agent a role of its own with exactly its row, and change no other role",
    async () => {
      const withDurable = loadTemplate(await packagedVariant(ALL_ON));
      const roles = {
        ...functionRoles(withDurable),
        ...stateMachineRoles(withDurable),
        ...serviceRoles(withDurable, "scheduler.amazonaws.com"),
      };
      expect(roles.durableAgent).toBe("DurableAgentRole");
      expect(trustedServices(withDurable, "DurableAgentRole")).toEqual(["lambda.amazonaws.com"]);
      const stage = /^handraise-(.+)-agent$/.exec(agentName)?.[1] ?? "";
      expect(iamProblems(withDurable, roles, iamTable(stage, [], undefined, { durable: true }))).toEqual([]);
      // Without it, no row and no role: the default package has neither (above).
      expect(subjects.durableAgent).toBeUndefined();
      expect(template.Resources.DurableAgentRole).toBeUndefined();
    },
    PACKAGE_TIMEOUT_MS,
  );

  it("with channels on, let each function read exactly its parameters; a webhook only its platform's", async () => {
    const channels = ["telegram", "slack", "discord", "mattermost", "teams", "whatsapp", "gchat"];
    const key = "arn:aws:kms:us-east-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab";
    // Each channel's required settings (its manifest's `params`): without them packaging stops.
    const settings = {
      discordApplicationId: "80351110224678912",
      discordPublicKey: "a".repeat(64),
      mattermostUrl: "https://chat.example.com",
      teamsAppId: "00000000-0000-0000-0000-000000000001",
      teamsTenantId: "example.onmicrosoft.com",
      whatsappPhoneNumberId: "106540352242922",
      googleChatProjectNumber: "123456789012",
    };
    const copy = await packageCopy(
      {},
      [
        `--param=channels=${channels.join(",")}`,
        `--param=secretsKmsKeyArn=${key}`,
        ...Object.entries(settings).map(([name, value]) => `--param=${name}=${value}`),
      ],
      { bundles: "reuse" },
    );
    try {
      const enabled = loadTemplate(copy.dir);
      const stage = /^handraise-(.+)-agent$/.exec(agentName)?.[1] ?? "";
      expect(iamProblems(enabled, subjects, iamTable(stage, channels, key))).toEqual([]);
      // The runtime reads what the role allows, no more: the code's own list of each function's secrets.
      for (const fn of Object.keys(SECRETS)) {
        expect(functionSecrets(fn as FunctionName, new Set(channels as ChannelName[])).sort(), fn).toEqual(
          secretsOf(fn, channels).sort(),
        );
      }
      // Only Telegram: the Slack webhook reads nothing, the Telegram webhook only Telegram's two secrets.
      const telegramOnly = await packageCopy({}, ["--param=channels=telegram"], { bundles: "reuse" });
      try {
        const only = loadTemplate(telegramOnly.dir);
        expect(iamProblems(only, subjects, iamTable(stage, ["telegram"]))).toEqual([]);
        expect(await cfnLint([copy.dir, telegramOnly.dir])).toBe("");
      } finally {
        telegramOnly.remove();
      }
    } finally {
      copy.remove();
    }
  }, 420_000);

  it("with e-mail on, let exactly the functions that deliver send mail, only from the configured sender", async () => {
    const from = "approvals@example.com";
    const copy = await packageCopy({}, ["--param=channels=email", `--param=emailFrom=${from}`], {
      bundles: "reuse",
    });
    try {
      const withEmail = loadTemplate(copy.dir);
      const sendMail = grant(
        "ses:SendEmail",
        "arn:AWS::Partition:ses:AWS::Region:AWS::AccountId:identity/*",
        { StringEquals: { "ses:FromAddress": from } },
      );
      const senders: Record<string, string[]> = {};
      for (const [fn, roleId] of Object.entries(functionRoles(withEmail))) {
        const ses = roleGrants(withEmail, roleId).grants.filter((g) => g.startsWith("ses:"));
        if (ses.length > 0) senders[fn] = ses;
      }
      expect(senders).toEqual({
        ask: [sendMail],
        questionsApi: [sendMail],
        mcp: [sendMail],
        questionTimer: [sendMail],
      });
      // E-mail is no secret: no function reads anything more than without it.
      expect(
        iamProblems(
          withEmail,
          subjects,
          iamTable(/^handraise-(.+)-agent$/.exec(agentName)?.[1] ?? "", []),
        ).filter((problem) => !problem.includes("ses:SendEmail")),
      ).toEqual([]);
      expect(await cfnLint([copy.dir])).toBe("");
    } finally {
      copy.remove();
    }
  }, 420_000);

  it("let only the question API and /mcp read the named API keys, by their path and nothing else", () => {
    const byPath = (fn: string) =>
      roleGrants(template, subjects[fn] ?? "").grants.filter((g) => g.startsWith("ssm:GetParametersByPath "));
    const stage = /^handraise-(.+)-agent$/.exec(agentName)?.[1] ?? "";
    const path = `arn:AWS::Partition:ssm:AWS::Region:AWS::AccountId:parameter/handraise/${stage}/api-keys`;
    expect(byPath("questionsApi")).toEqual([`ssm:GetParametersByPath on ${path}`]);
    expect(byPath("mcp")).toEqual([`ssm:GetParametersByPath on ${path}`]);
    for (const [fn, roleId] of Object.entries(subjects)) {
      const grants = roleGrants(template, roleId).grants;
      if (fn !== "questionsApi" && fn !== "mcp") {
        expect(
          grants.filter((g) => g.startsWith("ssm:GetParametersByPath ")),
          fn,
        ).toEqual([]);
      }
      // No role reads a key by name, nor anything else under the path.
      expect(
        grants.filter((g) => g.startsWith("ssm:") && g.includes("/api-keys/")),
        fn,
      ).toEqual([]);
    }
  });

  it("let an answer resume the agent's runs", () => {
    const prefix = "states:SendTaskSuccess on ";
    const resumable = roleGrants(template, subjects.questionsApi ?? "")
      .grants.filter((g) => g.startsWith(prefix))
      .map((g) => g.slice(prefix.length));
    const agentArn = `arn:AWS::Partition:states:AWS::Region:AWS::AccountId:stateMachine:${agentName}`;
    const matches = (pattern: string) =>
      new RegExp(`^${pattern.replace(/[.+?^${}()|[\]\\]/g, "\\$&").replaceAll("*", ".*")}$`).test(agentArn);
    expect(resumable.some(matches), `${resumable.join(", ")} should match ${agentArn}`).toBe(true);
  });

  it("run the question timers with a role only Scheduler assumes, for this stack's schedule group, that invokes one function and keeps dead letters in one queue", () => {
    expect(Object.keys(serviceRoles(template, "scheduler.amazonaws.com"))).toEqual([SCHEDULER_ROLE]);
    expect(trustedServices(template, SCHEDULER_ROLE)).toEqual(["scheduler.amazonaws.com"]);
    const trust = template.Resources[SCHEDULER_ROLE]?.Properties?.AssumeRolePolicyDocument as {
      Statement: { Condition?: unknown }[];
    };
    // Only this stack's schedule group may have Scheduler assume it (the confused-deputy guard).
    expect(trust.Statement.map((s) => s.Condition)).toEqual([
      {
        StringEquals: {
          "aws:SourceAccount": { Ref: "AWS::AccountId" },
          "aws:SourceArn": {
            "Fn::Sub":
              // biome-ignore lint/suspicious/noTemplateCurlyInString: a CloudFormation Fn::Sub string, not JavaScript's
              "arn:${AWS::Partition}:scheduler:${AWS::Region}:${AWS::AccountId}:schedule-group/${QuestionTimerScheduleGroup}",
          },
        },
      },
    ]);
    expect(roleGrants(template, SCHEDULER_ROLE).grants.sort()).toEqual([
      "lambda:InvokeFunction on QuestionTimerLambdaFunction.Arn",
      "sqs:SendMessage on QuestionTimerDeadLetterQueue.Arn",
    ]);
    // The schedules live in the stack's own group; the stream consumer is told which one, and the target.
    expect(template.Resources.QuestionTimerScheduleGroup).toMatchObject({
      Type: "AWS::Scheduler::ScheduleGroup",
      Properties: { Name: expect.stringMatching(/^handraise-/) },
    });
    const environment = template.Resources.QuestionEventsLambdaFunction?.Properties?.Environment as
      | { Variables: Record<string, unknown> }
      | undefined;
    const variables = environment?.Variables ?? {};
    expect(variables.HANDRAISE_SCHEDULE_GROUP).toEqual({ Ref: "QuestionTimerScheduleGroup" });
    expect(variables.HANDRAISE_TIMER_FUNCTION_ARN).toEqual({
      "Fn::GetAtt": ["QuestionTimerLambdaFunction", "Arn"],
    });
    expect(variables.HANDRAISE_TIMER_ROLE_ARN).toEqual({ "Fn::GetAtt": [SCHEDULER_ROLE, "Arn"] });
  });

  it("cover every role of the template: a function's, a state machine's or the scheduler's", () => {
    const covered = new Set(Object.values(subjects));
    const roles = Object.entries(template.Resources).filter(([, r]) => r.Type === "AWS::IAM::Role");
    expect(roles.map(([id]) => id).filter((id) => !covered.has(id))).toEqual([]);
  });

  it("give every function a role of its own, assumable by Lambda only", () => {
    const roles = Object.values(functionRoles(template));
    expect(new Set(roles).size).toBe(roles.length);
    for (const role of roles) expect(trustedServices(template, role)).toEqual(["lambda.amazonaws.com"]);
    // The framework's shared role would give every function the union of all permissions.
    expect(template.Resources.IamRoleLambdaExecution).toBeUndefined();
  });

  it("have no wildcard action, and a wildcard resource only where AWS requires one", () => {
    for (const [name, role] of Object.entries(subjects)) {
      for (const g of roleGrants(template, role).grants) {
        const [action = "", target = ""] = g.split(" on ");
        expect(action, `${name}: ${g}`).not.toContain("*");
        if (target.startsWith("*"))
          expect([...LOG_DELIVERY, ...XRAY_STATE_MACHINE], `${name}: ${g}`).toContain(action);
      }
    }
  });
});

describe("the IAM check itself", () => {
  const widen = (mutate: (statements: Record<string, unknown>[]) => void): CfnTemplate => {
    const copy = structuredClone(template);
    const policies = copy.Resources.AskRole?.Properties?.Policies as {
      PolicyDocument: { Statement: unknown[] };
    }[];
    mutate(policies.flatMap((policy) => policy.PolicyDocument.Statement.filter(isRecord)));
    return copy;
  };

  it("fails when a policy gains an action", () => {
    const widened = widen((statements) => {
      const items = statements.find((s) => s.Sid === "QuestionItems");
      if (!Array.isArray(items?.Action)) throw new Error("AskRole lost its QuestionItems statement");
      items.Action.push("dynamodb:Scan");
    });
    expect(iamProblems(widened, subjects, IAM_TABLE)).toEqual([
      "ask (AskRole) allows more: dynamodb:Scan on QuestionsTable.Arn",
    ]);
  });

  it("fails when a policy's resource becomes a wildcard", () => {
    const widened = widen((statements) => {
      const items = statements.find((s) => s.Sid === "QuestionItems");
      if (items) items.Resource = "*";
    });
    const problems = iamProblems(widened, subjects, IAM_TABLE);
    expect(problems).toContain("ask (AskRole) allows more: dynamodb:GetItem on *");
    expect(problems).toContain("ask (AskRole) lacks: dynamodb:GetItem on QuestionsTable.Arn");
  });

  it("fails when a role gets a managed policy or a function has no row", () => {
    const copy = structuredClone(template);
    const role = copy.Resources.AskRole;
    if (role?.Properties) role.Properties.ManagedPolicyArns = ["arn:aws:iam::aws:policy/AdministratorAccess"];
    expect(iamProblems(copy, subjects, IAM_TABLE)).toContain(
      'AskRole attaches managed policies ["arn:aws:iam::aws:policy/AdministratorAccess"]',
    );
    const { ask: _ask, ...withoutAsk } = IAM_TABLE;
    expect(iamProblems(template, subjects, withoutAsk)).toContain("ask has no row in the IAM table");
  });
});
