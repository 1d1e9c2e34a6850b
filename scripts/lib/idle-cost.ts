/**
 * What a deployed stack costs in a month in which nothing happens, from its packaged template: every resource
 * type is either priced here (alarms by the metrics they read, KMS keys, secrets, advanced parameters,
 * dashboards, the deployment bucket's artifacts) or named with the reason it costs nothing idle. A type this
 * file does not know stops the count, so nothing new is ever priced at zero by default. Prices: MONTHLY in
 * aws-prices.ts. Used by scripts/idle-cost.ts (`npm run cost:idle`) and test/template/idle-cost.test.ts.
 */
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { MONTHLY, PRICE } from "./aws-prices.ts";
import { type CfnResource, type CfnTemplate, isRecord, render, TEMPLATE_FILE } from "./cloudformation.ts";

/** The ceiling of the design: a default stack with no traffic costs at most this a month. */
export const IDLE_BUDGET_USD = 0.5;

/** How many deployments' artifacts osls keeps in the deployment bucket (its default). */
export const KEPT_DEPLOYMENTS = 5;

export interface IdleLine {
  item: string;
  quantity: string;
  usd: number;
  /** Why it costs what it costs (for a zero: what it would bill for, which does not happen while idle). */
  why: string;
}

export interface IdleCost {
  lines: IdleLine[];
  totalUsd: number;
  /** Idle costs the template does not let us count, estimated: shown, never in the total. */
  estimates: IdleLine[];
}

/**
 * Resource types that bill nothing while no request, event or message arrives, grouped as the table shows
 * them, each with what it does bill for.
 */
const FREE_WHILE_IDLE: { group: string; why: string; types: string[] }[] = [
  {
    group: "Lambda",
    why: "per request and GB-second of run time; no provisioned concurrency. A reservation is free",
    types: [
      "AWS::Lambda::Function",
      "AWS::Lambda::Version",
      "AWS::Lambda::Alias",
      "AWS::Lambda::Permission",
      "AWS::Lambda::EventInvokeConfig",
      "AWS::Lambda::EventSourceMapping",
    ],
  },
  {
    group: "DynamoDB on demand",
    why: "per request; storage and point-in-time recovery per GB stored, ≈ 0 for a table of pending questions. Lambda reads its stream free",
    types: ["AWS::DynamoDB::Table"],
  },
  {
    group: "SQS",
    why: "per request; a queue costs nothing to exist (one Lambda trigger polls: below)",
    types: ["AWS::SQS::Queue", "AWS::SQS::QueuePolicy"],
  },
  {
    group: "API Gateway HTTP API",
    why: "per request",
    types: [
      "AWS::ApiGatewayV2::Api",
      "AWS::ApiGatewayV2::Stage",
      "AWS::ApiGatewayV2::Integration",
      "AWS::ApiGatewayV2::Route",
    ],
  },
  {
    group: "Step Functions Standard",
    why: "per state transition; a waiting run makes none",
    types: ["AWS::StepFunctions::StateMachine"],
  },
  {
    group: "EventBridge",
    why: "per event put on a custom bus; rules are free",
    types: ["AWS::Events::Rule", "AWS::Events::EventBus"],
  },
  {
    group: "EventBridge Scheduler",
    why: "per schedule that fires (14 million a month free); groups are free",
    types: ["AWS::Scheduler::ScheduleGroup"],
  },
  {
    group: "CloudWatch Logs",
    why: "per GB ingested and stored. A metric filter is free, its metric billed only for the hours it is published",
    types: ["AWS::Logs::LogGroup", "AWS::Logs::MetricFilter"],
  },
  { group: "IAM", why: "free", types: ["AWS::IAM::Role", "AWS::IAM::Policy"] },
  { group: "S3 bucket policy", why: "free", types: ["AWS::S3::BucketPolicy"] },
];

/** The metrics an alarm reads, as CloudWatch bills them, and whether it is high resolution (under 60 s). */
export function alarmMetrics(id: string, alarm: CfnResource): { metrics: number; highResolution: boolean } {
  const props = alarm.Properties ?? {};
  const queries = Array.isArray(props.Metrics) ? props.Metrics.filter(isRecord) : undefined;
  if (queries === undefined) {
    return { metrics: 1, highResolution: Number(props.Period ?? 60) < 60 };
  }
  let metrics = 0;
  let highResolution = false;
  for (const query of queries) {
    const expression = typeof query.Expression === "string" ? query.Expression : "";
    if (/^\s*SELECT\b/i.test(expression)) {
      // Billed per metric the query matches at run time: nothing in the template says how many.
      throw new Error(`${id} is a Metrics Insights alarm: its cost cannot be counted from the template`);
    }
    // An anomaly detection band adds its model's two metrics (upper and lower).
    if (/ANOMALY_DETECTION_BAND/i.test(expression)) metrics += 2;
    const stat = isRecord(query.MetricStat) ? query.MetricStat : undefined;
    if (stat) {
      metrics += 1;
      if (Number(stat.Period ?? 60) < 60) highResolution = true;
    }
  }
  return { metrics, highResolution };
}

const usd = (n: number) => Math.round(n * 1e6) / 1e6;

/** What osls uploads to the deployment bucket for one deployment of the package in `dir`. */
export function artifactBytes(dir: string): number {
  return readdirSync(dir)
    .filter((name) => name.endsWith(".zip") || name === TEMPLATE_FILE || name === "serverless-state.json")
    .reduce((sum, name) => sum + statSync(join(dir, name)).size, 0);
}

/**
 * The idle cost of `template`. `artifactBytes`: the size of one deployment's upload (the package's zips and
 * templates), which the deployment bucket keeps for the last KEPT_DEPLOYMENTS deployments.
 */
export function idleCost(template: CfnTemplate, { artifactBytes }: { artifactBytes: number }): IdleCost {
  const byType = new Map<string, [string, CfnResource][]>();
  for (const entry of Object.entries(template.Resources)) {
    const list = byType.get(entry[1].Type) ?? [];
    list.push(entry);
    byType.set(entry[1].Type, list);
  }
  for (const [id, resource] of Object.entries(template.Resources)) {
    // Billed by the hour whether or not it is invoked: not counted here, so refused.
    if (resource.Properties?.ProvisionedConcurrencyConfig !== undefined) {
      throw new Error(`${id} has provisioned concurrency: add its price to scripts/lib/idle-cost.ts`);
    }
  }
  const take = (type: string) => {
    const found = byType.get(type) ?? [];
    byType.delete(type);
    return found;
  };
  const lines: IdleLine[] = [];

  // CloudWatch alarms: by the metrics they read.
  let standard = 0;
  let highResolution = 0;
  const alarms = take("AWS::CloudWatch::Alarm");
  for (const [id, alarm] of alarms) {
    const counted = alarmMetrics(id, alarm);
    if (counted.highResolution) highResolution += counted.metrics;
    else standard += counted.metrics;
  }
  lines.push({
    item: `CloudWatch alarm metrics, standard resolution (${alarms.length} alarms)`,
    quantity: String(standard),
    usd: usd(standard * MONTHLY.alarmMetricStandard),
    why: `$${MONTHLY.alarmMetricStandard.toFixed(2)} per metric an alarm reads (a metric math alarm: each of its metrics)`,
  });
  if (highResolution > 0) {
    lines.push({
      item: "CloudWatch alarm metrics, high resolution",
      quantity: String(highResolution),
      usd: usd(highResolution * MONTHLY.alarmMetricHighResolution),
      why: `$${MONTHLY.alarmMetricHighResolution.toFixed(2)} per metric`,
    });
  }
  const perResource = (type: string, item: string, price: number, why: string, count = take(type).length) => {
    if (count > 0) lines.push({ item, quantity: String(count), usd: usd(count * price), why });
  };
  perResource(
    "AWS::CloudWatch::CompositeAlarm",
    "CloudWatch composite alarms",
    MONTHLY.compositeAlarm,
    "per alarm",
  );
  perResource("AWS::CloudWatch::Dashboard", "CloudWatch dashboards", MONTHLY.dashboard, "per dashboard");
  perResource(
    "AWS::SecretsManager::Secret",
    "Secrets Manager secrets",
    MONTHLY.secretsManagerSecret,
    "per secret",
  );
  const keys = take("AWS::KMS::Key").length;
  lines.push({
    item: "KMS keys the stack creates",
    quantity: String(keys),
    usd: usd(keys * MONTHLY.kmsKey),
    why: `$${MONTHLY.kmsKey.toFixed(2)} per key; a key you pass (tableKmsKeyArn, secretsKmsKeyArn) is billed to you already`,
  });
  const parameters = take("AWS::SSM::Parameter");
  const advanced = parameters.filter(([, p]) => render(p.Properties?.Tier) === "Advanced").length;
  lines.push({
    item: "SSM advanced parameters in the template",
    quantity: String(advanced),
    usd: usd(advanced * MONTHLY.ssmAdvancedParameter),
    why: "the secrets are standard SecureStrings that `npm run secrets:put` creates outside the stack: free",
  });
  lines.push({
    item: "Custom metrics (the Handraise namespace; the metric filters')",
    quantity: "0 published",
    usd: 0,
    why: "billed per metric for each hour it receives data; nothing is published while nothing happens",
  });

  // The deployment bucket: the artifacts of the last deployments.
  const buckets = take("AWS::S3::Bucket").length;
  if (buckets > 0) {
    const gb = (artifactBytes * KEPT_DEPLOYMENTS) / 1024 ** 3;
    lines.push({
      item: `S3: deployment artifacts, last ${KEPT_DEPLOYMENTS} deployments of ${(artifactBytes / 1024 ** 2).toFixed(1)} MB`,
      quantity: `${gb.toFixed(3)} GB`,
      usd: usd(gb * MONTHLY.s3StandardGb),
      why: `$${MONTHLY.s3StandardGb.toFixed(3)} per GB-month (S3 Standard)`,
    });
  }

  // The lines of what costs nothing idle. Before, so the SQS estimate below can see the mappings.
  const mappings = byType.get("AWS::Lambda::EventSourceMapping") ?? [];
  for (const { group, why, types } of FREE_WHILE_IDLE) {
    const counts = types
      .map((type) => [type, take(type).length] as const)
      .filter(([, count]) => count > 0)
      .map(([type, count]) => `${count} ${type.split("::").at(-1)}`);
    if (counts.length > 0)
      lines.push({ item: `${group} (${counts.join(", ")})`, quantity: "—", usd: 0, why });
  }
  const unknown = [...byType.keys()];
  if (unknown.length > 0) {
    throw new Error(
      `no idle price for ${unknown.join(", ")}: add it to scripts/lib/idle-cost.ts (priced, or free while idle and why)`,
    );
  }

  // Lambda keeps long-polling (20 s) each queue it is triggered by. AWS documents that this bills empty
  // receives, not how many pollers it keeps: 15 a minute is what users report seeing on an idle queue.
  const estimates: IdleLine[] = [];
  const queueTriggers = mappings.filter(([, mapping]) => {
    const source = mapping.Properties?.EventSourceArn;
    const [queue] = isRecord(source) && Array.isArray(source["Fn::GetAtt"]) ? source["Fn::GetAtt"] : [];
    return typeof queue === "string" && template.Resources[queue]?.Type === "AWS::SQS::Queue";
  }).length;
  if (queueTriggers > 0) {
    const receives = queueTriggers * 15 * 60 * 24 * 30;
    estimates.push({
      item: `SQS empty receives of ${queueTriggers} Lambda trigger${queueTriggers === 1 ? "" : "s"} on a queue, ≈ 15 a minute each`,
      quantity: receives.toLocaleString("en-US"),
      usd: usd(receives * PRICE.sqsRequest),
      why: `$${(PRICE.sqsRequest * 1e6).toFixed(2)} per million requests beyond the first million a month, which are free`,
    });
  }

  const totalUsd = usd(lines.reduce((sum, line) => sum + line.usd, 0));
  return { lines, totalUsd, estimates };
}
