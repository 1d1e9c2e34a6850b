/**
 * serverless.yml `resources`: the CloudWatch alarms an operator of Handraise needs (docs/operating.md says
 * what to do on each). With `params.alarmTopicArn` they notify that SNS topic, when they fire and when they
 * clear. Missing data is "not breaching": a quiet deployment is a healthy one.
 */
"use strict";

const catalog = require("../secrets.json");

const capitalized = (name) => `${name.charAt(0).toUpperCase()}${name.slice(1)}`;

function alarms(topicArn) {
  const notify = topicArn ? { AlarmActions: [topicArn], OKActions: [topicArn] } : {};
  const alarm = (description, properties) => ({
    Type: "AWS::CloudWatch::Alarm",
    Properties: {
      AlarmDescription: description,
      TreatMissingData: "notBreaching",
      ComparisonOperator: "GreaterThanOrEqualToThreshold",
      EvaluationPeriods: 1,
      ...notify,
      ...properties,
    },
  });
  const Resources = {};
  for (const fn of Object.keys(catalog.functions)) {
    const FunctionName = { Ref: `${capitalized(fn)}LambdaFunction` };
    const metric = (MetricName) => ({
      Namespace: "AWS/Lambda",
      MetricName,
      Dimensions: [{ Name: "FunctionName", Value: FunctionName }],
      Statistic: "Sum",
      Period: 300,
      Threshold: 1,
    });
    Resources[`${capitalized(fn)}ErrorsAlarm`] = alarm(
      `Handraise ${fn}: an invocation failed (an unexpected error, a timeout or a crash). See its log group.`,
      metric("Errors"),
    );
    Resources[`${capitalized(fn)}ThrottlesAlarm`] = alarm(
      `Handraise ${fn}: invocations were throttled (reserved concurrency or the account limit reached).`,
      metric("Throttles"),
    );
  }
  Resources.QuestionEventsIteratorAgeAlarm = alarm(
    "Handraise questionEvents: the table's stream is falling behind (resumes and retiring are late).",
    {
      Namespace: "AWS/Lambda",
      MetricName: "IteratorAge",
      Dimensions: [{ Name: "FunctionName", Value: { Ref: "QuestionEventsLambdaFunction" } }],
      Statistic: "Maximum",
      Period: 60,
      EvaluationPeriods: 5,
      Threshold: 60000,
    },
  );
  Resources.QuestionEventsFailureQueueAlarm = alarm(
    "Handraise: a stream record failed every retry and went to the on-failure queue (a run may not have been resumed).",
    {
      Namespace: "AWS/SQS",
      MetricName: "ApproximateNumberOfMessagesVisible",
      Dimensions: [
        { Name: "QueueName", Value: { "Fn::GetAtt": ["QuestionEventsFailureQueue", "QueueName"] } },
      ],
      Statistic: "Maximum",
      Period: 300,
      Threshold: 1,
    },
  );
  Resources.NotifyDeadLetterQueueAlarm = alarm(
    "Handraise notifier: a notification's handling failed five times and went to the dead-letter queue (a receiver was not told a question ended).",
    {
      Namespace: "AWS/SQS",
      MetricName: "ApproximateNumberOfMessagesVisible",
      Dimensions: [{ Name: "QueueName", Value: { "Fn::GetAtt": ["NotifyDeadLetterQueue", "QueueName"] } }],
      Statistic: "Maximum",
      Period: 300,
      Threshold: 1,
    },
  );
  // One alarm for the asynchronous work's dead-letter queues (the question timer's, the run-status handler's):
  // the deepest of them, so a message in either fires it.
  const depth = (Id, queue) => ({
    Id,
    ReturnData: false,
    MetricStat: {
      Metric: {
        Namespace: "AWS/SQS",
        MetricName: "ApproximateNumberOfMessagesVisible",
        Dimensions: [{ Name: "QueueName", Value: { "Fn::GetAtt": [queue, "QueueName"] } }],
      },
      Period: 300,
      Stat: "Maximum",
    },
  });
  Resources.AsyncDeadLettersAlarm = alarm(
    "Handraise: a question timer or a run-status event failed every retry and was kept in its dead-letter queue (a question may not have expired, reminded, escalated or been cancelled).",
    {
      Threshold: 1,
      Metrics: [
        depth("timer", "QuestionTimerDeadLetterQueue"),
        depth("runStatus", "ExecutionStatusDeadLetterQueue"),
        { Id: "deadLetters", Expression: "MAX([timer, runStatus])", Label: "dead letters", ReturnData: true },
      ],
    },
  );
  Resources.ResumeAbandonedAlarm = alarm(
    "Handraise: a closed question's run could not be resumed and never will be (a final error, e.g. access denied).",
    {
      Namespace: "Handraise",
      MetricName: "ResumeAbandoned",
      Dimensions: [{ Name: "service", Value: "handraise" }],
      Statistic: "Sum",
      Period: 300,
      Threshold: 1,
    },
  );
  for (const [id, metric, what] of [
    ["AgentRunsFailedAlarm", "ExecutionsFailed", "failed"],
    ["AgentRunsTimedOutAlarm", "ExecutionsTimedOut", "timed out"],
  ]) {
    Resources[id] = alarm(`Handraise agent: a run ${what}. See its execution history.`, {
      Namespace: "AWS/States",
      MetricName: metric,
      Dimensions: [{ Name: "StateMachineArn", Value: { Ref: "AgentStateMachine" } }],
      Statistic: "Sum",
      Period: 300,
      Threshold: 1,
    });
  }
  // A share, not a count: a few 5xx among many requests is noise; 1 % of at least 20 requests is not.
  Resources.HttpApi5xxAlarm = alarm(
    "Handraise HTTP API: more than 1 % of requests failed with 5xx over 5 minutes (at least 20 requests).",
    {
      Threshold: 1,
      ComparisonOperator: "GreaterThanThreshold",
      Metrics: [
        {
          Id: "errors",
          ReturnData: false,
          MetricStat: {
            Metric: {
              Namespace: "AWS/ApiGateway",
              MetricName: "5xx",
              Dimensions: [{ Name: "ApiId", Value: { Ref: "HttpApi" } }],
            },
            Period: 300,
            Stat: "Sum",
          },
        },
        {
          Id: "requests",
          ReturnData: false,
          MetricStat: {
            Metric: {
              Namespace: "AWS/ApiGateway",
              MetricName: "Count",
              Dimensions: [{ Name: "ApiId", Value: { Ref: "HttpApi" } }],
            },
            Period: 300,
            Stat: "Sum",
          },
        },
        {
          Id: "share",
          Expression: "IF(requests >= 20, 100 * errors / requests, 0)",
          Label: "5xx %",
          ReturnData: true,
        },
      ],
    },
  );
  return { Resources };
}

module.exports = async ({ resolveVariable }) => alarms(await resolveVariable("param:alarmTopicArn"));
module.exports.alarms = alarms;
