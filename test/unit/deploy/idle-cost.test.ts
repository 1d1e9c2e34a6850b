/**
 * The rules of scripts/lib/idle-cost.ts on small templates: an alarm is billed by the metrics it reads, a
 * type the script does not know stops it, and what cannot be counted from a template is refused or kept out
 * of the total. (test/template/idle-cost.test.ts prices the packaged templates.)
 */
import { describe, expect, it } from "vitest";
import { MONTHLY } from "../../../scripts/lib/aws-prices.ts";
import type { CfnResource, CfnTemplate } from "../../../scripts/lib/cloudformation.ts";
import { alarmMetrics, idleCost } from "../../../scripts/lib/idle-cost.ts";

const metric = (Id: string, Period = 300) => ({
  Id,
  ReturnData: false,
  MetricStat: { Metric: { Namespace: "AWS/SQS", MetricName: "ApproximateNumberOfMessagesVisible" }, Period },
});
const alarm = (Properties: Record<string, unknown>): CfnResource => ({
  Type: "AWS::CloudWatch::Alarm",
  Properties,
});
const templateOf = (Resources: Record<string, CfnResource>): CfnTemplate => ({ Resources });

describe("idle cost", () => {
  it("counts a single-metric alarm as one metric and a metric math alarm as each metric it reads", () => {
    expect(alarmMetrics("A", alarm({ MetricName: "Errors", Period: 300 }))).toEqual({
      metrics: 1,
      highResolution: false,
    });
    const math = alarm({
      Metrics: [metric("a"), metric("b"), metric("c"), { Id: "max", Expression: "MAX([a, b, c])" }],
    });
    expect(alarmMetrics("B", math)).toEqual({ metrics: 3, highResolution: false });
    expect(alarmMetrics("C", alarm({ MetricName: "Errors", Period: 10 }))).toEqual({
      metrics: 1,
      highResolution: true,
    });
    expect(
      alarmMetrics(
        "D",
        alarm({ Metrics: [metric("m"), { Id: "ad", Expression: "ANOMALY_DETECTION_BAND(m)" }] }),
      ).metrics,
    ).toBe(3);
  });

  it("prices the alarms' metrics and the deployment bucket's artifacts, and sums them", () => {
    const cost = idleCost(
      templateOf({
        One: alarm({ MetricName: "Errors", Period: 300 }),
        Math: alarm({ Metrics: [metric("a"), metric("b"), { Id: "e", Expression: "MAX([a, b])" }] }),
        HighResolution: alarm({ MetricName: "Errors", Period: 10 }),
        Bucket: { Type: "AWS::S3::Bucket" },
        Role: { Type: "AWS::IAM::Role" },
      }),
      { artifactBytes: 1024 ** 3 / 5 },
    );
    const line = (start: string) => cost.lines.find((l) => l.item.startsWith(start));
    expect(line("CloudWatch alarm metrics, standard")?.quantity).toBe("3");
    expect(line("CloudWatch alarm metrics, high")?.usd).toBeCloseTo(MONTHLY.alarmMetricHighResolution);
    // Five kept deployments of a fifth of a GB each: one GB.
    expect(line("S3: deployment artifacts")?.usd).toBeCloseTo(MONTHLY.s3StandardGb);
    expect(line("IAM")?.usd).toBe(0);
    expect(cost.totalUsd).toBeCloseTo(
      3 * MONTHLY.alarmMetricStandard + MONTHLY.alarmMetricHighResolution + MONTHLY.s3StandardGb,
    );
  });

  it("refuses a resource type it has no price or reason for, a Metrics Insights alarm and provisioned concurrency", () => {
    expect(() =>
      idleCost(templateOf({ Db: { Type: "AWS::RDS::DBInstance" } }), { artifactBytes: 0 }),
    ).toThrow("no idle price for AWS::RDS::DBInstance");
    const insights = alarm({
      Metrics: [{ Id: "q", Expression: 'SELECT MAX(ApproximateNumberOfMessagesVisible) FROM "AWS/SQS"' }],
    });
    expect(() => idleCost(templateOf({ Insights: insights }), { artifactBytes: 0 })).toThrow(
      "Metrics Insights",
    );
    const alias: CfnResource = {
      Type: "AWS::Lambda::Alias",
      Properties: { ProvisionedConcurrencyConfig: { ProvisionedConcurrentExecutions: 1 } },
    };
    expect(() => idleCost(templateOf({ Alias: alias }), { artifactBytes: 0 })).toThrow(
      "provisioned concurrency",
    );
  });

  it("estimates the empty receives of a Lambda queue trigger, outside the total", () => {
    const cost = idleCost(
      templateOf({
        Queue: { Type: "AWS::SQS::Queue" },
        Trigger: {
          Type: "AWS::Lambda::EventSourceMapping",
          Properties: { EventSourceArn: { "Fn::GetAtt": ["Queue", "Arn"] } },
        },
      }),
      { artifactBytes: 0 },
    );
    expect(cost.totalUsd).toBe(0);
    expect(cost.estimates).toHaveLength(1);
    expect(cost.estimates[0]?.usd).toBeGreaterThan(0);
  });
});
