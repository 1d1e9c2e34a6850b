/**
 * The embedded DynamoDB of the local stack: dynalite (pure Node, DynamoDB's wire protocol), with the table
 * created from infra/table.json, the same definition serverless.yml deploys.
 */
import type { AddressInfo } from "node:net";
import { CreateTableCommand, type CreateTableCommandInput, DynamoDBClient } from "@aws-sdk/client-dynamodb";
import dynalite from "dynalite";
import tableDefinition from "../table.json" with { type: "json" };

export interface LocalDynamoDb {
  url: string;
  stop(): Promise<void>;
}

export interface LocalDynamoDbOptions {
  host?: string;
  port?: number;
  /** Persist data in this folder across restarts; in memory when absent. */
  dataDir?: string | undefined;
}

export async function startLocalDynamoDb(options: LocalDynamoDbOptions = {}): Promise<LocalDynamoDb> {
  const server = dynalite({
    createTableMs: 0,
    deleteTableMs: 0,
    updateTableMs: 0,
    ...(options.dataDir !== undefined && { path: options.dataDir }),
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 8000, options.host ?? "127.0.0.1", () => resolve());
  });
  const { address, port } = server.address() as AddressInfo;
  return {
    url: `http://${address}:${port}`,
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/**
 * Creates the table if it does not exist yet (it does when data persists). TTL is part of the CloudFormation
 * definition but not of CreateTable, and dynalite has no UpdateTimeToLive: reads check deadlines themselves.
 */
export async function ensureTable(client: DynamoDBClient, tableName: string): Promise<void> {
  const { TimeToLiveSpecification: _ttl, ...definition } = tableDefinition as Record<string, unknown>;
  try {
    await client.send(
      new CreateTableCommand({ ...(definition as unknown as CreateTableCommandInput), TableName: tableName }),
    );
  } catch (error) {
    if (error instanceof Error && error.name === "ResourceInUseException") return;
    throw error;
  }
}

export function localDynamoDbClient(url: string): DynamoDBClient {
  return new DynamoDBClient({
    endpoint: url,
    region: "us-east-1",
    credentials: { accessKeyId: "local", secretAccessKey: "local" },
  });
}
