/**
 * infra/deploy/secret-access.cjs adds each enabled channel's AWS permissions (its manifest's `permissions`) to
 * the policies of the functions that read for it, resolving the deployment parameters they name.
 */
import { createRequire } from "node:module";
import { describe, expect, it } from "vitest";

const { secretAccess } = createRequire(import.meta.url)("../../../infra/deploy/secret-access.cjs") as {
  secretAccess: (settings: {
    channels: string;
    ssmPrefix: string;
    kmsKeyArn: string;
    params?: Record<string, string>;
  }) => { Resources: Record<string, { Properties: { PolicyDocument: { Statement: { Sid: string }[] } } }> };
};

const statementsOf = (resources: ReturnType<typeof secretAccess>["Resources"], sid: string) =>
  Object.entries(resources)
    .filter(([, policy]) => policy.Properties.PolicyDocument.Statement.some((s) => s.Sid === sid))
    .map(([id]) => id)
    .sort();

describe("channel permissions in the deployment's policies", () => {
  it("e-mail on: the delivering functions may send from the configured sender", () => {
    const { Resources } = secretAccess({
      channels: "email",
      ssmPrefix: "/handraise/test",
      kmsKeyArn: "",
      params: { emailFrom: "approvals@example.com" },
    });
    expect(statementsOf(Resources, "SendMail")).toEqual([
      "AskSecretsPolicy",
      "McpSecretsPolicy",
      "QuestionTimerSecretsPolicy",
      "QuestionsApiSecretsPolicy",
    ]);
    const statement = Resources.AskSecretsPolicy?.Properties.PolicyDocument.Statement.find(
      (s) => s.Sid === "SendMail",
    );
    expect(statement).toEqual({
      Sid: "SendMail",
      Effect: "Allow",
      Action: "ses:SendEmail",
      // biome-ignore lint/suspicious/noTemplateCurlyInString: a CloudFormation Fn::Sub string, not JavaScript's
      Resource: { "Fn::Sub": "arn:${AWS::Partition}:ses:${AWS::Region}:${AWS::AccountId}:identity/*" },
      Condition: { StringEquals: { "ses:FromAddress": "approvals@example.com" } },
    });
  });

  it("e-mail off: nobody may send mail, whatever the sender parameter says", () => {
    const { Resources } = secretAccess({
      channels: "telegram",
      ssmPrefix: "/handraise/test",
      kmsKeyArn: "",
      params: { emailFrom: "approvals@example.com" },
    });
    expect(statementsOf(Resources, "SendMail")).toEqual([]);
  });

  it("e-mail on without a sender stops packaging, naming the parameter", () => {
    expect(() =>
      secretAccess({
        channels: "email",
        ssmPrefix: "/handraise/test",
        kmsKeyArn: "",
        params: { emailFrom: "" },
      }),
    ).toThrow("params.emailFrom is required while its channel is on");
  });
});
