/**
 * The local stack's fault injection and DynamoDB Streams emulation, on their own: injected failures are
 * AWS's error responses (the SDK sees the real error name, status and retryability) and change nothing;
 * the DynamoDB proxy captures each write's images; the stream emulation retries a failed record in order.
 */
import {
  CreateTableCommand,
  DeleteItemCommand,
  DynamoDBClient,
  PutItemCommand,
  UpdateItemCommand,
} from "@aws-sdk/client-dynamodb";
import { ListStateMachinesCommand, SFNClient } from "@aws-sdk/client-sfn";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { localDynamoDbClient, startLocalDynamoDb } from "#infra/local/dynamodb.ts";
import { type DynamoDbProxy, type ItemChange, startDynamoDbProxy } from "#infra/local/dynamodb-proxy.ts";
import { createStreamEmulator } from "#infra/local/dynamodb-streams.ts";
import { startLocalStepFunctions } from "#infra/local/stepfunctions/index.ts";

const credentials = { accessKeyId: "local", secretAccessKey: "local" };
const TableName = "faults";
const stops: (() => Promise<void>)[] = [];
let proxy: DynamoDbProxy;
let client: DynamoDBClient;
const changes: ItemChange[] = [];

beforeAll(async () => {
  const dynalite = await startLocalDynamoDb({ port: 0 });
  stops.push(dynalite.stop);
  const direct = localDynamoDbClient(dynalite.url);
  stops.push(async () => direct.destroy());
  await direct.send(
    new CreateTableCommand({
      TableName,
      BillingMode: "PAY_PER_REQUEST",
      AttributeDefinitions: [{ AttributeName: "pk", AttributeType: "S" }],
      KeySchema: [{ AttributeName: "pk", KeyType: "HASH" }],
    }),
  );
  proxy = await startDynamoDbProxy({
    dynamodb: dynalite,
    keyAttributes: () => ["pk"],
    onChange: (change) => changes.push(change),
  });
  stops.push(proxy.stop);
  // One attempt, so each injected failure reaches the test as the SDK parsed it.
  client = new DynamoDBClient({ endpoint: proxy.url, region: "us-east-1", credentials, maxAttempts: 1 });
});
afterAll(async () => {
  client?.destroy();
  for (const stop of stops.reverse()) await stop();
});

describe("DynamoDB fault injection", () => {
  it("fails the next N matching calls with DynamoDB's error, writing nothing, then passes calls through", async () => {
    proxy.faults.failNext(2, {
      code: "ProvisionedThroughputExceededException",
      status: 400,
      operations: ["PutItem"],
    });
    const put = () => client.send(new PutItemCommand({ TableName, Item: { pk: { S: "a" }, n: { N: "1" } } }));

    for (let i = 0; i < 2; i++) {
      const error = await put().catch((e: unknown) => e);
      expect(error).toMatchObject({
        name: "ProvisionedThroughputExceededException",
        $metadata: { httpStatusCode: 400 },
      });
    }
    expect(changes).toEqual([]);
    await put();
    expect(changes).toEqual([
      {
        tableName: TableName,
        keys: { pk: { S: "a" } },
        oldImage: undefined,
        newImage: { pk: { S: "a" }, n: { N: "1" } },
      },
    ]);
    expect(proxy.faults.clear()).toBe(0);
  });

  it("answers 500 InternalServerError as DynamoDB does, for any operation when none is named", async () => {
    proxy.faults.failNext(1, { code: "InternalServerError", status: 500 });
    const error = await client
      .send(new DeleteItemCommand({ TableName, Key: { pk: { S: "a" } } }))
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ name: "InternalServerError", $metadata: { httpStatusCode: 500 } });
  });

  it("with `applied`, serves the call first: the write is made (and captured), only its response is the error", async () => {
    changes.length = 0;
    proxy.faults.failNext(1, {
      code: "InternalServerError",
      status: 500,
      operations: ["PutItem"],
      applied: true,
    });
    const error = await client
      .send(new PutItemCommand({ TableName, Item: { pk: { S: "applied" }, n: { N: "1" } } }))
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ name: "InternalServerError", $metadata: { httpStatusCode: 500 } });
    expect(changes).toEqual([
      {
        tableName: TableName,
        keys: { pk: { S: "applied" } },
        oldImage: undefined,
        newImage: { pk: { S: "applied" }, n: { N: "1" } },
      },
    ]);
    expect(proxy.faults.clear()).toBe(0);
  });

  it("captures each write's before and after images, and nothing for a write that changed nothing", async () => {
    changes.length = 0;
    const set = (n: string) =>
      client.send(
        new UpdateItemCommand({
          TableName,
          Key: { pk: { S: "a" } },
          UpdateExpression: "SET n = :n",
          ExpressionAttributeValues: { ":n": { N: n } },
        }),
      );
    await set("2");
    await set("2");
    await client.send(new DeleteItemCommand({ TableName, Key: { pk: { S: "a" } } }));
    expect(changes.map((c) => [c.oldImage?.n?.N, c.newImage?.n?.N])).toEqual([
      ["1", "2"],
      ["2", undefined],
    ]);
  });
});

describe("Step Functions fault injection", () => {
  it("answers the next call with the injected error and status", async () => {
    const sfn = await startLocalStepFunctions({ port: 0, stateMachines: [], lambdas: {} });
    const sfnClient = new SFNClient({ endpoint: sfn.url, region: "us-east-1", credentials, maxAttempts: 1 });
    try {
      sfn.faults.failNext(1, { code: "ServiceUnavailable", status: 503, operations: ["ListStateMachines"] });
      const error = await sfnClient.send(new ListStateMachinesCommand({})).catch((e: unknown) => e);
      expect(error).toMatchObject({ name: "ServiceUnavailable", $metadata: { httpStatusCode: 503 } });
      await expect(sfnClient.send(new ListStateMachinesCommand({}))).resolves.toMatchObject({
        stateMachines: [],
      });
    } finally {
      sfnClient.destroy();
      await sfn.stop();
    }
  });
});

describe("DynamoDB Streams emulation", () => {
  it("delivers matching records in order per item, retrying a failed one", async () => {
    const seen: string[] = [];
    let failures = 2;
    const streams = createStreamEmulator({
      region: "us-east-1",
      account: "000000000000",
      retryBaseMs: 5,
      consumers: () => [
        {
          name: "consumer",
          filterPatterns: [
            { eventName: ["INSERT", "MODIFY"], dynamodb: { NewImage: { n: { N: [{ exists: true }] } } } },
          ],
          handler: async (event) => {
            const record = event.Records[0];
            const value = record?.dynamodb?.NewImage?.n?.N ?? "";
            if (value === "1" && failures-- > 0) {
              return { batchItemFailures: [{ itemIdentifier: record?.dynamodb?.SequenceNumber ?? "" }] };
            }
            seen.push(`${record?.eventName}:${value}`);
            return { batchItemFailures: [] };
          },
        },
      ],
    });
    const key = { pk: { S: "b" } };
    streams.record({
      tableName: TableName,
      keys: key,
      oldImage: undefined,
      newImage: { ...key, n: { N: "1" } },
    });
    streams.record({
      tableName: TableName,
      keys: key,
      oldImage: { ...key, n: { N: "1" } },
      newImage: { ...key },
    });
    streams.record({
      tableName: TableName,
      keys: key,
      oldImage: { ...key },
      newImage: { ...key, n: { N: "2" } },
    });
    await streams.drained();
    await streams.stop();
    // The second record has no `n`: filtered out. The first, retried twice, still comes before the third.
    expect(seen).toEqual(["INSERT:1", "MODIFY:2"]);
  });
});
