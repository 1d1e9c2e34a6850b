/**
 * serverless.yml `resources`: the questions table's encryption at rest. Without `params.tableKmsKeyArn`
 * DynamoDB's AWS owned key (nothing to manage); with it, that customer-managed key, and the stream consumer
 * (which reads the table's stream) may decrypt with it, only through DynamoDB. The key's own policy must let
 * DynamoDB use it in this account.
 */
"use strict";

function tableKey(kmsKeyArn) {
  if (!kmsKeyArn) return { Resources: {}, extensions: {} };
  return {
    Resources: {
      TableKeyPolicy: {
        Type: "AWS::IAM::Policy",
        Properties: {
          PolicyName: "table-key",
          Roles: [{ Ref: "QuestionEventsRole" }],
          PolicyDocument: {
            Version: "2012-10-17",
            Statement: [
              {
                Sid: "DecryptStream",
                Effect: "Allow",
                Action: "kms:Decrypt",
                Resource: kmsKeyArn,
                Condition: {
                  StringEquals: { "kms:ViaService": { "Fn::Sub": `dynamodb.\${AWS::Region}.amazonaws.com` } },
                },
              },
            ],
          },
        },
      },
    },
    extensions: {
      QuestionsTable: {
        Properties: { SSESpecification: { SSEEnabled: true, SSEType: "KMS", KMSMasterKeyId: kmsKeyArn } },
      },
    },
  };
}

module.exports = async ({ resolveVariable }) => tableKey(await resolveVariable("param:tableKmsKeyArn"));
module.exports.tableKey = tableKey;
