import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ensureTable, localDynamoDbClient, startLocalDynamoDb } from "#infra/local/dynamodb.ts";
import { createDynamoDbQuestionStore } from "#lib/store/dynamodb-question-store.ts";

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
