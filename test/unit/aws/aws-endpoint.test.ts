/**
 * The endpoint a signed request goes to (lib/aws/signed-request.ts awsEndpoint), against the endpoint rules
 * of the service's own SDK client: the same host in every partition with FIPS and dual-stack off or on, and
 * the same refusal of FIPS or dual-stack with a custom endpoint.
 */
import { LambdaClient } from "@aws-sdk/client-lambda";
import { SSMClient } from "@aws-sdk/client-ssm";
import { describe, expect, it } from "vitest";
import { awsEndpoint } from "#lib/aws/signed-request.ts";
import { ConfigError } from "#lib/config.ts";

const SERVICES = [
  {
    id: {
      signingName: "ssm",
      label: "SSM",
      protocol: "awsJson1_1" as const,
      fipsIsRegularHostIn: ["aws-us-gov"],
    },
    rules: new SSMClient({ region: "us-east-1" }).config.endpointProvider,
  },
  {
    id: { signingName: "lambda", label: "Lambda", protocol: "restJson1" as const },
    rules: new LambdaClient({ region: "us-east-1" }).config.endpointProvider,
  },
];
const REGIONS = ["us-east-1", "eu-west-1", "us-gov-west-1", "cn-north-1", "us-iso-east-1", "us-isob-east-1"];
const SWITCHES = [
  [false, false],
  [true, false],
  [false, true],
  [true, true],
] as const;

describe("a signed request's endpoint", () => {
  for (const { id, rules } of SERVICES) {
    it(`is the ${id.label} client's in each partition, FIPS and dual-stack off or on`, () => {
      for (const region of REGIONS) {
        for (const [fips, dualStack] of SWITCHES) {
          const env = {
            AWS_USE_FIPS_ENDPOINT: String(fips),
            AWS_USE_DUALSTACK_ENDPOINT: String(dualStack),
          };
          const sdk = rules({ Region: region, UseFIPS: fips, UseDualStack: dualStack }).url.href;
          expect({ region, fips, dualStack, url: awsEndpoint(id, region, { env }) }).toEqual({
            region,
            fips,
            dualStack,
            url: sdk.replace(/\/$/, ""),
          });
        }
      }
    });

    it(`refuses FIPS or dual-stack with a custom ${id.label} endpoint, as the client does`, () => {
      const variable = `AWS_ENDPOINT_URL_${id.signingName.toUpperCase()}`;
      for (const [fips, dualStack] of SWITCHES.slice(1)) {
        const env = {
          AWS_USE_FIPS_ENDPOINT: String(fips),
          AWS_USE_DUALSTACK_ENDPOINT: String(dualStack),
        };
        expect(() =>
          rules({
            Region: "eu-west-1",
            UseFIPS: fips,
            UseDualStack: dualStack,
            Endpoint: "http://127.0.0.1:9",
          }),
        ).toThrow(/Invalid Configuration/);
        expect(() => awsEndpoint(id, "eu-west-1", { env, endpoint: "http://127.0.0.1:9" })).toThrow(
          ConfigError,
        );
        expect(() =>
          awsEndpoint(id, "eu-west-1", { env: { ...env, [variable]: "http://127.0.0.1:9" } }),
        ).toThrow(ConfigError);
      }
      expect(awsEndpoint(id, "eu-west-1", { env: { [variable]: "http://127.0.0.1:9" } })).toBe(
        "http://127.0.0.1:9",
      );
      expect(() => awsEndpoint(id, "eu-west-1", { env: { AWS_USE_FIPS_ENDPOINT: "yes" } })).toThrow(
        'AWS_USE_FIPS_ENDPOINT must be "true" or "false"',
      );
    });
  }
});
