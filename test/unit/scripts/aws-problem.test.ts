/**
 * The one line a script prints when an AWS call fails (scripts/lib/aws-problem.ts): what is wrong and what to
 * set, for each kind of failure the SDK reports. The SDK's own errors are built here as it builds them (its
 * names, messages, codes and `$metadata`); test/integration/secrets-put.test.ts makes the real ones.
 */
import { describe, expect, it } from "vitest";
import { awsProblem } from "../../../scripts/lib/aws-problem.ts";

const sdkError = (name: string, message: string, extra: Record<string, unknown> = {}) =>
  Object.assign(new Error(message), { name, ...extra });
const refused = (name: string, message: string) =>
  sdkError(name, message, { $metadata: { httpStatusCode: 400 } });

describe("awsProblem", () => {
  it("no credentials: names AWS_PROFILE and the access key variables, and AWS_REGION when none was resolved", () => {
    const error = sdkError("CredentialsProviderError", "Could not load credentials from any providers");
    expect(awsProblem(error, { service: "SSM", region: "eu-west-1", env: {} })).toBe(
      'no AWS credentials found: set AWS_PROFILE to a profile of ~/.aws/config (after "aws sso login" for an SSO profile), or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY.',
    );
    expect(awsProblem(error, { service: "SSM", env: {} })).toMatch(/; and AWS_REGION \(or --region\)\.$/);
    expect(awsProblem(error, { service: "SSM", region: "eu-west-1", env: { AWS_PROFILE: "ops" } })).toMatch(
      /^no AWS credentials for the profile "ops" \(AWS_PROFILE\): .*aws sso login --profile ops/,
    );
  });

  it("no region: AWS_REGION or --region, naming the profile when one is set", () => {
    const error = new Error("Region is missing");
    expect(awsProblem(error, { service: "SSM", env: {} })).toContain("set AWS_REGION or pass --region");
    expect(awsProblem(error, { service: "SSM", env: { AWS_PROFILE: "ops" } })).toContain(
      'give the profile "ops" (AWS_PROFILE) a region',
    );
  });

  it("unreachable: the endpoint and the variable that set it, or the region", () => {
    const error = sdkError("Error", "connect ECONNREFUSED 127.0.0.1:9", { code: "ECONNREFUSED" });
    expect(awsProblem(error, { service: "SSM", env: { AWS_ENDPOINT_URL_SSM: "http://127.0.0.1:9" } })).toBe(
      "could not reach SSM at http://127.0.0.1:9 (ECONNREFUSED): check AWS_ENDPOINT_URL_SSM, or unset it to use AWS.",
    );
    expect(awsProblem(error, { service: "SSM", env: { AWS_ENDPOINT_URL: "http://127.0.0.1:9" } })).toContain(
      "check AWS_ENDPOINT_URL,",
    );
    const lost = sdkError("Error", "getaddrinfo ENOTFOUND ssm.eu-west-1.amazonaws.com", {
      code: "ENOTFOUND",
    });
    expect(awsProblem(lost, { service: "SSM", region: "eu-west-1", env: {} })).toBe(
      "could not reach SSM in eu-west-1 (ENOTFOUND): check the network and AWS_REGION.",
    );
  });

  it("refused credentials and other refusals: AWS's own words on one line", () => {
    const unknownKey = refused(
      "UnrecognizedClientException",
      "The security token included in the request is invalid.",
    );
    expect(awsProblem(unknownKey, { service: "SSM", region: "eu-west-1", env: {} })).toMatch(
      /^AWS refused the credentials \(UnrecognizedClientException: The security token .*\): set AWS_PROFILE/,
    );
    const denied = refused(
      "AccessDeniedException",
      "User: arn:aws:iam::1:user/x is not authorized\nto perform: ssm:PutParameter",
    );
    expect(awsProblem(denied, { service: "SSM", region: "eu-west-1", env: {} })).toBe(
      "SSM refused it (AccessDeniedException: User: arn:aws:iam::1:user/x is not authorized to perform: ssm:PutParameter).",
    );
    expect(awsProblem(new TypeError("boom"), { service: "SSM", env: {} })).toBe("TypeError: boom.");
  });
});
