/**
 * The embedded DynamoDB of the local stack: dynalite (pure Node, DynamoDB's wire protocol), with the table
 * created from infra/table.json, the same definition serverless.yml deploys.
 */
import { EventEmitter } from "node:events";
import type { IncomingHttpHeaders, OutgoingHttpHeaders, RequestListener } from "node:http";
import type { AddressInfo } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import {
  type AttributeValue,
  BatchWriteItemCommand,
  CreateTableCommand,
  type CreateTableCommandInput,
  DeleteTableCommand,
  DescribeTableCommand,
  DynamoDBClient,
  ScanCommand,
} from "@aws-sdk/client-dynamodb";
import dynalite from "dynalite";
import tableDefinition from "../table.json" with { type: "json" };

/** A DynamoDB request as it arrives over HTTP (AWS JSON 1.0: `POST /`, X-Amz-Target, signed headers). */
export interface DynamoDbWireRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

export interface DynamoDbWireResponse {
  status: number;
  headers: OutgoingHttpHeaders;
  body: Buffer;
}

export interface LocalDynamoDb {
  url: string;
  /**
   * Serves one request in this process, exactly as dynalite serves it on its port but without a socket and
   * a second HTTP round trip: the DynamoDB proxy (dynamodb-proxy.ts), which serves the stack's DynamoDB port,
   * hands every request to dynalite this way.
   */
  serve(request: DynamoDbWireRequest): Promise<DynamoDbWireResponse>;
  stop(): Promise<void>;
}

export interface LocalDynamoDbOptions {
  host?: string;
  port?: number;
  /** Persist data in this folder across restarts; in memory when absent. */
  dataDir?: string | undefined;
}

/** How long stop() waits for requests still being served. */
const STOP_GRACE_MS = 2_000;

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
  const listener = server.listeners("request")[0] as RequestListener;
  // Requests handed over in process and not answered yet. dynalite closes its database when its server
  // closes, and a request still working then fails inside dynalite's own callbacks, where nothing can catch
  // it: stop() lets them finish first, and a request after stop() is refused, as the closed port would be.
  const inFlight = new Set<Promise<DynamoDbWireResponse>>();
  let stopped = false;
  return {
    url: `http://${address}:${port}`,
    serve: (request) => {
      if (stopped) return Promise.reject(new Error("the local DynamoDB is stopped"));
      const answered = new Promise<DynamoDbWireResponse>((resolve) => {
        // dynalite's request listener reads the request's method, URL and headers, then its "data" and "end"
        // events; it answers through statusCode, setHeader and end, which is all this response has.
        const incoming = Object.assign(new EventEmitter(), {
          method: request.method,
          url: request.url,
          headers: request.headers,
        });
        const headers: OutgoingHttpHeaders = {};
        const response = {
          statusCode: 200,
          setHeader(name: string, value: string | number) {
            headers[name.toLowerCase()] = value;
          },
          end(body?: string) {
            resolve({ status: response.statusCode, headers, body: Buffer.from(body ?? "", "utf8") });
          },
        };
        listener(incoming as never, response as never);
        if (request.body.length > 0) incoming.emit("data", request.body);
        incoming.emit("end");
      });
      inFlight.add(answered);
      const settled = () => inFlight.delete(answered);
      answered.then(settled, settled);
      return answered;
    },
    stop: async () => {
      stopped = true;
      // Bounded: a request dynalite fails by throwing in its own callback never answers.
      await Promise.race([
        Promise.allSettled([...inFlight]),
        sleep(STOP_GRACE_MS, undefined, { ref: false }),
      ]);
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/**
 * Creates the table if it does not exist yet (it does when data persists). TTL is part of the CloudFormation
 * definition but not of CreateTable, and dynalite has no UpdateTimeToLive: reads check deadlines themselves.
 * A persisted table that lacks an index the definition has gained since is rebuilt with it (see below).
 */
export async function ensureTable(client: DynamoDBClient, tableName: string): Promise<void> {
  try {
    await createTable(client, tableName);
  } catch (error) {
    if (error instanceof Error && error.name === "ResourceInUseException") {
      await addMissingIndexes(client, tableName);
      return;
    }
    throw error;
  }
}

async function createTable(client: DynamoDBClient, tableName: string): Promise<void> {
  const { TimeToLiveSpecification: _ttl, ...definition } = tableDefinition as Record<string, unknown>;
  await client.send(
    new CreateTableCommand({ ...(definition as unknown as CreateTableCommandInput), TableName: tableName }),
  );
}

/**
 * A table kept in HANDRAISE_DATA_DIR by an earlier version may lack an index added since (deployed,
 * CloudFormation adds it to the table). dynalite cannot add an index to a table, so the table is made again
 * from the definition and its items are written back: the same items, each now in every index its
 * attributes key. Local data only: this reads the whole table, which the deployed code never does.
 */
async function addMissingIndexes(client: DynamoDBClient, tableName: string): Promise<void> {
  const described = await client.send(new DescribeTableCommand({ TableName: tableName }));
  const present = new Set((described.Table?.GlobalSecondaryIndexes ?? []).map((index) => index.IndexName));
  if (tableDefinition.GlobalSecondaryIndexes.every((index) => present.has(index.IndexName))) return;
  const items: Record<string, AttributeValue>[] = [];
  let startKey: Record<string, AttributeValue> | undefined;
  do {
    const page = await client.send(
      new ScanCommand({ TableName: tableName, ConsistentRead: true, ExclusiveStartKey: startKey }),
    );
    items.push(...(page.Items ?? []));
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  await client.send(new DeleteTableCommand({ TableName: tableName }));
  await tableState(client, tableName, "gone");
  await createTable(client, tableName);
  await tableState(client, tableName, "ACTIVE");
  for (let i = 0; i < items.length; i += 25) {
    let requests = items.slice(i, i + 25).map((Item) => ({ PutRequest: { Item } }));
    while (requests.length > 0) {
      const out = await client.send(new BatchWriteItemCommand({ RequestItems: { [tableName]: requests } }));
      requests = (out.UnprocessedItems?.[tableName] ?? []) as typeof requests;
    }
  }
}

/** Waits (dynalite: a tick) until the table is ACTIVE, or gone. */
async function tableState(client: DynamoDBClient, tableName: string, wanted: "ACTIVE" | "gone") {
  for (;;) {
    try {
      const { Table } = await client.send(new DescribeTableCommand({ TableName: tableName }));
      if (Table?.TableStatus === wanted) return;
    } catch (error) {
      if (!(error instanceof Error && error.name === "ResourceNotFoundException")) throw error;
      if (wanted === "gone") return;
    }
    await sleep(10);
  }
}

export function localDynamoDbClient(url: string): DynamoDBClient {
  return new DynamoDBClient({
    endpoint: url,
    region: "us-east-1",
    credentials: { accessKeyId: "local", secretAccessKey: "local" },
  });
}
