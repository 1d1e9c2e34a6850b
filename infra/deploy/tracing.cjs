/**
 * serverless.yml `resources`: X-Ray. Every function traces its invocations and its AWS SDK calls
 * (provider.tracing), so its role may send traces: one policy on the role of each function of
 * infra/secrets.json (`<Function>Role`, the webhooks' included). AWS offers no resource to scope these
 * actions to. The durable agent's role (infra/deploy/durable-agent.cjs), deployed only with durable=on,
 * carries the same statement itself.
 */
"use strict";

const { capitalized, deployedFunctions } = require("./deployment.cjs");

function tracing() {
  return {
    Resources: {
      TracingPolicy: {
        Type: "AWS::IAM::Policy",
        Properties: {
          PolicyName: "xray-traces",
          // Every function but the durable agent, whose own role holds the statement.
          Roles: deployedFunctions(false).map((fn) => ({ Ref: `${capitalized(fn)}Role` })),
          PolicyDocument: {
            Version: "2012-10-17",
            Statement: [
              {
                Sid: "Traces",
                Effect: "Allow",
                Action: ["xray:PutTraceSegments", "xray:PutTelemetryRecords"],
                Resource: "*",
              },
            ],
          },
        },
      },
    },
  };
}

module.exports = () => tracing();
module.exports.tracing = tracing;
