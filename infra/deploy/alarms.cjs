/**
 * serverless.yml `resources`: the CloudWatch alarms an operator of Handraise needs (docs/operating.md says
 * what to do on each). With `params.alarmTopicArn` they notify that SNS topic, when they fire and when they
 * clear. Missing data is "not breaching": a quiet deployment is a healthy one.
 *
 * CloudWatch bills an alarm by the metrics it reads ($0.10 a month each at standard resolution; a metric math
 * alarm once per metric in it), whether or not anything happens. So by default (`alarms=standard`) two
 * alarms read four metrics between them ($0.40 a month) and still see every failure:
 * - ProblemsAlarm reads one metric, Handraise/Problems, which CloudWatch Logs metric filters publish from the
 *   stack's own log groups: every function's ERROR lines and the Lambda runtime's lines for an invocation that
 *   failed (an uncaught error, a timeout, a crash), each 5xx of the HTTP API (a function throttled behind a
 *   route answers 500), and each agent run that failed or timed out. A metric filter costs nothing, and its
 *   metric is billed only for the hours it is published. A notification lands in the notify dead-letter
 *   queue after five receives without success, each one an ERROR line of the notifier, which raises this
 *   alarm at the first (unless the notifier was throttled each time: a throttle logs nothing).
 * - DeadLettersAlarm reads the depth of the three dead-letter queues that can fill without a line in any log
 *   (a stream record too old, a timer or a run-status event Scheduler or EventBridge could not deliver), by
 *   metric math: the deepest of them.
 * `--param="alarms=full"` deploys the per-function set instead (44 metrics, 46 with the durable agent).
 */
"use strict";

const { alarmSet, capitalized, deployedFunctions, onOff } = require("./deployment.cjs");

/**
 * The dead-letter queues the standard set watches by depth: the stream consumers' (a record that failed every
 * retry, or grew older than an hour), the timers' and the run-status handler's: what reaches them may have
 * left no line in any log. The fourth, the notifier's, fills only after the notifier logged a failure five
 * times (above), so a fifth metric would mostly repeat ProblemsAlarm at $0.10 a month.
 */
const WATCHED_DEAD_LETTER_QUEUES = {
  streamFailures: "QuestionEventsFailureQueue",
  timer: "QuestionTimerDeadLetterQueue",
  runStatus: "ExecutionStatusDeadLetterQueue",
};

/** The metric the standard set's metric filters publish to (no dimensions: one metric, one alarm metric). */
const PROBLEMS = { namespace: "Handraise", name: "Problems" };

/**
 * The Lambda runtime's own lines for an invocation that failed, which no code of ours gets to log: an error
 * the handler threw or rejected with (Node.js: "Invoke Error", "Uncaught Exception", "Unhandled Promise
 * Rejection"), a timeout, an execution environment that died. A text pattern: these lines are not JSON.
 */
const RUNTIME_FAILURES =
  '?"Invoke Error" ?"Uncaught Exception" ?"Unhandled Promise Rejection" ?"Task timed out" ?"Runtime exited"';

/** The queue's depth, as one metric of a metric math alarm. */
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

const problemsFilter = (logGroup, FilterPattern) => ({
  Type: "AWS::Logs::MetricFilter",
  Properties: {
    LogGroupName: { Ref: logGroup },
    FilterPattern,
    // No DefaultValue: nothing is published while nothing matches, so an idle stack pays nothing for it.
    MetricTransformations: [
      { MetricNamespace: PROBLEMS.namespace, MetricName: PROBLEMS.name, MetricValue: "1", Unit: "Count" },
    ],
  },
});

/** The default set: two alarms, four alarm metrics. */
function standardAlarms(alarm, functions) {
  const Resources = {};
  for (const fn of functions) {
    const logGroup = `${capitalized(fn)}LogGroup`;
    Resources[`${capitalized(fn)}ErrorLinesFilter`] = problemsFilter(logGroup, '{ $.level = "ERROR" }');
    Resources[`${capitalized(fn)}FailedInvocationsFilter`] = problemsFilter(logGroup, RUNTIME_FAILURES);
  }
  // The access log's status is the one API Gateway answered with, so a throttled function shows as its 500.
  // It is written as a string ("$context.status"): a wildcard matches it, as for an IP address.
  Resources.HttpApi5xxFilter = problemsFilter("HttpApiLogGroup", "{ $.status = 5* }");
  // The agent state machine logs at level ERROR (serverless.yml), which includes each run that ends badly.
  Resources.AgentRunsFailedFilter = problemsFilter(
    "AgentStateMachineLogGroup",
    '{ ($.type = "ExecutionFailed") || ($.type = "ExecutionTimedOut") }',
  );
  Resources.ProblemsAlarm = alarm(
    'Handraise: something failed — an ERROR line or a failed invocation (error, timeout, crash) of a function (a notification that keeps failing included), a 5xx of the HTTP API (a function throttled behind a route included), or an agent run that failed or timed out. Search the stack\'s log groups for ERROR, "Task timed out" and status 5xx (docs/operating.md).',
    {
      Namespace: PROBLEMS.namespace,
      MetricName: PROBLEMS.name,
      Statistic: "Sum",
      Period: 300,
      Threshold: 1,
    },
  );
  const queries = Object.entries(WATCHED_DEAD_LETTER_QUEUES).map(([id, queue]) => depth(id, queue));
  Resources.DeadLettersAlarm = alarm(
    "Handraise: something was kept in a dead-letter queue — a stream record that failed every retry or grew older than an hour (a run may not have been resumed), or a question timer or run-status event that could not be handled or delivered (docs/operating.md, Dead letters).",
    {
      Threshold: 1,
      Metrics: [
        ...queries,
        {
          Id: "deadLetters",
          Expression: `MAX([${queries.map((query) => query.Id).join(", ")}])`,
          Label: "dead letters",
          ReturnData: true,
        },
      ],
    },
  );
  return Resources;
}

/** Today's per-function set (`alarms=full`): each function's errors and throttles, and one alarm per other signal. */
function fullAlarms(alarm, functions) {
  const Resources = {};
  for (const fn of functions) {
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
  return Resources;
}

/**
 * The alarms (and the standard set's metric filters) for one deployment.
 * @param {{topicArn: string, set: "standard" | "full", durable: boolean}} settings
 */
function alarms({ topicArn, set, durable }) {
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
  const functions = deployedFunctions(durable);
  return { Resources: set === "full" ? fullAlarms(alarm, functions) : standardAlarms(alarm, functions) };
}

module.exports = async ({ resolveVariable }) =>
  alarms({
    topicArn: await resolveVariable("param:alarmTopicArn"),
    set: alarmSet(await resolveVariable("param:alarms")),
    durable: onOff("params.durable", await resolveVariable("param:durable")),
  });
module.exports.alarms = alarms;
module.exports.WATCHED_DEAD_LETTER_QUEUES = WATCHED_DEAD_LETTER_QUEUES;
