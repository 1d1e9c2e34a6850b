/**
 * The SSM provider the functions read their secrets through (lib/secrets/ssm-parameter-provider.ts), against
 * a local fake of SSM's API: the documented request of each call (AWS JSON 1.1, its target and body, a SigV4
 * signature that verifies with the credentials given), every page of a path, a missing parameter, throttling
 * retried then thrown by its SSM name, and a response SSM's API never gives refused clearly.
 */
import { GetParameterError, ParameterNotFoundError } from "@aws-lambda-powertools/parameters/errors";
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { SsmParameterProvider } from "#lib/secrets/ssm-parameter-provider.ts";
import { createSsmSecrets } from "#lib/secrets/ssm-secrets.ts";
import { noWaitRetries } from "#test/support/retries.ts";
import { resignedAuthorization } from "#test/support/sigv4.ts";
import { type FakeSsm, type FakeSsmCall, startFakeSsm } from "./support/fake-ssm.ts";

const REGION = "eu-west-1";
const CREDENTIALS = { accessKeyId: "AKIDTESTSSMPROVIDER", secretAccessKey: "test-secret-access-key" };
const SECRET_VALUE = "a-secret-value-never-in-an-error";

let ssm: FakeSsm;

beforeAll(async () => {
  ssm = await startFakeSsm();
});
afterAll(async () => {
  await ssm?.stop();
});
beforeEach(() => {
  ssm.interject = undefined;
  ssm.calls.length = 0;
});

const provider = (options: { endpoint?: string } = {}) =>
  new SsmParameterProvider({
    region: REGION,
    credentials: CREDENTIALS,
    endpoint: options.endpoint ?? ssm.url,
    retryStrategy: noWaitRetries(),
  });

/** The error a read fails with (Powertools wraps what the provider throws in GetParameterError). */
const failure = (read: Promise<unknown>) =>
  read.then(
    () => {
      throw new Error("the read succeeded");
    },
    (error: unknown) => error as GetParameterError,
  );

const header = (call: FakeSsmCall, name: string) => String(call.headers[name] ?? "");

/** The Authorization header the SDK's signer gives the same request at the same time with `credentials`. */
const expectedAuthorization = (call: FakeSsmCall, credentials: typeof CREDENTIALS) =>
  resignedAuthorization(
    { ...call, body: call.rawBody },
    { url: ssm.url, service: "ssm", region: REGION, credentials },
  );

describe("the SSM parameter provider", () => {
  it("reads a parameter with GetParameter: POST /, AWS JSON 1.1, decrypted, SigV4-signed for ssm", async () => {
    ssm.put("/handraise/provider/api-key", SECRET_VALUE);
    await expect(
      provider().get("/handraise/provider/api-key", { decrypt: true, throwOnMissing: true }),
    ).resolves.toBe(SECRET_VALUE);
    expect(ssm.calls).toHaveLength(1);
    const [call] = ssm.calls as [FakeSsmCall];
    expect(call.method).toBe("POST");
    expect(call.path).toBe("/");
    expect(header(call, "x-amz-target")).toBe("AmazonSSM.GetParameter");
    expect(header(call, "content-type")).toBe("application/x-amz-json-1.1");
    expect(JSON.parse(call.rawBody)).toEqual({ Name: "/handraise/provider/api-key", WithDecryption: true });
    const authorization = header(call, "authorization");
    expect(authorization).toMatch(
      new RegExp(
        `^AWS4-HMAC-SHA256 Credential=${CREDENTIALS.accessKeyId}/\\d{8}/${REGION}/ssm/aws4_request, `,
      ),
    );
    const signedHeaders = /SignedHeaders=([^,]+)/.exec(authorization)?.[1]?.split(";");
    expect(signedHeaders).toEqual(
      expect.arrayContaining(["content-type", "host", "x-amz-date", "x-amz-target"]),
    );
    // The signature verifies with the credentials given, and only with them.
    expect(await expectedAuthorization(call, CREDENTIALS)).toBe(authorization);
    expect(await expectedAuthorization(call, { ...CREDENTIALS, secretAccessKey: "another-secret" })).not.toBe(
      authorization,
    );
  });

  it("reads a path with GetParametersByPath, every page (NextToken), each by its name under the path", async () => {
    for (let i = 0; i < 23; i++) ssm.put(`/handraise/paged/api-keys/key-${i}`, `ask:paged-${i}`);
    ssm.put("/handraise/paged/api-keys/nested/deeper", "ask:nested");
    const values = (await provider().getMultiple("/handraise/paged/api-keys", {
      decrypt: true,
      recursive: false,
    })) as Record<string, string>;
    expect(Object.keys(values).sort()).toEqual(Array.from({ length: 23 }, (_, i) => `key-${i}`).sort());
    expect(values["key-7"]).toBe("ask:paged-7");
    expect(ssm.calls.map((call) => header(call, "x-amz-target"))).toEqual([
      "AmazonSSM.GetParametersByPath",
      "AmazonSSM.GetParametersByPath",
      "AmazonSSM.GetParametersByPath",
    ]);
    expect(ssm.calls.map((call) => JSON.parse(call.rawBody))).toEqual([
      { Path: "/handraise/paged/api-keys", WithDecryption: true, Recursive: false },
      { Path: "/handraise/paged/api-keys", WithDecryption: true, Recursive: false, NextToken: "10" },
      { Path: "/handraise/paged/api-keys", WithDecryption: true, Recursive: false, NextToken: "20" },
    ]);
    for (const call of ssm.calls) {
      expect(await expectedAuthorization(call, CREDENTIALS)).toBe(header(call, "authorization"));
    }
  });

  it("takes ParameterNotFound as missing: Powertools' ParameterNotFoundError, a missing secret for Handraise", async () => {
    await expect(
      provider().get("/handraise/provider/absent", { decrypt: true, throwOnMissing: true }),
    ).rejects.toBeInstanceOf(ParameterNotFoundError);
    const secrets = createSsmSecrets({
      prefix: "/handraise/provider",
      maxAgeSeconds: 60,
      now: () => 0,
      provider: provider(),
    });
    await expect(secrets.get("link-secret")).resolves.toBeUndefined();
  });

  it("retries throttling and 5xx as the SDK's standard strategy does, then throws SSM's error by its name", async () => {
    ssm.put("/handraise/provider/slow", SECRET_VALUE);
    const throttled = {
      status: 400,
      body: JSON.stringify({ __type: "ThrottlingException", message: "Rate exceeded" }),
    };
    let failures = 2;
    ssm.interject = () => (failures-- > 0 ? throttled : undefined);
    await expect(provider().get("/handraise/provider/slow", { decrypt: true })).resolves.toBe(SECRET_VALUE);
    expect(ssm.calls).toHaveLength(3);

    ssm.calls.length = 0;
    failures = 1;
    ssm.interject = () =>
      failures-- > 0 ? { status: 503, body: JSON.stringify({ __type: "ServiceUnavailable" }) } : undefined;
    await expect(provider().get("/handraise/provider/slow", { decrypt: true })).resolves.toBe(SECRET_VALUE);
    expect(ssm.calls).toHaveLength(2);

    ssm.calls.length = 0;
    ssm.interject = () => throttled;
    const error = await failure(provider().get("/handraise/provider/slow", { decrypt: true }));
    expect(ssm.calls).toHaveLength(3);
    expect(error).toBeInstanceOf(GetParameterError);
    expect((error.cause as Error).name).toBe("ThrottlingException");
    expect(error.message).toBe("Rate exceeded");
  });

  it("does not retry a refusal (AccessDeniedException, named as SSM names it in __type)", async () => {
    ssm.interject = () => ({
      status: 400,
      body: JSON.stringify({ __type: "com.amazonaws.ssm#AccessDeniedException", Message: "not allowed" }),
    });
    const error = await failure(provider().get("/handraise/provider/denied", { decrypt: true }));
    expect(ssm.calls).toHaveLength(1);
    expect((error.cause as Error).name).toBe("AccessDeniedException");
    expect(error.message).toBe("not allowed");
  });

  it("retries a network error, then throws it", async () => {
    const closed = await startFakeSsm();
    await closed.stop();
    const retries = noWaitRetries();
    const refresh = vi.spyOn(retries, "refreshRetryTokenForRetry");
    const error = await failure(
      new SsmParameterProvider({
        region: REGION,
        credentials: CREDENTIALS,
        endpoint: closed.url,
        retryStrategy: retries,
      }).get("/handraise/provider/any", { decrypt: true }),
    );
    expect(error).toBeInstanceOf(GetParameterError);
    expect((error.cause as NodeJS.ErrnoException).code).toBe("ECONNREFUSED");
    // Three attempts: two retries granted, the third refused.
    expect(refresh).toHaveBeenCalledTimes(3);
  });

  it("refuses a response SSM's API never gives, naming the operation, never a value", async () => {
    ssm.interject = () => ({ status: 200, body: `not json ${SECRET_VALUE}` });
    const notJson = await failure(provider().get("/handraise/provider/any", { decrypt: true }));
    expect(notJson.message).toBe("SSM's GetParameter response is not a JSON object.");
    expect(ssm.calls).toHaveLength(1);

    ssm.interject = () => ({ status: 200, body: JSON.stringify({ Parameter: { Name: "/x", Value: 42 } }) });
    await expect(provider().get("/handraise/provider/any", { decrypt: true })).rejects.toThrow(
      "SSM's GetParameter response has no Parameter.Value for /handraise/provider/any.",
    );

    ssm.interject = () => ({
      status: 200,
      body: JSON.stringify({ Parameters: [{ Name: "/handraise/provider/k", Secret: SECRET_VALUE }] }),
    });
    const page = await failure(provider().getMultiple("/handraise/provider", { decrypt: true }));
    expect(page.message).toBe(
      "SSM's GetParametersByPath response has a parameter without Name or Value under /handraise/provider.",
    );
    for (const error of [notJson, page]) {
      expect(`${error.message} ${(error.cause as Error).message}`).not.toContain(SECRET_VALUE);
    }
  });

  it("reaches the endpoint the environment names for SSM (AWS_ENDPOINT_URL_SSM), as the SDK does", async () => {
    ssm.put("/handraise/provider/env", SECRET_VALUE);
    const fromEnv = new SsmParameterProvider({
      region: REGION,
      credentials: CREDENTIALS,
      env: { AWS_ENDPOINT_URL_SSM: ssm.url, AWS_ENDPOINT_URL: "http://127.0.0.1:9" },
    });
    await expect(fromEnv.get("/handraise/provider/env", { decrypt: true })).resolves.toBe(SECRET_VALUE);
    expect(ssm.calls).toHaveLength(1);
  });
});
