/**
 * serverless.yml `resources`: what only the reference durable agent (functions/durable-agent.ts) needs —
 * its role, and the output naming the alias to start executions on —, present only with
 * `--param="durable=on"`. Lambda durable functions exist in some Regions only (docs/deploy.md lists them):
 * without the parameter the template has no durable function at all, so it deploys in every Region. The
 * function itself is declared in serverless.yml (`deploy: ${param:durable}`) and left out by
 * scripts/serverless-optional-functions.cjs; osls adds its version and `durable` alias with it.
 */
"use strict";

const { onOff } = require("./deployment.cjs");

const sub = (text) => ({ "Fn::Sub": text });

/** The AskUser task's and a durable ask's grace after a question's timeout (TIMEOUT_GRACE_SECONDS, lib/questions/schema.ts). */
const TIMEOUT_GRACE_SECONDS = 10;

/**
 * The longest question and its grace must fit in one durable execution: the durable ask caps a question at
 * the time its execution has left (lib/durable/ask-user.ts), and a deployment whose every long question would
 * be cut short is refused when it is packaged rather than found out in a run.
 * @param {number} maxTimeoutSeconds
 * @param {number} executionTimeoutSeconds
 */
function checkQuestionsFit(maxTimeoutSeconds, executionTimeoutSeconds) {
  const longest = maxTimeoutSeconds + TIMEOUT_GRACE_SECONDS;
  if (
    Number.isInteger(maxTimeoutSeconds) &&
    Number.isInteger(executionTimeoutSeconds) &&
    longest <= executionTimeoutSeconds
  ) {
    return;
  }
  throw new Error(
    `params.maxTimeoutSeconds (${maxTimeoutSeconds}) plus ${TIMEOUT_GRACE_SECONDS} s of grace must fit in params.durableExecutionTimeout (${executionTimeoutSeconds}) with durable=on: raise durableExecutionTimeout or lower maxTimeoutSeconds.`,
  );
}

/**
 * The resources and outputs for one deployment: none unless `durable` is on (then its questions must fit
 * in its executions: checkQuestionsFit).
 * @param {{durable: boolean, functionName: string, resumableStateMachines: string, resumableDurableFunctions: string, maxTimeoutSeconds: number, executionTimeoutSeconds: number}} settings
 */
function durableAgent({
  durable,
  functionName,
  resumableStateMachines,
  resumableDurableFunctions,
  maxTimeoutSeconds,
  executionTimeoutSeconds,
}) {
  if (!durable) return { Resources: {}, Outputs: {} };
  checkQuestionsFit(maxTimeoutSeconds, executionTimeoutSeconds);
  const stateMachines = sub(
    `arn:\${AWS::Partition}:states:\${AWS::Region}:\${AWS::AccountId}:stateMachine:${resumableStateMachines}`,
  );
  const durableFunctions = sub(
    `arn:\${AWS::Partition}:lambda:\${AWS::Region}:\${AWS::AccountId}:function:${resumableDurableFunctions}`,
  );
  const statements = [
    {
      Sid: "Logs",
      Effect: "Allow",
      Action: ["logs:CreateLogStream", "logs:PutLogEvents"],
      Resource: { "Fn::GetAtt": ["DurableAgentLogGroup", "Arn"] },
    },
    // The durable SDK checkpoints each step and callback, and reads the state back on replay.
    {
      Sid: "DurableExecution",
      Effect: "Allow",
      Action: ["lambda:CheckpointDurableExecution", "lambda:GetDurableExecutionState"],
      Resource: sub(
        `arn:\${AWS::Partition}:lambda:\${AWS::Region}:\${AWS::AccountId}:function:${functionName}:*/durable-execution/*/*`,
      ),
    },
    // As the ask task's role: create and deliver the question under the callback id.
    {
      Sid: "QuestionItems",
      Effect: "Allow",
      Action: [
        "dynamodb:GetItem",
        "dynamodb:PutItem",
        "dynamodb:UpdateItem",
        "dynamodb:DeleteItem",
        "dynamodb:BatchWriteItem",
      ],
      Resource: { "Fn::GetAtt": ["QuestionsTable", "Arn"] },
    },
    // Whether the run holding the session's slot still waits (as the question API's role).
    { Sid: "ProbeWaits", Effect: "Allow", Action: "states:SendTaskHeartbeat", Resource: stateMachines },
    {
      Sid: "ProbeDurableWaits",
      Effect: "Allow",
      Action: "lambda:SendDurableExecutionCallbackHeartbeat",
      Resource: durableFunctions,
    },
    // As the model step's role: the model its input names (model API keys: `models/*` in infra/secrets.json).
    {
      Sid: "InvokeBedrockModels",
      Effect: "Allow",
      Action: "bedrock:InvokeModel",
      Resource: [
        sub(`arn:\${AWS::Partition}:bedrock:*::foundation-model/*`),
        sub(`arn:\${AWS::Partition}:bedrock:*:\${AWS::AccountId}:inference-profile/*`),
      ],
    },
    // X-Ray, as every function's (serverless.yml TracingPolicy); AWS offers no resource to scope it to.
    {
      Sid: "Traces",
      Effect: "Allow",
      Action: ["xray:PutTraceSegments", "xray:PutTelemetryRecords"],
      Resource: "*",
    },
  ];
  return {
    Resources: {
      DurableAgentRole: {
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
              PolicyName: "durable-agent",
              PolicyDocument: { Version: "2012-10-17", Statement: statements },
            },
          ],
        },
      },
    },
    Outputs: {
      DurableAgentAliasArn: {
        Description:
          "The durable agent's alias: start its executions on it (Lambda Invoke, InvocationType Event)",
        Value: { Ref: "DurableAgentDurableLambdaAlias" },
      },
    },
  };
}

module.exports = async ({ resolveVariable }) => {
  const service = await resolveVariable("self:service");
  const stage = await resolveVariable("sls:stage");
  return durableAgent({
    durable: onOff("params.durable", await resolveVariable("param:durable")),
    functionName: `${service}-${stage}-durableAgent`,
    resumableStateMachines: await resolveVariable("param:resumableStateMachines"),
    resumableDurableFunctions: await resolveVariable("param:resumableDurableFunctions"),
    maxTimeoutSeconds: Number(await resolveVariable("param:maxTimeoutSeconds")),
    executionTimeoutSeconds: Number(await resolveVariable("param:durableExecutionTimeout")),
  });
};
module.exports.durableAgent = durableAgent;
module.exports.TIMEOUT_GRACE_SECONDS = TIMEOUT_GRACE_SECONDS;
