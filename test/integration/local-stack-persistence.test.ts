import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  CreateTableCommand,
  type CreateTableCommandInput,
  DescribeTableCommand,
  GetItemCommand,
  PutItemCommand,
} from "@aws-sdk/client-dynamodb";
import { afterAll, describe, expect, it } from "vitest";
import { ensureTable, localDynamoDbClient, startLocalDynamoDb } from "#infra/local/dynamodb.ts";
import tableDefinition from "#infra/table.json" with { type: "json" };
import { createDynamoDbQuestionStore } from "#lib/store/dynamodb-question-store.ts";
import { waitFor } from "./support/test-stack.ts";

const dataDir = mkdtempSync(join(tmpdir(), "handraise-data-"));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

async function withStore<T>(run: (store: ReturnType<typeof createDynamoDbQuestionStore>) => Promise<T>) {
  const dynamodb = await startLocalDynamoDb({ port: 0, dataDir });
  const client = localDynamoDbClient(dynamodb.url);
  try {
    await ensureTable(client, "persist");
    return await run(createDynamoDbQuestionStore({ client, tableName: "persist", retentionSeconds: 60 }));
  } finally {
    client.destroy();
    await dynamodb.stop();
  }
}

describe("HANDRAISE_DATA_DIR", () => {
  it("keeps the local DynamoDB data across restarts (and the table is not created twice)", async () => {
    const questions = [
      {
        id: "q",
        header: "H",
        question: "Q?",
        options: [{ label: "A" }, { label: "B" }],
        allowOther: true as const,
      },
    ];
    await withStore((store) =>
      store.create(
        { id: "ask_persisted", owner: "web:a", questions, timeoutSeconds: 60, deliverTo: [], createdAtMs: 1 },
        1,
      ),
    );
    const record = await withStore((store) => store.get("ask_persisted", 2));
    expect(record).toMatchObject({ id: "ask_persisted", status: "pending", owner: "web:a" });
  });
});

describe("a persisted table from before an index was added", () => {
  it("is rebuilt with every index of infra/table.json, its items kept", async () => {
    const oldDir = mkdtempSync(join(tmpdir(), "handraise-old-data-"));
    try {
      const dynamodb = await startLocalDynamoDb({ port: 0, dataDir: oldDir });
      const client = localDynamoDbClient(dynamodb.url);
      try {
        // The table as an earlier version made it: without its last index.
        const { TimeToLiveSpecification: _ttl, ...definition } = tableDefinition;
        const older = definition.GlobalSecondaryIndexes.slice(0, -1);
        await client.send(
          new CreateTableCommand({
            ...(definition as unknown as CreateTableCommandInput),
            GlobalSecondaryIndexes: older as CreateTableCommandInput["GlobalSecondaryIndexes"],
            TableName: "old",
          }),
        );
        await waitFor(
          async () =>
            (await client.send(new DescribeTableCommand({ TableName: "old" }))).Table?.TableStatus ===
              "ACTIVE" || undefined,
          { what: "the old table to be active" },
        );
        await client.send(
          new PutItemCommand({ TableName: "old", Item: { pk: { S: "Q#kept" }, entity: { S: "question" } } }),
        );
        await ensureTable(client, "old");
        const { Table } = await client.send(new DescribeTableCommand({ TableName: "old" }));
        expect((Table?.GlobalSecondaryIndexes ?? []).map((index) => index.IndexName).sort()).toEqual(
          definition.GlobalSecondaryIndexes.map((index) => index.IndexName).sort(),
        );
        const kept = await client.send(
          new GetItemCommand({ TableName: "old", Key: { pk: { S: "Q#kept" } }, ConsistentRead: true }),
        );
        expect(kept.Item).toEqual({ pk: { S: "Q#kept" }, entity: { S: "question" } });
        // Started again on it, nothing more to do: the same table, the item still there.
        await ensureTable(client, "old");
        const again = await client.send(
          new GetItemCommand({ TableName: "old", Key: { pk: { S: "Q#kept" } } }),
        );
        expect(again.Item).toBeDefined();
      } finally {
        client.destroy();
        await dynamodb.stop();
      }
    } finally {
      rmSync(oldDir, { recursive: true, force: true });
    }
  });
});
