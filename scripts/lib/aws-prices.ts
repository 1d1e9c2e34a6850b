/**
 * On-demand prices, us-east-1 (AWS's published price lists), and the Lambda durations the cost figures
 * assume. Shared by scripts/question-cost.ts and the benchmark (bench/cost.ts), so both price a
 * question the same way, and by scripts/idle-cost.ts (MONTHLY, below) for what a stack costs doing nothing.
 */
export const PRICE = {
  /** Step Functions Standard, per state transition. */
  transition: 0.025 / 1000,
  lambdaRequest: 0.2 / 1e6,
  lambdaGbSecondArm: 0.0000133334,
  writeUnit: 0.625 / 1e6,
  readUnit: 0.125 / 1e6,
  httpApiRequest: 1.0 / 1e6,
  /**
   * EventBridge Scheduler, per schedule that fires (an invocation): $1.00 per million after the first 14
   * million of each month, which are free — priced here as if past them. Creating and deleting schedules
   * (CreateSchedule, DeleteSchedule) is not billed: the price list has no usage type for API calls.
   */
  schedulerInvocation: 1.0 / 1e6,
  /**
   * Lambda durable functions, per durable operation: a secondary-source figure (docs/outside.md), not from
   * AWS's price list API.
   */
  durableOperation: 8.0 / 1e6,
  /** SQS standard queue, per request (an empty receive is one), after the first million of each month. */
  sqsRequest: 0.4 / 1e6,
};

/**
 * What bills by the month whether or not anything happens, us-east-1 list prices, before any free tier (the
 * free tiers are per account, shared with everything else in it): scripts/lib/idle-cost.ts.
 */
export const MONTHLY = {
  /**
   * CloudWatch, per alarm metric: an alarm on one metric is one, a metric math alarm one per metric it reads
   * (AWS's CloudWatch billing guide, "Optimizing and reducing costs of CloudWatch alarms").
   */
  alarmMetricStandard: 0.1,
  /** The same, for an alarm with a period under 60 s. */
  alarmMetricHighResolution: 0.3,
  compositeAlarm: 0.5,
  dashboard: 3.0,
  /** A customer managed KMS key the stack creates (a key ARN passed as a parameter is not the stack's). */
  kmsKey: 1.0,
  secretsManagerSecret: 0.4,
  /** SSM Parameter Store, per advanced parameter (standard ones are free). */
  ssmAdvancedParameter: 0.05,
  /** S3 Standard storage, per GB: the deployment bucket keeps the artifacts of the last deployments. */
  s3StandardGb: 0.023,
};

/**
 * Billed duration per invocation, warm, without the model's own latency: assumptions, not measurements.
 * The ask and answer paths each make one chat-platform API call (post the prompt; retire the buttons).
 */
export const ASSUMED_MS = {
  modelStep: 100,
  ask: 300,
  answer: 200,
  /** The timer function closing an expired question (a read and a conditional write). */
  timerExpire: 100,
  /** The timer function posting a reminder (a read, a claim and one chat API call per chat). */
  timerRemind: 300,
  /** The stream consumer's extra time per CreateSchedule or DeleteSchedule call it makes. */
  schedulerCall: 20,
};
