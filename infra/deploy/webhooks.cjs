/**
 * serverless.yml `functions` and `resources`: each chat channel's webhook, from its manifest
 * (lib/channels/<name>/manifest.json: `webhook` names the function, `webhookFunction` says the rest). A
 * channel that receives gets, with no line of serverless.yml:
 * - its function: the entry functions/<name>-webhook.ts, the route `/webhooks/<name>` for each of its
 *   `methods` (POST unless it says otherwise), its `timeout` if it needs another than the provider's;
 * - its role, the same for every webhook but for one choice the manifest makes: its log group; the table's
 *   question and routing items (Get, Put, Update, Delete; BatchWrite too when it `writesMessageIndex`, i.e.
 *   posts a question again or indexes a prompt's message); the pendingByOwner index, where a typed message
 *   finds its question; resuming the runs and durable executions its answers end;
 * - the stack output `<Function>Url`, its URL, described by `urlOutput`.
 * Its secret grants are infra/deploy/secret-access.cjs's, its reservation (`reservedConcurrency`, the default
 * of params.reservedConcurrency) infra/deploy/capacity.cjs's, its X-Ray grant infra/deploy/tracing.cjs's.
 *
 * `functions` is plain data (the local stack reads it too: infra/local/serverless-functions.ts); `resources`
 * is resolved by the Serverless Framework's `${file(...)}`: pure data in, CloudFormation out.
 */
"use strict";

const { existsSync } = require("node:fs");
const { join } = require("node:path");
const catalog = require("../secrets.json");
const { channelManifests } = require("./channels.cjs");
const { capitalized } = require("./deployment.cjs");

const ROOT = join(__dirname, "..", "..");
const METHODS = ["POST", "GET", "PUT", "PATCH", "DELETE"];
const FIELDS = ["$comment", "methods", "timeout", "writesMessageIndex", "reservedConcurrency", "urlOutput"];

/** `slackWebhook` → `slack-webhook` (its inline policy's name). */
const kebab = (name) => name.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`);

/**
 * The receiving channels' webhooks, checked: packaging stops on a manifest that leaves one out or gets one
 * wrong, rather than deploying a webhook without its route, role or reservation.
 * @returns {{channel: string, fn: string, entry: string, methods: string[], timeout?: number, writesMessageIndex: boolean, reservedConcurrency: number, urlOutput: string}[]}
 */
function webhooks(manifests = channelManifests()) {
  return manifests
    .filter((manifest) => manifest.webhook !== undefined || manifest.webhookFunction !== undefined)
    .map((manifest) => {
      const fn = manifest.webhook;
      const spec = manifest.webhookFunction;
      const problem = (text) => new Error(`the ${manifest.name} channel's manifest: ${text}`);
      if (typeof fn !== "string" || !/^[a-z][A-Za-z0-9]*$/.test(fn)) {
        throw problem(`"webhook" must name its function (e.g. "${manifest.name}Webhook")`);
      }
      if (spec === null || typeof spec !== "object") {
        throw problem(`"webhookFunction" must say how ${fn} deploys`);
      }
      // A misspelt field would otherwise deploy the default silently.
      const unknown = Object.keys(spec).filter((field) => !FIELDS.includes(field));
      if (unknown.length > 0) {
        throw problem(`webhookFunction has no field ${unknown.join(", ")} (${FIELDS.slice(1).join(", ")})`);
      }
      // Its row lists its secrets that are not the channel's (link-secret) and makes it a known function.
      if (!(fn in catalog.functions)) {
        throw problem(`${fn} has no row in infra/secrets.json "functions"`);
      }
      const entry = `functions/${manifest.name}-webhook`;
      if (!existsSync(join(ROOT, `${entry}.ts`))) throw problem(`${fn} has no entry ${entry}.ts`);
      const methods = spec.methods ?? ["POST"];
      if (
        !Array.isArray(methods) ||
        methods.length === 0 ||
        methods.some((method) => !METHODS.includes(method)) ||
        new Set(methods).size !== methods.length
      ) {
        throw problem(`webhookFunction.methods must list HTTP methods (${METHODS.join(", ")}), each once`);
      }
      if (spec.timeout !== undefined && !(Number.isInteger(spec.timeout) && spec.timeout >= 1)) {
        throw problem("webhookFunction.timeout must be a whole number of seconds");
      }
      if (typeof spec.writesMessageIndex !== "boolean") {
        throw problem("webhookFunction.writesMessageIndex must be true or false");
      }
      if (!(Number.isInteger(spec.reservedConcurrency) && spec.reservedConcurrency >= 1)) {
        throw problem("webhookFunction.reservedConcurrency must be a whole number of at least 1");
      }
      if (typeof spec.urlOutput !== "string" || spec.urlOutput.trim() === "") {
        throw problem("webhookFunction.urlOutput must describe its URL output");
      }
      return {
        channel: manifest.name,
        fn,
        entry,
        methods,
        ...(spec.timeout !== undefined && { timeout: spec.timeout }),
        writesMessageIndex: spec.writesMessageIndex,
        reservedConcurrency: spec.reservedConcurrency,
        urlOutput: spec.urlOutput,
      };
    });
}

/** serverless.yml `functions` entries, one per webhook. */
function webhookFunctions(list = webhooks()) {
  return Object.fromEntries(
    list.map((webhook) => [
      webhook.fn,
      {
        handler: `${webhook.entry}.handler`,
        role: `${capitalized(webhook.fn)}Role`,
        ...(webhook.timeout !== undefined && { timeout: webhook.timeout }),
        events: webhook.methods.map((method) => ({
          httpApi: { method, path: `/webhooks/${webhook.channel}` },
        })),
      },
    ]),
  );
}

/** Each webhook's default reservation (params.reservedConcurrency may name another). */
function webhookReservations(list = webhooks()) {
  return Object.fromEntries(list.map((webhook) => [webhook.fn, webhook.reservedConcurrency]));
}

const sub = (text) => ({ "Fn::Sub": text });

/**
 * The roles and outputs of the webhooks.
 * @param {{resumableStateMachines: string, resumableDurableFunctions: string}} settings
 */
function webhookResources({ resumableStateMachines, resumableDurableFunctions }, list = webhooks()) {
  const Resources = {};
  const Outputs = {};
  for (const webhook of list) {
    const name = capitalized(webhook.fn);
    Resources[`${name}Role`] = {
      Type: "AWS::IAM::Role",
      Properties: {
        AssumeRolePolicyDocument: {
          Version: "2012-10-17",
          Statement: [
            { Effect: "Allow", Principal: { Service: "lambda.amazonaws.com" }, Action: "sts:AssumeRole" },
          ],
        },
        Policies: [
          {
            PolicyName: kebab(webhook.fn),
            PolicyDocument: {
              Version: "2012-10-17",
              Statement: [
                {
                  Sid: "Logs",
                  Effect: "Allow",
                  Action: ["logs:CreateLogStream", "logs:PutLogEvents"],
                  Resource: { "Fn::GetAtt": [`${name}LogGroup`, "Arn"] },
                },
                // Route a control or a reply (Get of the message index and the question), dedupe the event
                // (conditional Put, Delete to give the claim back on failure), answer, skip or cancel
                // (conditional Update); a webhook that posts a question again, or indexes a prompt's
                // message, writes the message index (BatchWrite).
                {
                  Sid: "QuestionItems",
                  Effect: "Allow",
                  Action: [
                    "dynamodb:GetItem",
                    "dynamodb:PutItem",
                    "dynamodb:UpdateItem",
                    "dynamodb:DeleteItem",
                    ...(webhook.writesMessageIndex ? ["dynamodb:BatchWriteItem"] : []),
                  ],
                  Resource: { "Fn::GetAtt": ["QuestionsTable", "Arn"] },
                },
                // A typed message that names no question goes to the sender's oldest pending one there.
                {
                  Sid: "PendingByOwner",
                  Effect: "Allow",
                  Action: "dynamodb:Query",
                  Resource: sub(`\${QuestionsTable.Arn}/index/pendingByOwner`),
                },
                // Answer → SendTaskSuccess; skip or cancel → SendTaskFailure, on the runs that may be resumed
                // (params.resumableStateMachines), and the same for durable executions.
                {
                  Sid: "ResumeRuns",
                  Effect: "Allow",
                  Action: ["states:SendTaskSuccess", "states:SendTaskFailure"],
                  Resource: sub(
                    `arn:\${AWS::Partition}:states:\${AWS::Region}:\${AWS::AccountId}:stateMachine:${resumableStateMachines}`,
                  ),
                },
                // A run that no longer waits on a token: whether it has ended, before a person is told so (a
                // retried AskUser task's earlier token is dead while its run goes on).
                {
                  Sid: "DescribeRuns",
                  Effect: "Allow",
                  Action: "states:DescribeExecution",
                  Resource: sub(
                    `arn:\${AWS::Partition}:states:\${AWS::Region}:\${AWS::AccountId}:execution:${resumableStateMachines}:*`,
                  ),
                },
                {
                  Sid: "ResumeDurableExecutions",
                  Effect: "Allow",
                  Action: [
                    "lambda:SendDurableExecutionCallbackSuccess",
                    "lambda:SendDurableExecutionCallbackFailure",
                  ],
                  Resource: sub(
                    `arn:\${AWS::Partition}:lambda:\${AWS::Region}:\${AWS::AccountId}:function:${resumableDurableFunctions}`,
                  ),
                },
              ],
            },
          },
        ],
      },
    };
    Outputs[`${name}Url`] = {
      Description: webhook.urlOutput,
      Value: sub(`\${HttpApi.ApiEndpoint}/webhooks/${webhook.channel}`),
    };
  }
  return { Resources, Outputs };
}

module.exports = {
  functions: webhookFunctions(),
  resources: async ({ resolveVariable }) =>
    webhookResources({
      resumableStateMachines: await resolveVariable("param:resumableStateMachines"),
      resumableDurableFunctions: await resolveVariable("param:resumableDurableFunctions"),
    }),
  webhooks,
  webhookFunctions,
  webhookReservations,
  webhookResources,
};
